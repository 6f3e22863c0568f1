"""The matcher over a multi-file diff: the pattern index that rules files out before the
per-hunk check must never drop a file that a hunk of it matches."""

from __future__ import annotations

from pytest_secreview.diff.parser import parse_diff_text
from pytest_secreview.rules.matcher import PreparedDiff
from pytest_secreview.rules.model import Rule
from pytest_secreview.rules.parse import parse_rule


def _file(path: str, hunks: list[list[str]]) -> str:
    out = [f"diff --git a/{path} b/{path}", f"--- a/{path}", f"+++ b/{path}"]
    start = 1
    for lines in hunks:
        old = sum(1 for line in lines if not line.startswith("+"))
        new = sum(1 for line in lines if not line.startswith("-"))
        out.append(f"@@ -{start},{old} +{start},{new} @@")
        out += lines
        start += 100
    return "\n".join(out) + "\n"


DIFF = "".join([
    _file("a_split.py", [["+alpha()", " ctx"], ["+beta()", " ctx"]]),  # all: in two hunks
    _file("b_both.py", [[" ctx", "+alpha(beta())"]]),
    _file("c_removed.py", [["-verify_signature(token)", "+pass"]]),
    _file("d_plain.py", [["+nothing here"]]),
    _file("e_both.js", [["+alpha(beta())"]]),  # outside the rule's extensions
])


def _rule(name: str, grep: str) -> Rule:
    text = (f"---\ntitle: {name} rule\napplies_to:\n  file_extensions: ['.py']\n"
            f"grep:\n{grep}---\nLook.\n")
    return parse_rule(text.encode(), f"rules/{name}.md")


def _paths(prepared: PreparedDiff, rule: Rule) -> list[tuple[str, int]]:
    return [(t.file.path, len(t.hunks)) for t in prepared.targets(rule)]


def test_grep_all_needs_every_pattern_in_one_hunk() -> None:
    rule = _rule("all", "  all: ['alpha\\(', 'beta\\(']\n")
    prepared = PreparedDiff(parse_diff_text(DIFF))
    prepared.index([rule])
    assert _paths(prepared, rule) == [("b_both.py", 1)]


def test_any_removed_and_no_grep_rules_over_many_files() -> None:
    any_rule = _rule("any", "  any: ['alpha\\(', 'beta\\(']\n")
    removed = _rule("removed", "  removed: ['verify_signature']\n")
    either = _rule("either", "  all: ['beta\\(']\n  removed: ['verify_signature']\n")
    everything = _rule("everything", "  all: []\n")
    prepared = PreparedDiff(parse_diff_text(DIFF))
    prepared.index([any_rule, removed, either, everything])
    assert _paths(prepared, any_rule) == [("a_split.py", 2), ("b_both.py", 1)]
    assert _paths(prepared, removed) == [("c_removed.py", 1)]
    assert _paths(prepared, either) == [("a_split.py", 1), ("b_both.py", 1), ("c_removed.py", 1)]
    assert _paths(prepared, everything) == [("a_split.py", 2), ("b_both.py", 1),
                                            ("c_removed.py", 1), ("d_plain.py", 1)]


def test_ensure_indexed_scans_the_diff_once_for_every_rule() -> None:
    # The xdist controller collects nothing: its report asks the triage plan, which asks
    # each rule's targets. One scan must serve every rule (not one scan per rule), and give
    # the targets a plain index gives.
    rules = [_rule("any", "  any: ['alpha\\(', 'beta\\(']\n"),
             _rule("removed", "  removed: ['verify_signature']\n"),
             _rule("everything", "  all: []\n")]
    indexed = PreparedDiff(parse_diff_text(DIFF))
    indexed.index(rules)
    prepared = PreparedDiff(parse_diff_text(DIFF))
    prepared.ensure_indexed(rules)
    scanned = prepared._hits
    for rule in rules:
        assert _paths(prepared, rule) == _paths(indexed, rule)
    prepared.ensure_indexed(rules[:1])  # already indexed: nothing is scanned again
    assert prepared._hits is scanned
    late = _rule("all", "  all: ['alpha\\(', 'beta\\(']\n")
    prepared.ensure_indexed([late])  # a new rule: one more scan, the others kept
    assert prepared._hits is not scanned and _paths(prepared, late) == [("b_both.py", 1)]
    assert all(_paths(prepared, rule) == _paths(indexed, rule) for rule in rules)
