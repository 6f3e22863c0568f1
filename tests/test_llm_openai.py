"""OpenAI chat completions: compatible servers and Vertex AI's openapi endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_secreview.llm import (
    AuthenticationError,
    ChatModel,
    ChatRequest,
    EmptyResponseError,
    FinishReason,
    LLMSettings,
    MalformedResponseError,
    Message,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
    resolve_model,
)
from pytest_secreview.llm.openai import OpenAIChatModel
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    fast_retry,
    openai_completion,
    openai_tool_call,
)

KEY = "sk-proj-test-99"
TOKEN = "ya29.vertex-openapi-1"
SCHEMA = {"type": "object", "properties": {"pattern": {"type": "string"}},
          "required": ["pattern"], "additionalProperties": False}
SEARCH = ToolSpec("search_files", "Search the repository.", SCHEMA)


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


def compatible_model(base: str, env: dict[str, str] | None = None) -> ChatModel:
    retry, _ = fast_retry()
    return resolve_model("openai:gpt-4.1", LLMSettings(api_base=base),
                         {"OPENAI_API_KEY": KEY} if env is None else env, retry=retry)


def vertex_model(server: FakeServer) -> ChatModel:
    retry, _ = fast_retry()
    settings = LLMSettings(api_base=server.url, project="p-1", location="global")
    return resolve_model("moonshotai/kimi-k2-thinking-maas", settings,
                         {"SECREVIEW_ACCESS_TOKEN": TOKEN}, retry=retry)


def ask(model: ChatModel, messages: list[Message] | None = None,
        tools: list[ToolSpec] | None = None) -> ModelResponse:
    return model.complete(ChatRequest("Be precise.", messages or [Message.user("Diff")], tools,
                                      max_output_tokens=512))


@pytest.mark.parametrize("suffix", ["", "/v1"])
def test_compatible_server_request(fake_servers: FakeServers, suffix: str) -> None:
    server = fake_servers.start().queue(Reply(200, openai_completion("Fine.")))
    response = ask(compatible_model(server.url + suffix), tools=[SEARCH])
    request = server.last
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json == {
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": "Be precise."},
                     {"role": "user", "content": "Diff"}],
        "max_tokens": 512,
        "tools": [{"type": "function", "function": {
            "name": "search_files", "description": "Search the repository.",
            "parameters": SCHEMA}}],
    }
    assert response.text == "Fine."
    assert response.model == "gpt-4.1-2025-04-14"


def test_official_openai_uses_max_completion_tokens() -> None:
    model = resolve_model("openai:o4-mini", LLMSettings(), {"OPENAI_API_KEY": KEY})
    assert isinstance(model, OpenAIChatModel)
    assert model.url == "https://api.openai.com/v1/chat/completions"
    assert model.max_tokens_field == "max_completion_tokens"


def test_vertex_openapi_endpoint(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, openai_completion("ok")))
    ask(vertex_model(server))
    assert server.last.path == (
        "/v1/projects/p-1/locations/global/endpoints/openapi/chat/completions"
    )
    assert server.last.headers["authorization"] == f"Bearer {TOKEN}"
    assert server.last.json["model"] == "moonshotai/kimi-k2-thinking-maas"
    assert server.last.json["max_tokens"] == 512


def test_keyless_local_server(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(
        Reply(200, openai_completion("ok")),
        Reply(401, {"error": {"message": "missing bearer"}}),
    )
    model = compatible_model(server.url, env={})
    ask(model)
    assert "authorization" not in server.last.headers
    with pytest.raises(AuthenticationError, match="set OPENAI_API_KEY or SECREVIEW_API_KEY"):
        ask(model)


def test_tool_calls_round_trip(fake_servers: FakeServers) -> None:
    calls = [
        openai_tool_call("call_1", "search_files", '{"pattern": "eval\\\\("}'),
        openai_tool_call("call_2", "search_files", '{"pattern": "exec'),
        openai_tool_call("call_3", "search_files", "[1, 2]"),
        openai_tool_call("call_4", "git_log", ""),
    ]
    server = fake_servers.start().queue(
        Reply(200, openai_completion(
            None, tool_calls=calls, finish_reason="tool_calls",
            reasoning_content="The user wants me to grep.",
            usage={"prompt_tokens": 900, "completion_tokens": 120, "total_tokens": 1020,
                   "prompt_tokens_details": {"cached_tokens": 768},
                   "completion_tokens_details": {"reasoning_tokens": 64}},
        )),
        Reply(200, openai_completion("Done.")),
    )
    model = compatible_model(server.url)
    first = ask(model, tools=[SEARCH])
    assert first.finish_reason is FinishReason.TOOL_CALLS
    assert first.usage == Usage(900, 120, cached_tokens=768, reasoning_tokens=64)
    assert first.text == ""
    good, broken, not_object, empty = first.tool_calls
    assert good.args == {"pattern": "eval\\("} and good.arguments_error is None
    assert broken.args == {} and "not valid JSON" in (broken.arguments_error or "")
    assert '{"pattern": "exec' in (broken.arguments_error or "")
    assert not_object.args == {} and "got list" in (not_object.arguments_error or "")
    assert empty.args == {} and empty.arguments_error is None

    history = [
        Message.user("Diff"),
        first.message,
        Message("user", (
            ToolResultPart("call_1", "search_files", "app.py:3: eval("),
            ToolResultPart("call_2", "search_files", "arguments are not valid JSON",
                           is_error=True),
            ToolResultPart("call_3", "search_files", "arguments must be an object",
                           is_error=True),
            ToolResultPart("call_4", "git_log", "abc123 init"),
            TextPart("Now report."),
        )),
    ]
    ask(model, history, tools=[SEARCH])
    sent = server.last.json["messages"][2:]
    assert sent[0] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "search_files", "arguments": '{"pattern": "eval\\\\("}'}},
        {"id": "call_2", "type": "function",
         "function": {"name": "search_files", "arguments": "{}"}},
        {"id": "call_3", "type": "function",
         "function": {"name": "search_files", "arguments": "{}"}},
        {"id": "call_4", "type": "function", "function": {"name": "git_log", "arguments": "{}"}},
    ]}
    assert sent[1:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "app.py:3: eval("},
        {"role": "tool", "tool_call_id": "call_2",
         "content": "Error: arguments are not valid JSON"},
        {"role": "tool", "tool_call_id": "call_3",
         "content": "Error: arguments must be an object"},
        {"role": "tool", "tool_call_id": "call_4", "content": "abc123 init"},
        {"role": "user", "content": "Now report."},
    ]
    assert "reasoning_content" not in json.dumps(server.last.json)
    assert "grep" not in json.dumps(server.last.json)


def test_reasoning_is_dropped(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(
        Reply(200, openai_completion("<think>Let me consider the diff.</think>\n\nNo issues.",
                                     reasoning_content="hidden")),
        Reply(200, openai_completion("<think>cut off mid-thought", finish_reason="length")),
    )
    model = vertex_model(server)
    assert ask(model).parts == (TextPart("No issues."),)
    truncated = ask(model)
    assert truncated.finish_reason is FinishReason.MAX_TOKENS
    assert truncated.parts == ()


def test_foreign_thinking_and_empty_turns_are_not_sent(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, openai_completion("ok")))
    history = [Message.user("q"),
               Message("assistant", (ThinkingPart("", "sig", "gemini"),)),
               Message.user("again")]
    ask(compatible_model(server.url), history)
    assert server.last.json["messages"][1:] == [{"role": "user", "content": "q"},
                                                 {"role": "user", "content": "again"}]


@pytest.mark.parametrize(
    ("finish", "tool_calls", "expected"),
    [
        ("stop", None, FinishReason.STOP),
        ("stop", [openai_tool_call("c", "git_log", "{}")], FinishReason.TOOL_CALLS),
        ("tool_calls", [openai_tool_call("c", "git_log", "{}")], FinishReason.TOOL_CALLS),
        ("length", None, FinishReason.MAX_TOKENS),
        ("content_filter", None, FinishReason.SAFETY),
        ("eos", None, FinishReason.OTHER),
        (None, None, FinishReason.OTHER),
    ],
)
def test_finish_reasons(
    fake_servers: FakeServers,
    finish: str | None,
    tool_calls: list[dict[str, Any]] | None,
    expected: FinishReason,
) -> None:
    body = openai_completion("text", tool_calls=tool_calls, finish_reason=finish)
    server = fake_servers.start().queue(Reply(200, body))
    response = ask(compatible_model(server.url))
    assert response.finish_reason is expected
    assert response.raw_finish_reason == finish


def test_refusal_is_safety(fake_servers: FakeServers) -> None:
    body = openai_completion(None, refusal="I can't help with that.")
    server = fake_servers.start().queue(Reply(200, body))
    response = ask(compatible_model(server.url))
    assert response.finish_reason is FinishReason.SAFETY
    assert response.text == "I can't help with that."


def test_content_as_parts_and_object_arguments(fake_servers: FakeServers) -> None:
    body = openai_completion(
        [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],  # type: ignore[arg-type]
        tool_calls=[{"id": "c1", "type": "function",
                     "function": {"name": "git_log", "arguments": {"max_count": 3}}}],
    )
    server = fake_servers.start().queue(Reply(200, body))
    response = ask(compatible_model(server.url))
    assert response.text == "ab"
    assert response.tool_calls == (ToolCallPart("c1", "git_log", {"max_count": 3},
                                                raw_arguments='{"max_count": 3}'),)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param({"choices": [], "usage": {"prompt_tokens": 5}}, EmptyResponseError,
                     id="no-choices"),
        pytest.param(openai_completion(""), EmptyResponseError, id="empty-stop"),
        pytest.param(openai_completion("<think>only thinking</think>"), EmptyResponseError,
                     id="only-think-block"),
        pytest.param({"error": {"message": "upstream failed"}}, MalformedResponseError,
                     id="error-with-200"),
        pytest.param({"choices": ["x"]}, MalformedResponseError, id="choice-not-object"),
        pytest.param(openai_completion(None, tool_calls=[{"id": "c", "function": {}}]),
                     MalformedResponseError, id="call-without-name"),
    ],
)
def test_bad_answers(
    fake_servers: FakeServers, body: dict[str, Any], error: type[Exception]
) -> None:
    server = fake_servers.start().queue(Reply(200, body))
    with pytest.raises(error):
        ask(compatible_model(server.url))
