"""Check a rule's own examples (``examples:`` in its frontmatter), like ``semgrep --test``:
its deterministic part (``detect`` patterns, ``taint`` dataflow, an external ``scanner``) must
report every ``bad`` example and none of the ``good`` ones.

Each example is a pull request of its own: a real git repository whose base holds the file's
``before`` text and whose head adds the example's code at its path, reviewed by
:func:`~pytest_secreview.evaluation.offline.review_range` with this one rule, so a pass here
is a pass of the product. A rule with no deterministic part is reported as model-only and
not checked; it never counts as a pass.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..rules.matcher import PathFilter
from ..rules.model import Example, Rule
from ..rules.scanner_spec import BUILTIN, IDLE_REASONS, NEEDS_CONFIG
from ..scanners.session import ADAPTERS
from ..severity import one_line
from .run import BASE, HEAD, build_trees
from .trees import FAKES, fill

Status = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class ExampleOutcome:
    """One example and what the rule reported on it (``line N: message`` each)."""

    example: Example
    label: str  # "bad 1", "good 2": how the report names it
    found: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """A bad example is found, a good one is not."""
        return bool(self.found) == self.example.bad


@dataclass(frozen=True)
class RuleOutcome:
    """A rule's examples checked, or why they were not."""

    rule: Rule
    outcomes: tuple[ExampleOutcome, ...] = ()
    problems: tuple[str, ...] = ()  # what is wrong with the examples themselves
    skipped: str | None = None  # why the rule was not checked (model-only, no scanner)

    @property
    def status(self) -> Status:
        """``skipped`` (not checked), ``failed`` (a problem or a wrong outcome) or ``passed``."""
        if self.skipped is not None:
            return "skipped"
        if self.problems or not all(o.ok for o in self.outcomes):
            return "failed"
        return "passed"


def deterministic_part(rule: Rule) -> str | None:
    """Why ``rule`` has nothing to check here (None when it has a deterministic part that can
    run in this environment)."""
    if rule.scanner is not None:
        if rule.scanner.name == "semgrep":
            return f"{IDLE_REASONS['semgrep']}; test the configured rules with semgrep --test"
        if rule.scanner.name in NEEDS_CONFIG:
            return IDLE_REASONS[rule.scanner.name]
        if rule.scanner.name in BUILTIN:
            return None
        return ADAPTERS[rule.scanner.name].available()
    if not rule.detect and rule.taint is None:
        return "model-only: the rule has no detect, taint or scanner key to check"
    return None


def check_rule(rule: Rule, work: Path) -> RuleOutcome:
    """Check ``rule``'s examples, each in its own repository under ``work``."""
    why = deterministic_part(rule)
    if why is not None:
        return RuleOutcome(rule, skipped=why)
    problems = _problems(rule)
    if problems:
        return RuleOutcome(rule, problems=problems)
    outcomes = []
    counts = {True: 0, False: 0}
    for number, example in enumerate(rule.examples):
        counts[example.bad] += 1
        label = f"{'bad' if example.bad else 'good'} {counts[example.bad]}"
        outcomes.append(ExampleOutcome(example, label, _found(rule, example,
                                                             work / f"example-{number}")))
    return RuleOutcome(rule, tuple(outcomes))


def check_rules(rules: Iterable[Rule],
                progress: Callable[[RuleOutcome], None] | None = None) -> list[RuleOutcome]:
    """Check every rule's examples (``progress`` is told each rule's outcome as it ends)."""
    results = []
    with tempfile.TemporaryDirectory(prefix="secreview-test-rules-") as tmp:
        for number, rule in enumerate(rules):
            outcome = check_rule(rule, Path(tmp) / f"rule-{number}")
            results.append(outcome)
            if progress is not None:
                progress(outcome)
    return results


def _problems(rule: Rule) -> tuple[str, ...]:
    """What makes the examples unfit to check the rule: none that must be found, a path the
    rule does not look at, a placeholder kind that does not exist."""
    problems = []
    if not any(example.bad for example in rule.examples):
        problems.append("no bad example: add examples: {bad: [code the rule must find], "
                        "good: [code it must not find]} to the rule's frontmatter")
    applies = PathFilter(rule)
    for path in sorted({example.path for example in rule.examples}):
        if not applies.selects(path):
            problems.append(f"example path {path!r} is not a file this rule applies to "
                            "(applies_to): give the examples a path it reviews")
    kinds = {kind for example in rule.examples for _name, kind in example.fill}
    for kind in sorted(kinds - set(FAKES)):
        problems.append(f"examples.fill: unknown kind {kind!r}; one of "
                        + ", ".join(sorted(FAKES)))
    return tuple(problems)


def _text(code: str, example: Example) -> bytes:
    data = code if not code or code.endswith("\n") else code + "\n"
    return fill(data.encode(), dict(example.fill))


def _found(rule: Rule, example: Example, repo: Path) -> tuple[str, ...]:
    """What ``rule`` reports on ``example`` as the only change of a pull request."""
    from ..evaluation.offline import review_range

    base = {example.path: _text(example.before, example)} if example.before else {}
    build_trees(repo, base, {example.path: _text(example.code, example)})
    review = review_range(repo, BASE, HEAD, parsed_rules=[rule])
    return tuple(f"line {f.line}: {one_line(f.title)}" for f in review.findings
                 if f.rule == rule.id and not f.muted)
