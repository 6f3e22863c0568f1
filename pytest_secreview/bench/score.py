"""Case-level scoring of a reviewer's findings against a labelled case.

A vulnerable case is a true positive when a finding of the expected rule (or carrying the
expected CWE) has its line in an expected range of the expected path; a safe case is a false
positive when any finding of the case's category rule or CWE appears anywhere in the case.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .corpus import CATEGORIES, Case


@dataclass(frozen=True)
class Reported:
    """What scoring needs of one finding: rule id, CWE (if any), path and line."""

    rule: str
    cwe: str | None
    path: str
    line: int


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one case: ``hit`` is a true positive on a vulnerable case or a false
    positive on a safe one."""

    case_id: str
    category: str | None
    vulnerable: bool
    hit: bool


@dataclass(frozen=True)
class CategoryScore:
    """TPR, FPR and their difference over one category's cases (``None`` when the category
    has no vulnerable, or no safe, case)."""

    category: str
    cases: int
    tpr: float | None
    fpr: float | None

    @property
    def score(self) -> float | None:
        """TPR - FPR (Youden's J), the benchmark's headline figure."""
        if self.tpr is None or self.fpr is None:
            return None
        return self.tpr - self.fpr


def _matches_category(found: Reported, rule: str, cwe: str) -> bool:
    return found.rule == rule or (found.cwe or "").upper() == cwe


def score_case(case: Case, findings: Iterable[Reported]) -> CaseResult:
    """Score ``findings`` (reported on ``case``'s head) against its labels."""
    found = list(findings)
    if case.vulnerable:
        hit = any(
            e.identifies(f.rule, f.cwe) and f.path == e.path and e.contains(f.line)
            for e in case.expect for f in found
        )
    elif case.category is None:
        # Without a category every finding on a safe case is a false alarm.
        hit = bool(found)
    else:
        category = CATEGORIES[case.category]
        hit = any(_matches_category(f, category.rule, category.cwe) for f in found)
    return CaseResult(case.id, case.category, case.vulnerable, hit)


def summarise(results: Sequence[CaseResult]) -> tuple[list[CategoryScore], CategoryScore]:
    """Per-category scores (in :data:`CATEGORIES` order, categories with cases only) and the
    mean over those categories (``cases`` = total)."""
    scores: list[CategoryScore] = []
    for name in CATEGORIES:
        mine = [r for r in results if r.category == name]
        if not mine:
            continue
        vuln = [r for r in mine if r.vulnerable]
        safe = [r for r in mine if not r.vulnerable]
        tpr = sum(r.hit for r in vuln) / len(vuln) if vuln else None
        fpr = sum(r.hit for r in safe) / len(safe) if safe else None
        scores.append(CategoryScore(name, len(mine), tpr, fpr))
    tprs = [s.tpr for s in scores if s.tpr is not None]
    fprs = [s.fpr for s in scores if s.fpr is not None]
    mean = CategoryScore(
        "mean", len(results),
        sum(tprs) / len(tprs) if tprs else None,
        sum(fprs) / len(fprs) if fprs else None,
    )
    return scores, mean
