"""What a model review produces (:class:`AgentOutput`), and how the reviews of several
models add up: their usage summed, and how many of them must report a location under each
consensus policy (``--secreview-consensus``). Shared by the evaluation of an item, its cache,
the intent audit and fix mode."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.findings import Finding
from ..usage_counts import USAGE_COUNTS


@dataclass(frozen=True)
class AgentOutput:
    """What the model review of one target produced."""

    findings: list[Finding]
    mode: str
    usage: dict[str, Any]
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = field(default_factory=dict)
    cached: bool = False
    not_reviewed: str | None = None  # the model review was withheld, and why
    assessments: tuple[dict[str, Any], ...] = ()  # several models: each one's result



def required_votes(policy: str, models: int) -> int:
    """How many models must report a location for its finding to count. ``majority`` is
    strictly more than half: with two models it needs both (a tie is no majority)."""
    if policy == "all":
        return models
    if policy == "majority":
        return models // 2 + 1
    return 1


def sum_usage(usages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The usage of several model reviews of one item: counts and cost added (cost None when
    any review's cost is unknown), ``models`` joined."""
    total: dict[str, Any] = {k: 0 for k in USAGE_COUNTS}
    costs: list[float | None] = []
    models: list[Any] = []
    for usage in usages:
        for key in USAGE_COUNTS:
            total[key] += int(usage.get(key) or 0)
        if usage.get("model_calls"):
            costs.append(usage.get("cost_usd"))
        models += [m for m in usage.get("models", []) if m not in models]
    total["cost_usd"] = None if None in costs else round(sum(c or 0.0 for c in costs), 6)
    total["models"] = models
    return total


