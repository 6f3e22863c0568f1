"""Folding an item's phase reports into its result (reporting/summary.py)."""

from __future__ import annotations

import pytest

from pytest_secreview.reporting.summary import Summary


def _report(when: str, outcome: str) -> pytest.TestReport:
    return pytest.TestReport(
        nodeid="secreview/rules/creds.md::creds[app.py]", location=("x", 0, "x"),
        keywords={}, outcome=outcome, longrepr=None if outcome == "passed" else "findings",
        when=when, user_properties=[("secreview_path", "app.py"), ("secreview_rule", "creds")])


@pytest.mark.parametrize("outcome", ["passed", "failed"])
def test_a_judged_item_keeps_no_setup_placeholder(outcome: str) -> None:
    # Setup alone leaves "evaluated but never judged"; the call's verdict replaces it, so a
    # failed item's not-reviewed note (if any) is what the reports show, not the placeholder.
    summary = Summary()
    summary.add(_report("setup", "passed"))
    assert summary.items["secreview/rules/creds.md::creds[app.py]"].reason == (
        "evaluated but never judged")
    summary.add(_report("call", outcome))
    result = summary.items["secreview/rules/creds.md::creds[app.py]"]
    assert (result.outcome, result.reason) == (outcome, None)
