"""The degradation ladder (docs/how-it-works.md, "Degradation ladder"): each rung the plugin
steps down to, what still runs and what the user sees. Rows already tested elsewhere are named
in that table; these are the rows that had no test through the plugin."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    openai_completion,
    openai_no_findings,
    rate_limited,
    tools_unsupported,
)

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent("""\
    ---
    title: SQL injection
    grep:
      any: ["execute\\\\("]
    ---
    Trace input into SQL.
    """)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _review(pytester: pytest.Pytester, server: FakeServer, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
        "secreview/rules", "--secreview-model", "openai:gpt-4.1", "--secreview-api-base",
        server.url, "--secreview-no-cache", *args)


def _native_report() -> Reply:
    return openai_no_findings()


def _mode(pytester: pytest.Pytester) -> str:
    summary = json.loads((pytester.path / "secreview-artifacts/report/summary.json").read_text())
    (item,) = summary["items"]
    return str(item["mode"])


def test_model_without_tool_calling_reviews_through_text_tool_calls(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(tools_unsupported(), Reply(json=openai_completion(
        '<tool_call>{"name": "report_findings", "args": {"findings": []}}</tool_call>')))
    review_repo(rules={"sqli": RULE}, pr={"db.py": "cur.execute(q)\n"})
    result = _review(pytester, server)
    result.assert_outcomes(passed=1)
    assert _mode(pytester) == "prompt"
    assert "tools" in server.requests[0].json and "tools" not in server.requests[1].json


def test_a_rate_limited_provider_is_waited_for_and_the_review_completes(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(rate_limited("0"), rate_limited("0"), _native_report())
    review_repo(rules={"sqli": RULE}, pr={"db.py": "cur.execute(q)\n"})
    result = _review(pytester, server)
    result.assert_outcomes(passed=1)
    assert len(server.requests) == 3
    assert _mode(pytester) == "native"


def test_no_github_token_still_writes_every_report_and_says_why_no_comment(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    for key in ("GITHUB_TOKEN", "SECREVIEW_GITHUB_TOKEN"):
        pytester._monkeypatch.delenv(key, raising=False)
    server.queue(_native_report())
    review_repo(rules={"sqli": RULE}, pr={"db.py": "cur.execute(q)\n"})
    result = _review(pytester, server, "--secreview-comment=summary",
                     "--secreview-sarif=out.sarif")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "PR comment (summary) not posted: needs SECREVIEW_GITHUB_TOKEN or GITHUB_TOKEN" in out
    for written in ("secreview-artifacts/report/summary.json",
                    "secreview-artifacts/report/summary.md", "out.sarif"):
        assert (pytester.path / written).is_file(), written
