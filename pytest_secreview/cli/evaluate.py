"""``secreview evaluate``: evaluate the items the rules phase listed; writes
summary.json and <artifacts>/phases/evaluate.json.

The hardened pytest run limited to this phase (see :mod:`.phases`)."""

from __future__ import annotations

from collections.abc import Sequence

from .phases import run


def main(argv: Sequence[str]) -> int:
    """Entry point of ``secreview evaluate``; the exit status is pytest's."""
    return run("evaluate", argv)
