"""One finding per problem (``core.problems.one_per_problem``): a table of reports and what
the session's results list for them. Merging never lowers what counts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.problems import merged_reports, one_per_problem, same_problem
from pytest_secreview.core.severity import Severity

HIGH = Severity.HIGH


def found(rule: str = "xss", line: int = 10, **kw: Any) -> Finding:
    base: dict[str, Any] = {"severity": Severity.MEDIUM, "title": f"{rule} finding",
                            "path": "app/views.py", "source": f"model:{rule}",
                            "fingerprint": f"fp-{rule}-{line}-{kw.get('path', '')}"}
    return Finding(rule=rule, line=line, **{**base, **kw})


TEMPLATE = {"cwe": "CWE-1336", "category": "template-injection"}

# (case, reports, how many findings the results list, the rules of the first)
CASES: list[tuple[str, list[Finding], int, tuple[str, ...]]] = [
    ("one template injection under three rules' items",
     [found("code-injection", **TEMPLATE), found("xss", **TEMPLATE),
      found("missing-authorization", **TEMPLATE)],
     1, ("code-injection", "xss", "missing-authorization")),
    ("CWE spelled differently is one weakness",
     [found("a", cwe="CWE-89"), found("b", cwe="cwe-89"), found("c", cwe="89")], 1,
     ("a", "b", "c")),
    ("same line, different CWEs: two problems",
     [found("sqli", cwe="CWE-89"), found("cmdi", cwe="CWE-78")], 2, ()),
    ("categories decide when one has no CWE",
     [found("a", category="secrets", cwe="CWE-798"), found("b", category="Secrets")], 1,
     ("a", "b")),
    ("overlapping line ranges are one place",
     [found("a", line=10, end_line=14, **TEMPLATE), found("b", line=13, **TEMPLATE)], 1,
     ("a", "b")),
    ("neighbouring lines are two places",
     [found("a", line=10, **TEMPLATE), found("b", line=11, **TEMPLATE)], 2, ()),
    ("another file is another place",
     [found("a", **TEMPLATE), found("b", path="app/other.py", **TEMPLATE)], 2, ()),
    ("a pattern and a model finding of one rule on one line, no category",
     [found("creds", source="pattern"), found("creds", source="model:creds")], 1, ()),
    ("per-file items of one rule reporting one cross-file finding",
     [found("authz", path="app/routes.py", fingerprint="f1"),
      found("authz", path="app/routes.py", fingerprint="f2")], 1, ()),
    ("without CWE or category, different rules are different weaknesses",
     [found("a"), found("b")], 2, ()),
    ("chains merge transitively",
     [found("a", line=10, end_line=12, **TEMPLATE), found("b", line=12, end_line=20,
                                                          **TEMPLATE),
      found("c", line=19, **TEMPLATE)], 1, ("a", "b", "c")),
    ("a report about a suppression comment is never merged",
     [found("a", source="suppression", category="x"), found("b", category="x")], 2, ()),
]


@pytest.mark.parametrize(("reports", "count", "rules"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_one_finding_per_problem(reports: list[Finding], count: int,
                                 rules: tuple[str, ...]) -> None:
    merged = one_per_problem(reports)
    assert len(merged) == count
    assert merged[0].rules == rules
    assert sum(f.reports for f in merged) == len(reports)
    assert merged_reports(merged) == len(reports) - count


def test_merged_finding_has_every_source_and_the_highest_severity() -> None:
    pattern = found("creds", source="pattern", severity=Severity.CRITICAL,
                    explanation="", category="secrets", fingerprint="p")
    model = found("security-review", source="model:security-review", severity=HIGH,
                  explanation="the key signs sessions", category="secrets", confidence=0.9,
                  fingerprint="m")
    [one] = one_per_problem([model, pattern])
    assert one.severity is Severity.CRITICAL
    assert one.rule == "creds" and one.fingerprint == "p"  # the most severe speaks
    assert one.source == "model:security-review+pattern"
    assert one.rules == ("creds", "security-review")
    assert one.explanation == "the key signs sessions"  # filled from the other copy
    assert one.reports == 2


def test_a_deterministic_copy_speaks_on_a_tie() -> None:
    model = found("a", source="model:a", severity=HIGH, **TEMPLATE)
    pattern = found("b", source="pattern", severity=HIGH, **TEMPLATE)
    assert one_per_problem([model, pattern])[0].source.startswith("model:a")
    assert one_per_problem([model, pattern])[0].rule == "b"


def test_a_suppression_of_one_copy_does_not_mute_the_other() -> None:
    muted = found("a", severity=Severity.CRITICAL, suppression="baseline",
                  suppression_reason="accepted", **TEMPLATE)
    counting = found("b", severity=HIGH, **TEMPLATE)
    [one] = one_per_problem([muted, counting])
    assert not one.muted and one.suppression is None
    assert one.fails(HIGH)
    # It counts at the highest severity of the copies that count: a muted copy's severity
    # is not raised into a failure no item had.
    assert one.severity is HIGH
    assert not one.fails(Severity.CRITICAL)


def test_merged_finding_is_muted_only_when_every_copy_is() -> None:
    dismissed = found("a", triage="dismissed", triage_reason="test fixture", **TEMPLATE)
    below = found("b", below_min_confidence=True, **TEMPLATE)
    [one] = one_per_problem([dismissed, below])
    assert one.muted and not one.fails(Severity.LOW)


@pytest.mark.parametrize("threshold", list(Severity))
def test_merging_never_changes_whether_the_review_fails(threshold: Severity) -> None:
    variants = [
        found("a", **TEMPLATE),
        found("b", severity=Severity.CRITICAL, suppression="inline", **TEMPLATE),
        found("c", severity=HIGH, triage="dismissed", **TEMPLATE),
        found("d", severity=Severity.LOW, below_min_confidence=True, **TEMPLATE),
        found("e", severity=HIGH, source="pattern", **TEMPLATE),
    ]
    for size in range(1, len(variants) + 1):
        group = variants[:size]
        before = any(f.fails(threshold) for f in group)
        after = any(f.fails(threshold) for f in one_per_problem(group))
        assert before == after, (threshold, size)
        worst = max((f.severity.rank for f in group if f.fails(threshold)), default=None)
        merged = one_per_problem(group)[0]
        if worst is not None:
            assert merged.severity.rank == worst


def test_json_round_trip_keeps_the_rules() -> None:
    [one] = one_per_problem([found("a", **TEMPLATE), found("b", **TEMPLATE)])
    again = Finding.from_json(one.to_json())
    assert again == one and isinstance(again.rules, tuple)
    assert same_problem(one, replace(one, rule="c"))
