"""Finding-level scoring for ``secreview bench``: true positives, false positives and misses
per rule, and precision, recall and F1 per rule and overall (micro-averaged).

An expected finding is a true positive when a reported finding of the same rule (or carrying
the same CWE, or of a rule or CWE its ``also`` names) lies on the expected path within the
expected lines; otherwise it is a false negative. A reported finding that matches no expected
finding of its case is a false positive of its own rule. Several reports of one expected
finding (the pattern and the model, say) count once, and none of them is a false positive.

Duplication is measured next to them from the findings as reported (before that counting
once): ``reports_per_hit`` is how many reported findings matched each labelled problem that was
found (1.0: one finding per problem), ``findings_per_problem`` how many findings the review
produced per labelled problem (false positives and duplicates included).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .corpus import Case, Expected
from .score import Reported


@dataclass(frozen=True)
class Cost:
    """Model usage: calls, tokens and dollars (``cost_usd`` is ``None`` when a price is
    unknown), and the requests that never reached the model (``failed_calls``, not calls)."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    failed_calls: int = 0

    def __add__(self, other: Cost) -> Cost:
        cost = (None if self.cost_usd is None or other.cost_usd is None
                else self.cost_usd + other.cost_usd)
        return Cost(self.model_calls + other.model_calls, self.input_tokens + other.input_tokens,
                    self.output_tokens + other.output_tokens, cost,
                    self.failed_calls + other.failed_calls)

    @classmethod
    def from_usage(cls, usage: Mapping[str, object]) -> Cost:
        """From a ``usage`` mapping of ``summary.json`` (an item's or the totals)."""
        def count(key: str) -> int:
            value = usage.get(key, 0)
            return value if isinstance(value, int) else 0
        cost = usage.get("cost_usd", 0.0)
        return cls(count("model_calls"), count("input_tokens"), count("output_tokens"),
                   float(cost) if isinstance(cost, int | float) else None,
                   count("failed_calls"))


@dataclass(frozen=True)
class CaseOutcome:
    """One case after matching: what was found, what was missed, what was reported wrongly."""

    case_id: str
    tp: tuple[Expected, ...]
    fn: tuple[Expected, ...]
    fp: tuple[Reported, ...]
    cost_by_rule: tuple[tuple[str, Cost], ...] = ()
    cost: Cost = field(default_factory=Cost)  # the whole case's (or the selected rules')
    errors: tuple[str, ...] = ()  # items that could not be reviewed (provider failure ...)
    # Duplication, counted on the findings as reported (the same line twice is two): for each
    # entry of ``tp`` the number of reported findings that matched it, and per rule the
    # number of findings reported.
    reports: tuple[int, ...] = ()
    reported_by_rule: tuple[tuple[str, int], ...] = ()

    @property
    def reported(self) -> int:
        """Findings the review reported on the case (in scope), duplicates included."""
        return sum(n for _, n in self.reported_by_rule)


def _matches(found: Reported, expected: Expected) -> bool:
    return (expected.identifies(found.rule, found.cwe) and found.path == expected.path
            and expected.contains(found.line))


def match_case(case: Case, findings: Iterable[Reported], rules: Collection[str] | None = None,
               cost_by_rule: Mapping[str, Cost] | None = None, cost: Cost | None = None,
               errors: Sequence[str] = ()) -> CaseOutcome:
    """Match ``findings`` reported on ``case`` against its expectations. With ``rules``, only
    those rules' expectations, findings and cost count; ``cost`` is the case's total."""
    expected = [e for e in case.expect if rules is None or e.rule in rules]
    raw = [f for f in findings if rules is None or f.rule in rules]
    # One report per (rule, path, line): the same line reported twice is one finding.
    found = sorted({(f.rule, f.path, f.line): f for f in raw}.values(),
                   key=lambda f: (f.rule, f.path, f.line))
    tp = tuple(e for e in expected if any(_matches(f, e) for f in found))
    reports = tuple(sum(_matches(f, e) for f in raw) for e in tp)
    reported: dict[str, int] = {}
    for f in raw:
        reported[f.rule] = reported.get(f.rule, 0) + 1
    fn = tuple(e for e in expected if e not in tp)
    fp = tuple(f for f in found if not any(_matches(f, e) for e in case.expect))
    costs = tuple(sorted((cost_by_rule or {}).items()))
    total = cost or Cost()
    if rules is not None:
        costs = tuple((r, c) for r, c in costs if r in rules)
        total = sum((c for _, c in costs), Cost())
    return CaseOutcome(case.id, tp, fn, fp, costs, total, tuple(errors), reports,
                       tuple(sorted(reported.items())))


@dataclass(frozen=True)
class RuleScore:
    """Counts and ratios of one rule (or ``overall``); a ratio is ``None`` when undefined."""

    rule: str
    tp: int
    fp: int
    fn: int
    cost: Cost = field(default_factory=Cost)
    matched: int = 0  # reported findings that matched one of the rule's true positives
    reported: int = 0  # findings the rule reported, duplicates and false positives included

    @property
    def reports_per_hit(self) -> float | None:
        """Reported findings per labelled problem found: 1.0 is one finding per problem."""
        return self.matched / self.tp if self.tp else None

    @property
    def findings_per_problem(self) -> float | None:
        """Reported findings per labelled problem (expected finding) of the rule."""
        return self.reported / self.expected if self.expected else None

    @property
    def expected(self) -> int:
        """Expected findings of the rule in the corpus."""
        return self.tp + self.fn

    @property
    def precision(self) -> float | None:
        """TP / (TP + FP)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """TP / (TP + FN)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall; 0 when one of them is 0."""
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0


def score_rules(outcomes: Sequence[CaseOutcome]) -> tuple[list[RuleScore], RuleScore]:
    """Per-rule scores (sorted by rule id) and the micro-averaged overall score."""
    # Per rule: tp, fp, fn, matched, reported.
    counts: dict[str, list[int]] = {}
    costs: dict[str, Cost] = {}
    for outcome in outcomes:
        for e, n in zip(outcome.tp, outcome.reports, strict=True):
            row = counts.setdefault(e.rule, [0, 0, 0, 0, 0])
            row[0] += 1
            row[3] += n
        for f in outcome.fp:
            counts.setdefault(f.rule, [0, 0, 0, 0, 0])[1] += 1
        for e in outcome.fn:
            counts.setdefault(e.rule, [0, 0, 0, 0, 0])[2] += 1
        for rule, n in outcome.reported_by_rule:
            counts.setdefault(rule, [0, 0, 0, 0, 0])[4] += n
        for rule, cost in outcome.cost_by_rule:
            counts.setdefault(rule, [0, 0, 0, 0, 0])
            costs[rule] = costs.get(rule, Cost()) + cost
    rules = [RuleScore(rule, tp, fp, fn, costs.get(rule, Cost()), matched, reported)
             for rule, (tp, fp, fn, matched, reported) in sorted(counts.items())]
    total = sum((o.cost for o in outcomes), Cost())
    overall = RuleScore("overall", sum(r.tp for r in rules), sum(r.fp for r in rules),
                        sum(r.fn for r in rules), total, sum(r.matched for r in rules),
                        sum(r.reported for r in rules))
    return rules, overall
