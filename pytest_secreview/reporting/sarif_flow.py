"""A taint finding's path as a SARIF ``codeFlow`` (GitHub code scanning's "Show paths")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.findings import FlowStep

#: Our step kinds as SARIF threadFlowLocation ``kinds`` (SARIF §3.38.8 suggests these words).
_KIND = {"source": "taint", "step": "assignment", "call": "call", "return": "return",
         "sink": "taint"}


def code_flow(
    flow: Sequence[FlowStep],
    location: Callable[[str, dict[str, int]], dict[str, Any]],
    clean: Callable[[str, int], str],
) -> dict[str, Any] | None:
    """One codeFlow with one threadFlow, a location per step (``location`` and ``clean`` are
    the SARIF writer's own helpers: same URIs, same text limits)."""
    if not flow:
        return None
    locations = []
    for step in flow:
        where = location(step.path, {"startLine": max(step.line, 1), "startColumn": 1})
        where["message"] = {"text": clean(f"{step.kind}: {step.text}", 500)}
        locations.append({"location": where, "kinds": [_KIND.get(step.kind, "call")]})
    return {
        "message": {"text": clean(f"{flow[0].text} -> {flow[-1].text}", 500)},
        "threadFlows": [{"locations": locations}],
    }
