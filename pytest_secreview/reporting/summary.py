"""Aggregate item reports into the session's results.

Runs wherever reports arrive: in a plain run, and on the xdist controller, which receives
every worker's reports. Each item ships its record and verdict once, on its setup report
(``report.secreview_record``, JSON-safe: see :mod:`pytest_secreview.core.record`); every
output renders those. ``user_properties`` carry only the node's rule and path (and the JUnit
properties, a rendering of the record).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..core.decide import Verdict
from ..core.findings import Finding
from ..core.problems import one_per_problem
from ..core.record import ItemRecord
from ..usage_counts import USAGE_COUNTS


@dataclass
class ItemResult:
    """One item's outcome and what it found."""

    nodeid: str
    rule: str | None
    path: str
    # passed | failed | skipped | error; an item that was never judged (no call phase) is an
    # error, never a pass.
    outcome: str = "error"
    reason: str | None = None
    #: The item's findings as decided (its verdict's).
    findings: tuple[Finding, ...] = ()
    usage: dict[str, Any] = field(default_factory=dict)
    mode: str | None = None
    cached: bool = False
    artifact: dict[str, Any] | None = None
    #: Why part of the item's review could not run (``--secreview-unreviewed`` decided its
    #: outcome); None when it was fully evaluated.
    not_reviewed: str | None = None
    duration: float = 0.0  # seconds over every phase
    risk_evidence: dict[str, Any] | None = None  # the intent audit's, apart from judgment
    assessments: list[dict[str, Any]] = field(default_factory=list)
    fixes: list[dict[str, Any]] = field(default_factory=list)  # fix mode's patches
    #: What the item recorded and what ``core.decide`` made of it (None: no record, e.g. a
    #: broken rule's error item).
    record: ItemRecord | None = None
    verdict: Verdict | None = None

    def take(self, record: ItemRecord, verdict: Verdict) -> None:
        """Render the item's record: its decided findings and what else it did."""
        self.record, self.verdict = record, verdict
        self.findings = verdict.findings
        self.usage, self.mode, self.cached = dict(record.usage), record.mode, record.cached
        self.not_reviewed = record.not_reviewed
        self.assessments = list(record.assessments)
        self.fixes = list(record.fixes)


@dataclass(eq=False)  # registered as a pluggy plugin, which must be hashable
class Summary:
    """Every secreview item's result, keyed by node id."""

    items: dict[str, ItemResult] = field(default_factory=dict)
    #: Writes one item's artifacts (node id, artifact, outcome) and says whether it did: the
    #: controller sets it, so each item's artifact is written when its last report arrives
    #: and not held until the session ends. An artifact it did not write stays for the end.
    spill: Callable[[str, dict[str, Any], str], bool] | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """pytest hook: this object is registered as a plugin while the review runs."""
        self.add(report)

    def add(self, report: pytest.TestReport) -> None:
        """Fold one phase report of an item into its result."""
        props: dict[str, str] = {str(k): str(v) for k, v in report.user_properties}
        if "secreview_path" not in props:
            return
        result = self.items.get(report.nodeid)
        if result is None:
            result = ItemResult(report.nodeid, props.get("secreview_rule"),
                                props["secreview_path"])
            self.items[report.nodeid] = result
        result.duration += report.duration
        artifact = getattr(report, "secreview_artifact", None)
        if isinstance(artifact, dict):
            result.artifact = artifact
            if self.spill is not None:
                # pytest keeps every report to the end (the terminal's statistics): the
                # artifact lives here only, until it is written.
                del report.secreview_artifact
        shipped = getattr(report, "secreview_record", None)
        if isinstance(shipped, dict):
            result.take(ItemRecord.from_json(shipped["record"]),
                        Verdict.from_json(shipped["verdict"]))
            if shipped.get("risk_evidence") is not None:  # the intent audit's, apart
                result.risk_evidence = shipped["risk_evidence"]
        if report.skipped:
            result.outcome = "skipped"
            result.reason = _skip_reason(report)
        elif report.failed:
            result.outcome = "failed" if report.when == "call" else "error"
            # A failure is judged: its findings say why (the setup's placeholder goes).
            result.reason = _error_reason(report) if result.outcome == "error" else None
        elif report.when == "call":
            result.outcome, result.reason = "passed", None
        elif report.when == "setup" and result.reason is None:
            result.reason = "evaluated but never judged"
        if report.when == "teardown" and result.artifact is not None and self.spill is not None \
                and self.spill(report.nodeid, result.artifact, result.outcome):
            result.artifact = None  # written: the outcome is final after teardown

    def outcomes(self) -> Counter[str]:
        """Items per outcome."""
        return Counter(r.outcome for r in self.items.values())

    def usage_totals(self) -> dict[str, Any]:
        """Model calls, tool calls, tokens and cost summed over every item; cost is None when
        any item's model had no known price (a partial sum would understate it)."""
        keys = USAGE_COUNTS
        totals: dict[str, Any] = dict.fromkeys(keys, 0)
        cost: float | None = 0.0
        for result in self.items.values():
            for key in keys:
                totals[key] += int(result.usage.get(key, 0) or 0)
            if result.usage.get("model_calls"):
                item_cost = result.usage.get("cost_usd")
                cost = None if cost is None or item_cost is None else cost + float(item_cost)
        totals["cost_usd"] = cost
        return totals

    def findings(self) -> list[Finding]:
        """Every problem the items found, one finding each (the reports of one problem by
        several items or checks merged: :func:`~..core.problems.one_per_problem`), worst
        first, then by location. Each item's own findings and outcome stay as decided."""
        every = one_per_problem(f for _, r in sorted(self.items.items()) for f in r.findings)
        return sorted(every, key=Finding.sort_key)


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])
        return text.removeprefix("Skipped: ")
    return str(longrepr)


def _error_reason(report: pytest.TestReport) -> str:
    text = str(report.longrepr).strip().splitlines()
    return text[-1] if text else "error"
