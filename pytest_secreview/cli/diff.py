"""``secreview diff``: resolve the range and parse the diff into <artifacts>/phases/diff.json.

The hardened pytest run limited to this phase (see :mod:`.phases`)."""

from __future__ import annotations

from collections.abc import Sequence

from .phases import run


def main(argv: Sequence[str]) -> int:
    """Entry point of ``secreview diff``; the exit status is pytest's."""
    return run("diff", argv)
