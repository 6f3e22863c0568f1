"""The one RE2 set-up: linear-time patterns with a bounded budget, errors raised, sets that
read many lines joined as if each were searched alone."""

from __future__ import annotations

import pytest
import re2

from pytest_secreview.safe_regex import LineSet, SafePattern, compile_re2, search_set


def test_a_line_set_anchors_at_each_line_of_the_joined_text() -> None:
    lines = LineSet(["^import pickle$", "eval\\(", "^nowhere$", "eval\\("])
    assert lines.index == {"^import pickle$": 0, "eval\\(": 1, "^nowhere$": 2}
    assert lines.hits(["x = 1", "import pickle", "y = eval(s)"]) == {0, 1}
    assert lines.hits([]) == frozenset()
    assert LineSet([]).hits(["anything"]) == frozenset()


def test_a_search_set_names_every_pattern_that_matches() -> None:
    found = search_set([b"AKIA", b"ghp_", b"nope"])
    assert sorted(found.Match(b"key AKIA and ghp_ here")) == [0, 1]


def test_options_reach_the_compiled_pattern() -> None:
    assert compile_re2("abc", case_sensitive=False).search("xABCx") is not None
    assert compile_re2("abc").search("xABCx") is None
    assert compile_re2("a.b", never_nl=True).search("a\nb") is None


def test_a_pattern_over_its_budget_is_an_error_not_a_log_line(
        capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(re2.error):
        compile_re2("(abc){1000}{1000}", max_mem=1 << 16)
    assert capfd.readouterr().err == ""


def test_a_rule_pattern_re2_cannot_compile_says_why_and_how_to_fix_it() -> None:
    with pytest.raises(ValueError, match=r"does not compile under RE2 .*look-around"):
        SafePattern("(?<=a)b")
    assert SafePattern("a+b").search("xaab")
