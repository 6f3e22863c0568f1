"""Deterministic checks on parsed diffs: removed-safeguard patterns and moved safeguards, and
patterns judged per delimited span (``within``)."""

from __future__ import annotations

import pytest

from pytest_secreview.diff.parser import parse_diff_text
from pytest_secreview.errors import RuleError
from pytest_secreview.evaluation.deterministic import run_detect
from pytest_secreview.rules.parse import parse_rule

RULE = b"""---
title: Auth removed
severity: critical
detect:
  - pattern: "@login_required"
    on: removed
    message: Authentication decorator removed
---
"""


def _file(patch: str):  # type: ignore[no-untyped-def]
    (file,) = parse_diff_text(patch)
    return file


def test_removed_safeguard_is_reported_on_the_head_line() -> None:
    file = _file("diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
                 "@@ -1,3 +1,2 @@\n @app.route('/x')\n-@login_required\n def x():\n")
    (finding,) = run_detect(parse_rule(RULE, "rules/auth.md"), file)
    assert (finding.line, finding.severity.value, finding.source) == (2, "CRITICAL", "pattern")
    assert "removes a line" in finding.explanation


def test_moved_safeguard_is_not_reported() -> None:
    file = _file("diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
                 "@@ -1,3 +1,3 @@\n @app.route('/x')\n-@login_required\n+@login_required()\n"
                 " def x():\n")
    assert run_detect(parse_rule(RULE, "rules/auth.md"), file) == []


ANCHORED = b"""---
title: Anchored
severity: high
detect:
  - pattern: '\\Aeval\\('
    message: eval at the start of a line
  - pattern: 'exec\\s*\\('
    message: exec anywhere
    on: removed
---
"""


def test_patterns_are_searched_per_line_whatever_the_joined_pass_says() -> None:
    # \\A means the start of the searched text: the line. The pass over all added lines
    # joined must not rule such a pattern out (the eval line is not the first).
    file = _file("diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
                 "@@ -1,2 +1,3 @@\n x = 1\n-exec(code)\n+y = 2\n+eval(data)\n")
    found = run_detect(parse_rule(ANCHORED, "rules/anchored.md"), file)
    assert sorted((f.line, f.title) for f in found) == [
        (2, "exec anywhere"), (3, "eval at the start of a line")]


def test_a_removed_pattern_split_over_two_added_lines_is_still_removed() -> None:
    # The joined added text "exec\n(code)" matches exec\s*\( across the line break; no
    # single added line does, so the removal is reported (the joined pass only skips work).
    file = _file("diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
                 "@@ -1,1 +1,2 @@\n-exec(code)\n+exec\n+(code)\n")
    found = run_detect(parse_rule(ANCHORED, "rules/anchored.md"), file)
    assert [(f.line, f.title) for f in found] == [(1, "exec anywhere")]


SPANS = b"""---
title: Raw output
severity: medium
detect:
  - pattern: '\\|\\s*raw\\b'
    message: raw output
    within: ['{{', '}}']
    unless: '^\\{\\{\\s*"[^"]*"\\s*\\|\\s*raw\\s*\\}\\}$'
---
"""


def test_a_span_is_judged_whole_over_the_lines_of_its_hunk() -> None:
    # A context line opens the expression, the added line closes it: the unless sees the
    # whole {{ ... }} (a literal). A variable over two added lines is reported on the line
    # where the pattern matches its piece, and each expression of a line is judged alone.
    file = _file("diff --git a/t.html b/t.html\n--- a/t.html\n+++ b/t.html\n"
                 "@@ -1,2 +1,6 @@\n <p>{{ \"<b>Hi</b>\"\n-  }}</p>\n+  | raw }}</p>\n"
                 "+<p>{{ user.bio\n+  | raw }}</p>\n"
                 "+<p>{{ \"<i>a</i>\" | raw }} {{ user.name | raw }}</p>\n"
                 "+<p>{{ \"}} {{\" | raw }}</p>\n")
    found = run_detect(parse_rule(SPANS, "rules/raw.md"), file)
    assert sorted(f.line for f in found) == [4, 5]


def test_a_span_opened_before_the_hunk_is_judged_without_its_opener() -> None:
    # The hunk does not show where the expression starts: not proven safe, so reported.
    file = _file("diff --git a/t.html b/t.html\n--- a/t.html\n+++ b/t.html\n"
                 "@@ -9,1 +9,1 @@\n-  | e }}</p>\n+  | raw }}</p>\n")
    (finding,) = run_detect(parse_rule(SPANS, "rules/raw.md"), file)
    assert finding.line == 9


def test_within_is_for_added_lines_only() -> None:
    rule = SPANS.replace(b"    within:", b"    on: removed\n    within:")
    with pytest.raises(RuleError) as info:
        parse_rule(rule, "rules/raw.md")
    assert "detect.0" in str(info.value) and "within" in str(info.value)
