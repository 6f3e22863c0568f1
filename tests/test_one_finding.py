"""One finding per problem, through the plugin: a scripted model reports one template
injection from the items of two rules on one file, where a pattern of one of them also
matches the line. Every output lists the problem once, with every rule and source; each
item's own outcome stays as decided."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, Recorded, Reply
from tests.test_plugin_model import report

Build = Callable[..., ReviewRepo]

SSTI = textwrap.dedent("""\
    ---
    title: Server-side template injection
    severity: high
    cwe: CWE-1336
    category: template-injection
    grep:
      any: ["render_template_string"]
    detect:
      - pattern: "render_template_string\\\\(request"
        message: request data rendered as a template
    ---
    Look for templates built from request data.
    """)
XSS = textwrap.dedent("""\
    ---
    title: Cross-site scripting
    severity: medium
    cwe: CWE-79
    category: xss
    grep:
      any: ["render_template_string"]
    ---
    Look for unescaped output.
    """)
VIEW = "from flask import request, render_template_string\n" \
       "page = render_template_string(request.args['t'])\n"
TEMPLATE_INJECTION = {
    "severity": "CRITICAL", "title": "Template injection from the t parameter",
    "path": "app/views.py", "line": 2, "cwe": "CWE-1336", "category": "template-injection",
    "explanation": "t is rendered as a Jinja template", "recommendation": "render a file",
    "exploit_scenario": "t={{config}}"}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _review(pytester: pytest.Pytester, server: FakeServer,
            *args: str) -> tuple[pytest.RunResult, Path]:
    out = pytester.path / "out"
    result = pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider",
        "--secreview-rules", "secreview/rules", "--secreview-model", "openai:gpt-4.1",
        "--secreview-api-base", server.url, "--secreview-verify=false",
        f"--secreview-artifacts={out}", f"--secreview-sarif={out / 'r.sarif'}", *args)
    return result, out / "report"


def _every_review_reports(server: FakeServer, *findings: dict[str, Any]) -> None:
    def answer(request: Recorded) -> Reply:
        return report(*findings)

    server._responder = answer


def test_one_problem_reported_by_two_items_and_a_pattern_is_listed_once(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    _every_review_reports(server, TEMPLATE_INJECTION)
    review_repo(rules={"ssti": SSTI, "xss": XSS}, pr={"app/views.py": VIEW})
    result, reports = _review(pytester, server)

    result.assert_outcomes(failed=2)  # each item's outcome is its own, as decided
    summary = json.loads((reports / "summary.json").read_text())
    assert [len(i["findings"]) for i in summary["items"]] == [1, 1]
    [one] = summary["findings"]
    assert (one["path"], one["line"], one["severity"]) == ("app/views.py", 2, "CRITICAL")
    assert one["rules"] == ["ssti", "xss"]
    assert set(one["source"].split("+")) == {"pattern", "model:openai:gpt-4.1"}
    assert one["reports"] == 3  # the pattern, and the model in each item

    markdown = (reports / "summary.md").read_text()
    assert "1 finding (2 reports merged)" in markdown
    assert markdown.count("Template injection from the t parameter") == 1
    assert "rules `ssti`, `xss`" in markdown
    [run] = json.loads((reports.parent / "r.sarif").read_text())["runs"]
    assert len(run["results"]) == 1
    assert run["results"][0]["properties"]["rules"] == ["ssti", "xss"]
    assert "1 findings (2 reports merged)" in result.stdout.str()


def test_different_weaknesses_on_one_line_stay_apart(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    xss = {**TEMPLATE_INJECTION, "title": "Reflected output", "cwe": "CWE-79",
           "category": "xss", "severity": "MEDIUM"}
    _every_review_reports(server, xss)
    review_repo(rules={"ssti": SSTI, "xss": XSS}, pr={"app/views.py": VIEW})
    _result, reports = _review(pytester, server)
    summary = json.loads((reports / "summary.json").read_text())
    # The pattern's template injection, and the cross-site scripting both items reported.
    assert sorted((f["cwe"], f["reports"]) for f in summary["findings"]) == [
        ("CWE-1336", 1), ("CWE-79", 2)]
