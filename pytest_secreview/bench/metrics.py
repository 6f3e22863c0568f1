"""Finding-level scoring for ``secreview bench``: true positives, false positives and misses
per rule, and precision, recall and F1 per rule and overall (micro-averaged).

An expected finding is a true positive when a reported finding of the same rule (or carrying
the same CWE) lies on the expected path within the expected lines; otherwise it is a false
negative. A reported finding that matches no expected finding of its case is a false positive
of its own rule. Several reports of one expected finding (the pattern and the model, say)
count once, and none of them is a false positive.
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


def _matches(found: Reported, expected: Expected) -> bool:
    same_kind = found.rule == expected.rule or (found.cwe or "").upper() == expected.cwe
    return same_kind and found.path == expected.path and expected.contains(found.line)


def match_case(case: Case, findings: Iterable[Reported], rules: Collection[str] | None = None,
               cost_by_rule: Mapping[str, Cost] | None = None, cost: Cost | None = None,
               errors: Sequence[str] = ()) -> CaseOutcome:
    """Match ``findings`` reported on ``case`` against its expectations. With ``rules``, only
    those rules' expectations, findings and cost count; ``cost`` is the case's total."""
    expected = [e for e in case.expect if rules is None or e.rule in rules]
    # One report per (rule, path, line): the same line reported twice is one finding.
    found = sorted({(f.rule, f.path, f.line): f for f in findings
                    if rules is None or f.rule in rules}.values(),
                   key=lambda f: (f.rule, f.path, f.line))
    tp = tuple(e for e in expected if any(_matches(f, e) for f in found))
    fn = tuple(e for e in expected if e not in tp)
    fp = tuple(f for f in found if not any(_matches(f, e) for e in case.expect))
    costs = tuple(sorted((cost_by_rule or {}).items()))
    total = cost or Cost()
    if rules is not None:
        costs = tuple((r, c) for r, c in costs if r in rules)
        total = sum((c for _, c in costs), Cost())
    return CaseOutcome(case.id, tp, fn, fp, costs, total, tuple(errors))


@dataclass(frozen=True)
class RuleScore:
    """Counts and ratios of one rule (or ``overall``); a ratio is ``None`` when undefined."""

    rule: str
    tp: int
    fp: int
    fn: int
    cost: Cost = field(default_factory=Cost)

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
    counts: dict[str, list[int]] = {}
    costs: dict[str, Cost] = {}
    for outcome in outcomes:
        for e in outcome.tp:
            counts.setdefault(e.rule, [0, 0, 0])[0] += 1
        for f in outcome.fp:
            counts.setdefault(f.rule, [0, 0, 0])[1] += 1
        for e in outcome.fn:
            counts.setdefault(e.rule, [0, 0, 0])[2] += 1
        for rule, cost in outcome.cost_by_rule:
            counts.setdefault(rule, [0, 0, 0])
            costs[rule] = costs.get(rule, Cost()) + cost
    rules = [RuleScore(rule, tp, fp, fn, costs.get(rule, Cost()))
             for rule, (tp, fp, fn) in sorted(counts.items())]
    total = sum((o.cost for o in outcomes), Cost())
    overall = RuleScore("overall", sum(r.tp for r in rules), sum(r.fp for r in rules),
                        sum(r.fn for r in rules), total)
    return rules, overall
