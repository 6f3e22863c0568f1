"""``secreview rules``: choose the rules and items for the stored diff, into
<artifacts>/phases/rules.json.

The hardened pytest run limited to this phase (see :mod:`.phases`)."""

from __future__ import annotations

from collections.abc import Sequence

from .phases import run


def main(argv: Sequence[str]) -> int:
    """Entry point of ``secreview rules``; the exit status is pytest's."""
    return run("rules", argv)
