"""HTTP behaviour shared by every route: retries, Retry-After, timeouts, error classification."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_secreview import __version__
from pytest_secreview.errors import ProviderError
from pytest_secreview.llm import (
    AuthenticationError,
    ChatModel,
    ChatRequest,
    ContextLengthExceededError,
    LLMSettings,
    MalformedResponseError,
    Message,
    ModelResponse,
    ProviderRequestError,
    ProviderUnavailableError,
    RetryPolicy,
    ToolSpec,
    ToolsUnsupportedError,
    resolve_model,
)
from pytest_secreview.llm.http import parse_retry_after, shared_client
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    fast_retry,
    not_json,
    openai_completion,
    rate_limited,
    server_error,
    tools_unsupported,
)


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


KEY = "sk-test-4f9a1c"
TOOL = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {}})
OK = Reply(200, openai_completion("done"))


def model_at(server: FakeServer, retry: RetryPolicy, *, timeout: float = 5.0) -> ChatModel:
    settings = LLMSettings(api_base=server.url, api_key=KEY, timeout=timeout)
    return resolve_model("openai:gpt-4.1", settings, {}, retry=retry)


def ask(model: ChatModel, *, tools: list[ToolSpec] | None = None) -> ModelResponse:
    return model.complete(ChatRequest("system", [Message.user("hi")], tools,
                                      max_output_tokens=64))


def test_one_shared_client_with_user_agent(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(OK)
    retry, _ = fast_retry()
    ask(model_at(server, retry))
    assert shared_client() is shared_client()
    assert server.last.headers["user-agent"] == f"pytest-secreview/{__version__}"
    assert server.last.headers["content-type"] == "application/json"


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_status_is_retried(fake_servers: FakeServers, status: int) -> None:
    server = fake_servers.start().queue(server_error(status), OK)
    retry, sleep = fast_retry()
    assert ask(model_at(server, retry)).text == "done"
    assert len(server.requests) == 2
    assert sleep.delays == [0.01]


def test_backoff_is_exponential_with_full_jitter(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(server_error(), server_error(), server_error(), OK)
    retry, sleep = fast_retry(base_delay=0.5, max_delay=1.5, jitter=lambda: 0.5)
    assert ask(model_at(server, retry)).text == "done"
    # uniform in [0, min(max_delay, base * 2**n)], here at its midpoint
    assert sleep.delays == [0.25, 0.5, 0.75]


def _in_30_seconds() -> dict[str, str]:
    return {"Retry-After": email.utils.formatdate(time.time() + 30, usegmt=True)}


@pytest.mark.parametrize(
    ("headers", "low", "high"),
    [
        pytest.param(lambda: {"Retry-After": "2"}, 2.0, 2.0, id="seconds"),
        pytest.param(lambda: {"Retry-After": "0.5"}, 0.5, 0.5, id="fractional-seconds"),
        pytest.param(lambda: {"retry-after-ms": "1500", "Retry-After": "9"}, 1.5, 1.5,
                     id="ms-wins"),
        pytest.param(_in_30_seconds, 20.0, 31.0, id="http-date"),
    ],
)
def test_retry_after_is_honoured(
    fake_servers: FakeServers, headers: Callable[[], dict[str, str]], low: float, high: float
) -> None:
    server = fake_servers.start()
    server.queue(Reply(429, {"error": "slow down"}, headers=headers()), OK)
    retry, sleep = fast_retry()
    assert ask(model_at(server, retry)).text == "done"
    assert len(sleep.delays) == 1
    assert low <= sleep.delays[0] <= high


def test_real_short_retry_after_is_waited_for(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(rate_limited("0.2"), OK)
    started = time.monotonic()
    assert ask(model_at(server, RetryPolicy())).text == "done"
    assert time.monotonic() - started >= 0.2


def test_retry_after_beyond_the_limit_gives_up_at_once(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(rate_limited("3600"))
    retry, sleep = fast_retry()
    with pytest.raises(ProviderUnavailableError, match="retry after 3600s") as info:
        ask(model_at(server, retry))
    assert info.value.status == 429
    assert sleep.delays == []
    assert len(server.requests) == 1


def test_attempts_are_bounded(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(*[server_error(503)] * 10)
    retry, sleep = fast_retry(max_attempts=3)
    with pytest.raises(ProviderUnavailableError, match="after 3 attempt") as info:
        ask(model_at(server, retry))
    assert isinstance(info.value, ProviderError)
    assert info.value.attempts == 3
    assert info.value.status == 503
    assert "The service is unavailable" in str(info.value)
    assert len(server.requests) == 3
    assert len(sleep.delays) == 2


def test_total_time_is_bounded(fake_servers: FakeServers) -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    server = fake_servers.start().queue(*[server_error()] * 10)
    retry = RetryPolicy(max_attempts=10, base_delay=1.0, max_total=2.5, sleep=sleep,
                        clock=lambda: now[0], jitter=lambda: 1.0)
    with pytest.raises(ProviderUnavailableError):
        ask(model_at(server, retry))
    # waits of 1 s then 2 s would pass 2.5 s: only the first is taken
    assert now[0] == 1.0
    assert len(server.requests) == 2


def test_slow_response_times_out_and_is_retried(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, openai_completion("late"), delay=2.0), OK)
    retry, _ = fast_retry()
    assert ask(model_at(server, retry, timeout=0.3)).text == "done"
    assert len(server.requests) == 2


def test_slow_responses_exhaust_the_attempts(fake_servers: FakeServers) -> None:
    slow = Reply(200, openai_completion("late"), delay=2.0)
    server = fake_servers.start().queue(slow, slow)
    retry, _ = fast_retry(max_attempts=2)
    with pytest.raises(ProviderUnavailableError, match="Timeout") as info:
        ask(model_at(server, retry, timeout=0.3))
    assert info.value.status is None


def test_connection_refused_is_unavailable(fake_servers: FakeServers) -> None:
    server = fake_servers.start()
    server.stop()
    retry, sleep = fast_retry(max_attempts=2)
    with pytest.raises(ProviderUnavailableError, match="ConnectError"):
        ask(model_at(server, retry))
    assert len(sleep.delays) == 1


@pytest.mark.parametrize(
    ("reply", "error", "fragment"),
    [
        pytest.param(Reply(400, {"error": {"message": "Invalid value for temperature"}}),
                     ProviderRequestError, "Invalid value for temperature", id="400"),
        pytest.param(Reply(401, {"error": {"message": "Incorrect API key provided"}}),
                     AuthenticationError, "SECREVIEW_API_KEY", id="401-names-the-variable"),
        pytest.param(Reply(403, {"error": {"message": "Permission denied"}}),
                     AuthenticationError, "Permission denied", id="403"),
        pytest.param(Reply(404, {"error": {"message": "model gpt-9 does not exist"}}),
                     ProviderRequestError, "check the model name", id="404"),
        pytest.param(
            Reply(400, {"error": {"message": "This model's maximum context length is 128000 "
                                             "tokens. However, you requested 130000 tokens",
                                  "code": "context_length_exceeded"}}),
            ContextLengthExceededError, "context window", id="context-length",
        ),
        pytest.param(
            Reply(400, {"error": {"message": "max_tokens: 200000 exceeds the maximum allowed "
                                             "64000"}}),
            ProviderRequestError, "exceeds the maximum", id="output-limit-is-not-context",
        ),
        pytest.param(Reply(422, {"detail": "Unprocessable request body"}),
                     ProviderRequestError, "Unprocessable request body", id="fastapi-detail"),
        pytest.param(
            Reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                   "message": "max_tokens: too large"}}),
            ProviderRequestError, "max_tokens: too large", id="anthropic-shape",
        ),
        pytest.param(
            Reply(400, [{"error": {"code": 400, "message": "Request contains an invalid argument.",
                                   "status": "INVALID_ARGUMENT"}}]),
            ProviderRequestError, "invalid argument", id="vertex-list-shape",
        ),
        pytest.param(Reply(400, body=b"plain text failure", headers={"Content-Type": "text/plain"}),
                     ProviderRequestError, "plain text failure", id="text-body"),
    ],
)
def test_client_errors_are_not_retried(
    fake_servers: FakeServers, reply: Reply, error: type[Exception], fragment: str
) -> None:
    server = fake_servers.start().queue(reply, OK)
    retry, sleep = fast_retry()
    with pytest.raises(error, match=fragment) as info:
        ask(model_at(server, retry))
    assert type(info.value) is error
    assert len(server.requests) == 1
    assert sleep.delays == []


def test_provider_message_is_trimmed(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(400, {"error": {"message": "x" * 5000}}))
    retry, _ = fast_retry()
    with pytest.raises(ProviderRequestError) as info:
        ask(model_at(server, retry))
    assert len(info.value.provider_message) <= 300
    assert len(str(info.value)) < 500


@pytest.mark.parametrize(
    "message",
    [
        "registry.ollama.ai/library/gemma2:2b does not support tools",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "Function calling is not enabled for models/gemma-3-27b-it",
        "tools are not supported by this model",
        "This model doesn't support function calling.",
    ],
)
def test_tools_unsupported_is_recognised(fake_servers: FakeServers, message: str) -> None:
    server = fake_servers.start().queue(Reply(400, {"error": {"message": message}}))
    retry, _ = fast_retry()
    with pytest.raises(ToolsUnsupportedError, match="prompt-based"):
        ask(model_at(server, retry), tools=[TOOL])


def test_tools_message_without_tools_is_a_plain_request_error(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(tools_unsupported())
    retry, _ = fast_retry()
    with pytest.raises(ProviderRequestError) as info:
        ask(model_at(server, retry))
    assert not isinstance(info.value, ToolsUnsupportedError)


def test_non_json_success_body_is_malformed(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(not_json())
    retry, _ = fast_retry()
    with pytest.raises(MalformedResponseError, match=r"not JSON.*upstream proxy error"):
        ask(model_at(server, retry))


def test_non_json_error_body_is_still_classified(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(not_json(502), OK)
    retry, _ = fast_retry()
    assert ask(model_at(server, retry)).text == "done"


def test_retries_are_logged_without_secrets(
    fake_servers: FakeServers, caplog: pytest.LogCaptureFixture
) -> None:
    server = fake_servers.start().queue(
        Reply(503, {"error": {"message": f"overloaded, your key {KEY} is fine"}}), OK
    )
    retry, _ = fast_retry()
    with caplog.at_level("WARNING", logger="pytest_secreview.llm"):
        ask(model_at(server, retry))
    assert "retrying in" in caplog.text
    assert "overloaded" in caplog.text
    assert KEY not in caplog.text


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: Any) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date_against_a_given_now() -> None:
    when = email.utils.formatdate(1_000_060, usegmt=True)
    assert parse_retry_after({"retry-after": when}, now=1_000_000) == 60.0
