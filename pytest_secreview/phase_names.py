"""The phases' names and order; imported by the options table, so it imports nothing."""

from __future__ import annotations

#: The pytest plugin of a run given --secreview-stop-after/--secreview-from-phase.
PHASES_PLUGIN = "secreview-phases"
#: The review's phases, in order.
PHASES: tuple[str, ...] = ("diff", "rules", "evaluate", "comment", "report")


def index(phase: str) -> int:
    """Position of ``phase`` in :data:`PHASES` (raises ``ValueError`` for an unknown name)."""
    return PHASES.index(phase)


def command(phase: str) -> str:
    """The command that runs ``phase`` on its own, for error messages."""
    return f"secreview {phase}"
