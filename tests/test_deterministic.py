"""Deterministic checks on parsed diffs: removed-safeguard patterns and moved safeguards."""

from __future__ import annotations

from pytest_secreview.diff.parser import parse_diff_text
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
