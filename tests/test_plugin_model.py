"""The agentic review through the plugin (pytester) against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded credentials
    severity: critical
    grep:
      any: ["KEY", "execute"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    Look for credentials and injection.
    """
)


def report(*findings: dict[str, object]) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings",
                                     json.dumps({"findings": list(findings)}))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280}))


def sqli(path: str) -> dict[str, object]:
    return {"severity": "CRITICAL", "title": "SQL injection in search", "path": path,
            "line": 1, "explanation": "q flows into execute", "recommendation": "bind it",
            "exploit_scenario": "q=' OR 1=1 --"}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def review(pytester: pytest.Pytester, server: FakeServer, *args: str,
           subprocess: bool = False) -> pytest.RunResult:
    argv = ("--secreview", "--base", "main", "-p", "no:cacheprovider",
            "--secreview-rules", "secreview/rules", "--secreview-model", "openai:gpt-4.1",
            "--secreview-api-base", server.url, *args)
    return pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)


def test_model_finding_fails_the_item_with_usage_reported(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(report(sqli("db.py")))
    review_repo(rules={"creds": RULE}, pr={"db.py": "cur.execute(f'{q}')\n"})
    report_file = pytester.path / "r.json"
    result = review(pytester, server, "--json-report", f"--json-report-file={report_file}",
                    "--secreview-verify=false")  # one review call, no second look
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "db.py:1  CRITICAL  SQL injection in search" in out
    assert "source model:openai:gpt-4.1" in out
    assert "usage: 1 model call(s), 0 tool call(s), 1200 input tokens" in out
    assert "estimated cost $0.00" in out
    meta = json.loads(report_file.read_text())["tests"][0]["metadata"]["secreview"]
    assert meta["mode"] == "native" and meta["usage"]["model_calls"] == 1
    request: Recorded = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert "Look for credentials and injection." in request.raw.decode()


def test_model_reporting_nothing_never_cancels_a_deterministic_finding(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(report())
    review_repo(rules={"creds": RULE}, pr={"conf.py": f"KEY = '{aws_key_id()}'\n"})
    result = review(pytester, server)
    result.assert_outcomes(failed=1)
    assert "conf.py:1  CRITICAL  AWS access key id in source" in result.stdout.str()


def test_provider_failure_is_an_error_or_a_skip_when_asked(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    refusal = Reply(400, {"error": {"message": "model gpt-4.1 does not exist"}})
    server.queue(refusal, refusal)
    review_repo(rules={"creds": RULE}, pr={"db.py": "cur.execute(q)\n"})
    result = review(pytester, server)
    result.assert_outcomes(errors=1)
    assert "review could not be completed" in result.stdout.str()
    assert "does not exist" in result.stdout.str()
    skipped = review(pytester, server, "--secreview-on-error=skip", "-rs")
    skipped.assert_outcomes(skipped=1)
    assert "--secreview-on-error=skip" in skipped.stdout.str()


def test_outcomes_identical_under_xdist(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    def answer(request: Recorded) -> Reply:
        task = request.json["messages"][1]["content"]
        path = task.split("File: `", 1)[1].split("`", 1)[0]
        return report(sqli(path)) if "evil" in path else report()

    server._responder = answer
    review_repo(rules={"creds": RULE},
                pr={f"m{i}{'evil' if i % 2 else ''}.py": "cur.execute(q)\n" for i in range(6)})
    # The verifier's second look is off: this counts the review's calls.
    serial = review(pytester, server, "--secreview-verify=false", subprocess=True)
    parallel = review(pytester, server, "--secreview-verify=false", "-n", "2", subprocess=True)
    for result in (serial, parallel):
        result.assert_outcomes(failed=3, passed=3)
        assert "usage: 6 model call(s)" in result.stdout.str()


def test_bad_model_string_is_a_usage_error(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"creds": RULE}, pr={"db.py": "x = 1\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "--secreview-model", "gpt4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "not a model string" in result.stderr.str()


def test_a_rule_can_name_its_own_model(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(report())
    rule = RULE.replace("---\nLook for", "model: openai:rule-specific\n---\nLook for")
    review_repo(rules={"creds": rule}, pr={"db.py": "cur.execute(q)\n"})
    review(pytester, server).assert_outcomes(passed=1)
    assert server.requests[0].json["model"] == "rule-specific"
