"""One item's record, built once by one function for every caller.

The pytest items (a rule on a file or a batch, a file that is not reviewed as text), the phase
commands and ``secreview bench`` (through :mod:`.offline`), the MCP server's ``review_diff``
and fix mode's choice of what to patch all make an item's :class:`~..core.record.ItemRecord`
here: the findings as found, and every change made to them since, each from the judge that
made it with its origin and target (the code's suppression comments and the baseline,
:mod:`..suppression.apply`; the second looks' answers, :mod:`..triage.verify`; reuse from the
evaluation cache, :func:`~..core.record.cache_changes`; ``--secreview-min-confidence``,
:func:`~..core.record.min_confidence_changes`). Only :func:`~..core.decide.decide` writes what
is decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..core.findings import FACT_CATEGORIES, number_occurrences
from ..core.record import Change, ItemRecord, as_found, cache_changes, min_confidence_changes
from .evaluate import Evaluation

__all__ = ["item_record"]


def item_record(nodeid: str, evaluation: Evaluation, *, rule: str | None, path: str,
                category: str | None = None, paths: Sequence[str] = (),
                min_confidence: float | None = None) -> ItemRecord:
    """The record of the item ``nodeid`` (``rule`` of ``category`` on ``path``; ``paths``:
    every file of a batch) from its ``evaluation``: its findings as found and every judge's
    changes, each finding's together in the order they were made (suppressions, verdicts,
    settings). A finding of a credential rule is a credential whatever category a model gave
    it: it takes the rule's, which is what ``decide`` reads."""
    findings = evaluation.findings
    if category in FACT_CATEGORIES:
        findings = tuple(replace(f, category=category) if f.rule == rule else f
                         for f in findings)
    # A change names its finding by fingerprint: identical lines are told apart (evaluate
    # already did for its own changes; numbering is idempotent).
    found = tuple(number_occurrences(as_found(f) for f in findings))
    made = (*evaluation.changes, *cache_changes(found, cached=evaluation.cached),
            *min_confidence_changes(found, min_confidence))
    by_finding: dict[str, list[Change]] = {}
    for change in made:
        by_finding.setdefault(change.fingerprint, []).append(change)
    ordered = [change for finding in found for change in by_finding.pop(finding.fingerprint, ())]
    # A change naming no finding of the record is kept for the reader: decide ignores it.
    ordered += [change for rest in by_finding.values() for change in rest]
    usage = {k: v for k, v in evaluation.usage.items() if k not in ("transcript", "sent")}
    return ItemRecord(nodeid=nodeid, rule=rule, path=path, findings=found,
                      changes=tuple(ordered), mode=evaluation.mode, usage=usage,
                      not_reviewed=evaluation.not_reviewed, error=evaluation.error,
                      cached=evaluation.cached, paths=tuple(paths),
                      assessments=tuple(evaluation.assessments), fixes=tuple(evaluation.fixes))
