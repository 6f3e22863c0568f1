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
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)
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
    out = result.stdout.str()
    assert "findings: 1 CRITICAL · 1 finding (2 reports merged)" in out
    assert "app/views.py:2  CRITICAL  Template injection from the t parameter  (ssti, xss)" in out


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


# -- the verifier's answer: confirm (optionally with a severity) or dismiss ----------------

#: The first words of each second look's system prompt.
VERIFIER = "You are an independent verifier"
TRIAGE = "You verify security findings"


def _triage(*verdicts: dict[str, Any]) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("t1", "triage_findings",
                                     json.dumps({"verdicts": list(verdicts)}))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}))


def _scripted(server: FakeServer, findings: list[dict[str, Any]], verdict: Reply) -> None:
    """Reviews report ``findings``; both second looks (the triage of pattern findings and
    the verifier of the model's) answer ``verdict``."""
    def answer(request: Recorded) -> Reply:
        system = str(request.json["messages"][0]["content"])
        return verdict if system.startswith((VERIFIER, TRIAGE)) else report(*findings)

    server._responder = answer


def _looks(server: FakeServer, prefix: str) -> list[str]:
    return [str(r.json["messages"][1]["content"]) for r in server.requests
            if str(r.json["messages"][0]["content"]).startswith(prefix)]


def test_the_verifier_checks_the_findings_own_weakness_and_may_lower_a_model_finding(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    _scripted(server, [TEMPLATE_INJECTION], _triage(
        {"index": 1, "verdict": "confirm", "severity": "medium", "confidence": 0.9,
         "reason": "real, but only an admin can set t"}))
    review_repo(rules={"xss": XSS}, pr={"app/views.py": VIEW})
    result, reports = _review(pytester, server, "--secreview-verify=true")

    # Told what the model reported (a template injection), not the item's rule (xss).
    [task] = _looks(server, VERIFIER)
    assert "[template-injection, CWE-1336, model:openai:gpt-4.1]" in task
    assert "[xss," not in task
    result.assert_outcomes(passed=1)  # a model-only finding: the verifier may lower it
    summary = json.loads((reports / "summary.json").read_text())
    [one] = summary["findings"]
    assert (one["severity"], one["triage"]) == ("MEDIUM", "confirmed")
    [item] = summary["items"]
    [severity] = [c for c in item["changes"] if c["kind"] == "severity"]
    assert (severity["origin"], severity["severity"], severity["accepted"]) == (
        "verifier", "MEDIUM", True)


def test_an_adjusted_severity_never_lowers_a_pattern_finding_at_the_threshold(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    _scripted(server, [], _triage({"index": 1, "verdict": "confirm", "severity": "LOW",
                                   "reason": "the template is only a greeting"}))
    review_repo(rules={"ssti": SSTI}, pr={"app/views.py": VIEW})
    result, reports = _review(pytester, server, "--secreview-verify=true",
                              "--secreview-fail-on=high")

    assert _looks(server, TRIAGE)  # the pattern finding was offered to the triage
    result.assert_outcomes(failed=1)
    summary = json.loads((reports / "summary.json").read_text())
    [one] = summary["findings"]
    assert (one["severity"], one["triage"]) == ("HIGH", "confirmed")
    assert "never lowers a deterministic finding" in one["overruled"]
    [severity] = [c for c in summary["items"][0]["changes"] if c["kind"] == "severity"]
    assert (severity["origin"], severity["accepted"]) == ("model", False)


def test_the_triage_tool_declares_the_severity_and_the_reason_limit() -> None:
    from pytest_secreview.triage.verify import TRIAGE_FINDINGS

    verdict = TRIAGE_FINDINGS.parameters["properties"]["verdicts"]["items"]
    assert "severity" in json.dumps(verdict)
    assert "500 characters" in TRIAGE_FINDINGS.description
