"""Cost per review (issue 15, item 5): cache reads and cache writes counted apart, priced
apart, summed into the report's totals and shown in the summary (the PR comment's body) and
the terminal. The providers are real local HTTP servers speaking each wire format."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    anthropic_message,
    anthropic_tool_use,
    gemini_call,
    gemini_response,
    openai_completion,
    openai_tool_call,
)

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent("""\
    ---
    title: Injection
    severity: critical
    ---
    Look for injection.
    """)

SQLI = {"severity": "CRITICAL", "title": "SQL injection in search", "path": "db.py",
        "line": 1, "explanation": "q flows into execute", "recommendation": "bind it"}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _review(pytester: pytest.Pytester, server: FakeServer, model: str, *args: str
            ) -> pytest.RunResult:
    return pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-no-cache",
        "--secreview-rules", "secreview/rules", "--secreview-model", model,
        # One scripted answer per model call: the second look would be a call of its own.
        "--secreview-api-base", server.url, "--secreview-verify=false", *args)


def _report(pytester: pytest.Pytester) -> dict[str, Any]:
    path = pytester.path / "secreview-artifacts/report/summary.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_anthropic_cache_writes_are_counted_priced_and_shown(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    usage = {"input_tokens": 100, "cache_read_input_tokens": 2000,
             "cache_creation_input_tokens": 1000, "output_tokens": 50}
    server.queue(Reply(json=anthropic_message(
        [anthropic_tool_use("t1", "report_findings", {"findings": [SQLI]})], "tool_use",
        usage=usage)))
    review_repo(rules={"inj": RULE}, pr={"db.py": "cur.execute(f'{q}')\n"})
    result = _review(pytester, server, "anthropic:claude-sonnet-4-5",
                     "--secreview-prices", "claude-sonnet-4-5 input=3 output=15 "
                     "cached_input=0.3 cache_write=3.75")
    result.assert_outcomes(failed=1)
    assert server.requests[0].path == "/v1/messages"
    # 100 uncached at $3, 2,000 cache reads at $0.30, 1,000 cache writes at $3.75 and 50
    # output tokens at $15, per million.
    expected = (100 * 3 + 2000 * 0.3 + 1000 * 3.75 + 50 * 15) / 1e6
    totals = _report(pytester)["usage"]
    assert totals == {"model_calls": 1, "failed_calls": 0, "tool_calls": 0, "input_tokens": 3100,
                      "output_tokens": 50, "cached_tokens": 2000, "cache_write_tokens": 1000,
                      "reasoning_tokens": 0, "cost_usd": pytest.approx(expected)}
    (item,) = _report(pytester)["items"]
    assert item["usage"]["cache_write_tokens"] == 1000
    markdown = (pytester.path / "secreview-artifacts/report/summary.md").read_text()
    assert f"**Total cost \\${expected:,.4f}** (estimated)" in markdown
    assert "3,100 input tokens (2,000 cached, 1,000 cache writes)" in markdown
    assert "3100 input tokens (2000 cached, 1000 cache writes)" in result.stdout.str()


def test_a_cache_write_without_its_own_price_is_billed_as_input(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    # OpenRouter's OpenAI-compatible usage for a Claude model carries cache writes in
    # prompt_tokens_details (inside prompt_tokens, as cache reads are).
    usage = {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010,
             "prompt_tokens_details": {"cached_tokens": 200, "cache_write_tokens": 300}}
    server.queue(Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings", json.dumps({"findings": []}))],
        finish_reason="tool_calls", usage=usage)))
    review_repo(rules={"inj": RULE}, pr={"db.py": "cur.execute(f'{q}')\n"})
    result = _review(pytester, server, "openai:my-router-model",
                     "--secreview-prices", "my-router-model input=2 output=10 cached_input=1")
    result.assert_outcomes(passed=1)
    totals = _report(pytester)["usage"]
    assert (totals["cached_tokens"], totals["cache_write_tokens"]) == (200, 300)
    # 500 uncached + 300 written at the input price, 200 reads at the cached price.
    assert totals["cost_usd"] == pytest.approx((800 * 2 + 200 * 1 + 10 * 10) / 1e6)


def test_a_price_names_its_cache_write_key_when_one_is_wrong(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    review_repo(rules={"inj": RULE}, pr={"db.py": "x = 1\n"})
    result = _review(pytester, server, "openai:m", "--secreview-prices",
                     "m input=1 output=2 cache_writes=3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown price keys ['cache_writes']; use input, output, cached_input, " \
        "cache_write" in result.stderr.str()


def test_gemini_cache_reads_are_priced_and_it_reports_no_cache_writes(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    usage = {"promptTokenCount": 4000, "cachedContentTokenCount": 3000,
             "candidatesTokenCount": 100, "totalTokenCount": 4100}
    server.queue(Reply(json=gemini_response(
        [gemini_call("report_findings", {"findings": []})], usage=usage)))
    review_repo(rules={"inj": RULE}, pr={"db.py": "cur.execute(f'{q}')\n"})
    _review(pytester, server, "gemini:gemini-2.5-pro").assert_outcomes(passed=1)
    totals = _report(pytester)["usage"]
    assert (totals["input_tokens"], totals["cached_tokens"], totals["cache_write_tokens"]) == (
        4000, 3000, 0)
    # The built-in gemini-2.5-pro price: $1.25 input, $0.125 cached input, $10 output.
    assert totals["cost_usd"] == pytest.approx((1000 * 1.25 + 3000 * 0.125 + 100 * 10) / 1e6)
