"""Temporary files created atomically: nothing for the rule to report."""

import tempfile


def spool(data: bytes) -> str:
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
        return handle.name
