"""The plugin's loggers: every record is one neutralised line.

pytest prints captured log records under a failing item and with ``--log-cli-level``; a
record may quote a provider's error message, a path or a reason, so its text goes through
:func:`~pytest_secreview.severity.one_line` like everything else printed from untrusted text.
"""

from __future__ import annotations

import logging

from .severity import one_line

__all__ = ["get_logger"]


class _OneLine(logging.Filter):
    """Render the record's message once, neutralised (a filter never drops a record here)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = one_line(record.getMessage())
        record.args = None
        return True


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` whose records are single, neutralised lines."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, _OneLine) for f in logger.filters):
        logger.addFilter(_OneLine())
    return logger
