"""The job's ``pytest_secreview_filter_finding`` hook is a judge like the others: what it
drops stays in every report as suppressed ("filtered"), recorded as a ``filter`` change, and
``core.decide`` judges it. The job's own hook (a ``conftest.py`` the base revision holds) is
trusted; in a job where pytest ran code the pull request changes, the drop is the pull
request's and never lowers a finding at or above the threshold. Real plugin, real git
repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

RULES = {"command-injection": (bundled_rules_dir() / "command-injection.md").read_text()}
HOOK = (
    "def pytest_secreview_filter_finding(finding, item):\n"
    "    if finding.path.startswith('app/examples/'):\n"
    "        return False\n"
    "    return None\n"
)
EXAMPLE = ("import os\n\nfrom flask import request\n\n\ndef run():\n"
           '    os.system("convert " + request.args["f"])\n')


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


def _summary(pytester: pytest.Pytester) -> dict[str, Any]:
    path = pytester.path / "secreview-artifacts/report/summary.json"
    return dict(json.loads(path.read_text()))


def _the_filter(summary: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    (finding,) = [f for f in summary["findings"] if f["rule"] == "command-injection"]
    (change,) = [c for item in summary["items"] for c in item.get("changes", ())
                 if c["kind"] == "filter"]
    return finding, change


def test_the_jobs_own_hook_drops_a_finding_that_stays_reported(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    review_repo(rules=RULES, base={"conftest.py": HOOK}, pr={"app/examples/run.py": EXAMPLE})
    result = _review(pytester)

    result.assert_outcomes(passed=1)
    finding, change = _the_filter(_summary(pytester))
    assert finding["severity"] == "CRITICAL" and finding["suppression"] == "filtered"
    assert (change["origin"], change["trusted"], change["accepted"]) == ("conftest", True, True)
    assert "[dropped by the pytest_secreview_filter_finding hook]" in result.stdout.str()


def test_a_hook_the_pull_request_brings_does_not_lower_a_finding_at_the_threshold(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    """The pull request adds the conftest.py that drops its own shell injection: pytest
    imported it (no ``--noconftest``), so the drop is the pull request's."""
    review_repo(rules=RULES, pr={"conftest.py": HOOK, "app/examples/run.py": EXAMPLE})
    result = _review(pytester)

    result.assert_outcomes(failed=1, passed=1)  # the conftest.py itself is reviewed too
    finding, change = _the_filter(_summary(pytester))
    assert finding["suppression"] is None and "filter by pr-files" in finding["overruled"]
    assert (change["origin"], change["trusted"], change["accepted"]) == (
        "pr-files", False, False)
