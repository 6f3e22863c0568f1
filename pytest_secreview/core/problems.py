"""One finding per problem: the reports of one weakness at one place, merged into one.

Several items can report the same problem: the items of different rules on one file (a
template injection under ``code-injection``, ``xss`` and ``missing-authorization``), the
per-file items of one rule reporting one cross-file finding, a pattern and a model on the
same line. The session's results list each problem once (:func:`one_per_problem`), with every
check and rule that reported it and the highest severity; the items' own outcomes are not
touched (they stay as :func:`.decide.decide` gave them).

Merging never lowers what counts: the merged finding is muted only when every copy is, and
its severity is the highest of the copies that count; a suppression accepted for one copy
does not mute another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from .findings import Finding
from .record import DETERMINISTIC, Provenance, provenance

__all__ = ["SOURCE_SEPARATOR", "combine", "merged_reports", "one_per_problem", "same_problem"]

#: Joins the sources of one finding reported by several checks, e.g. ``pattern+model:<id>``.
SOURCE_SEPARATOR = "+"


def _cwe(text: str) -> str:
    """``CWE-89``, ``cwe-89`` and ``89`` are one weakness."""
    return text.strip().upper().removeprefix("CWE-").removeprefix("CWE")


def _category(text: str) -> str:
    return "-".join(text.strip().lower().replace("_", " ").split())


def same_weakness(first: Finding, second: Finding) -> bool:
    """True when both name one weakness: their CWEs when both state one, else their
    categories when both state one, else their rules (a model's finding without either is
    about its item's rule)."""
    if first.cwe and second.cwe:
        return _cwe(first.cwe) == _cwe(second.cwe)
    if first.category and second.category:
        return _category(first.category) == _category(second.category)
    return first.rule == second.rule


def _overlap(first: Finding, second: Finding) -> bool:
    return (first.path == second.path
            and first.line <= (second.end_line or second.line)
            and second.line <= (first.end_line or first.line))


def same_problem(first: Finding, second: Finding) -> bool:
    """True when two reports are one problem: the same file, the same line or overlapping
    line ranges, and the same weakness (:func:`same_weakness`). A report about a suppression
    comment is never merged with a finding: it is about the comment, not the code."""
    if Provenance.SUPPRESSION in provenance(first) | provenance(second):
        return False
    return _overlap(first, second) and same_weakness(first, second)


def _higher(first: float | None, second: float | None) -> float | None:
    """The higher stated confidence; None only when neither stated one."""
    stated = [c for c in (first, second) if c is not None]
    return max(stated) if stated else None


def combine(lead: Finding, group: Sequence[Finding]) -> Finding:
    """``lead`` as the report of the whole ``group`` (which holds it): every source and rule
    of the group (in the group's order), its empty fields filled from the others, the
    highest stated confidence, and the number of reports merged."""
    sources = dict.fromkeys(part for f in group for part in f.source.split(SOURCE_SEPARATOR)
                            if part)
    rules = list(dict.fromkeys([lead.rule, *(r for f in group for r in (f.rule, *f.rules))]))
    others = [f for f in group if f is not lead]
    merged = replace(
        lead,
        source=SOURCE_SEPARATOR.join(sources),
        rules=tuple(rules) if len(rules) > 1 else (),
        reports=sum(f.reports for f in group),
    )
    for other in others:
        merged = replace(
            merged,
            end_line=merged.end_line or other.end_line,
            category=merged.category or other.category,
            cwe=merged.cwe or other.cwe,
            explanation=merged.explanation or other.explanation,
            exploit_scenario=merged.exploit_scenario or other.exploit_scenario,
            recommendation=merged.recommendation or other.recommendation,
            suggestion=merged.suggestion or other.suggestion,
            confidence=_higher(merged.confidence, other.confidence),
        )
    return merged


def _lead(group: Sequence[Finding]) -> Finding:
    """The copy that speaks for the group: among the copies that count (all of them when
    none does), the most severe, a deterministic one before a model's, then the first."""
    counting = [f for f in group if not f.muted] or list(group)
    return max(counting,  # the first of equals: max keeps the first it meets
               key=lambda f: (f.severity.rank, bool(provenance(f) & DETERMINISTIC)))


def one_per_problem(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` (decided, from any items and checks) with the reports of one problem
    (:func:`same_problem`, transitively) merged into one (:func:`combine`), in first-seen
    order. The merged finding counts when any copy counts, at the highest severity of the
    copies that count; its mute (suppression, dismissal, below the minimum confidence) is
    that of a muted copy only when every copy is muted."""
    found = list(findings)
    parent = list(range(len(found)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_path: dict[str, list[int]] = {}
    for index, finding in enumerate(found):
        by_path.setdefault(finding.path, []).append(index)
    for indexes in by_path.values():
        for n, i in enumerate(indexes):
            for j in indexes[n + 1:]:
                if same_problem(found[i], found[j]):
                    parent[root(j)] = root(i)
    groups: dict[int, list[Finding]] = {}
    for index, finding in enumerate(found):
        groups.setdefault(root(index), []).append(finding)
    return [group[0] if len(group) == 1 else combine(_lead(group), group)
            for group in groups.values()]


def merged_reports(findings: Iterable[Finding]) -> int:
    """How many reports were merged into others (``N findings (M reports merged)``)."""
    return sum(f.reports - 1 for f in findings)
