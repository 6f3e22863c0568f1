"""The coverage corpus: pull requests that remove a safeguard or slip in a logic flaw with no
keyword a grep would catch (``tests/coverage_cases/<case>/``: ``base/`` and ``head/`` trees
and ``case.json`` naming the diff lines that must reach the model).

Shared by the tests and ``benchmarks/bench_coverage.py``: a case is covered when every line it
names is in a hunk that an item needing a model puts in front of the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..evaluation.offline import RangeReview
from ..rules.matcher import PreparedDiff


@dataclass(frozen=True)
class CoverageCase:
    """One base/head pair and the diff lines (with their +/- sign) that must reach the model."""

    name: str
    description: str
    base: dict[str, str]
    head: dict[str, str]
    must_reach: tuple[str, ...]


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(root.rglob("*")) if p.is_file()}


def load_cases(directory: Path) -> list[CoverageCase]:
    """Every case under ``directory``, sorted by name."""
    cases = []
    for case_dir in sorted(p for p in directory.iterdir() if (p / "case.json").is_file()):
        meta = json.loads((case_dir / "case.json").read_text(encoding="utf-8"))
        cases.append(CoverageCase(case_dir.name, str(meta["description"]),
                                  _tree(case_dir / "base"), _tree(case_dir / "head"),
                                  tuple(meta["must_reach"])))
    return cases


def model_view(review: RangeReview) -> dict[str, list[str]]:
    """Rule id -> the hunk texts its items put in front of a model (rules needing one), for a
    range reviewed by :func:`~pytest_secreview.evaluation.offline.review_range`."""
    plan = review.triage
    assert plan is not None
    prepared = PreparedDiff(review.diff.files)
    prepared.index(review.rules)
    view: dict[str, list[str]] = {}
    for rule in review.rules:
        if not rule.needs_model:
            continue
        for target in plan.targets(rule, prepared):
            view.setdefault(rule.id, []).extend(
                h.text for part in target.parts for h in part.hunks)
    return view


def reached(view: dict[str, list[str]], line: str) -> list[str]:
    """The rules whose model-facing hunks hold the diff ``line`` (sign included)."""
    return sorted(rule for rule, hunks in view.items()
                  if any(line in hunk.split("\n") for hunk in hunks))
