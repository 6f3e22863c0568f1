"""Anthropic Messages API and Claude on Vertex AI (rawPredict) against a fake server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_secreview.llm import (
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
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    anthropic_message,
    anthropic_text,
    anthropic_tool_use,
    fast_retry,
)

KEY = "sk-ant-test-0042"
TOKEN = "ya29.vertex-token-5"
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
READ_FILE = ToolSpec("read_file", "Read a file.", SCHEMA)


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


def direct_model(base: str) -> ChatModel:
    retry, _ = fast_retry()
    return resolve_model("anthropic:claude-sonnet-4-5", LLMSettings(api_base=base),
                         {"ANTHROPIC_API_KEY": KEY}, retry=retry)


def vertex_model(server: FakeServer) -> ChatModel:
    retry, _ = fast_retry()
    settings = LLMSettings(api_base=server.url, project="sec-proj", location="us-east5")
    return resolve_model("anthropic/claude-sonnet-4-5@20250929", settings,
                         {"SECREVIEW_ACCESS_TOKEN": TOKEN}, retry=retry)


def ask(model: ChatModel, messages: list[Message] | None = None,
        tools: list[ToolSpec] | None = None) -> ModelResponse:
    return model.complete(ChatRequest(
        "You are a security reviewer.", messages or [Message.user("Diff")],
        tools, max_output_tokens=1024, temperature=0.0,
    ))


def test_messages_api_request(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, anthropic_text("All good.")))
    response = ask(direct_model(server.url), tools=[READ_FILE])

    request = server.last
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.json == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "You are a security reviewer.",
                    "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "Diff", "cache_control": {"type": "ephemeral"}}]}],
        "tools": [{"name": "read_file", "description": "Read a file.", "input_schema": SCHEMA}],
        "temperature": 0.0,
    }
    assert response.text == "All good."
    assert response.model == "claude-sonnet-4-5-20250929"


def test_api_base_with_version_path_is_not_doubled(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, anthropic_text("ok")))
    ask(direct_model(server.url + "/v1"))
    assert server.last.path == "/v1/messages"


def test_vertex_raw_predict_request(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, anthropic_text("ok")))
    ask(vertex_model(server))
    request = server.last
    assert request.path == (
        "/v1/projects/sec-proj/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:rawPredict"
    )
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert "anthropic-version" not in request.headers
    assert "x-api-key" not in request.headers
    body = request.json
    assert body["anthropic_version"] == "vertex-2023-10-16"
    assert "model" not in body
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}


def test_tool_use_round_trip_with_thinking(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(
        Reply(200, anthropic_message(
            [
                {"type": "thinking", "thinking": "Check app.py first.", "signature": "EqQBCkYI"},
                {"type": "redacted_thinking", "data": "EmwKAhgB"},
                {"type": "text", "text": "I'll read the file."},
                anthropic_tool_use("toolu_01", "read_file", {"path": "app.py"}),
            ],
            "tool_use",
            usage={"input_tokens": 50, "cache_read_input_tokens": 1000,
                   "cache_creation_input_tokens": 200, "output_tokens": 80},
        )),
        Reply(200, anthropic_text("No findings.")),
    )
    model = vertex_model(server)
    first = ask(model, tools=[READ_FILE])
    assert first.finish_reason is FinishReason.TOOL_CALLS
    assert first.usage == Usage(input_tokens=1250, output_tokens=80, cached_tokens=1000,
                                cache_write_tokens=200)
    assert first.parts == (
        ThinkingPart("Check app.py first.", "EqQBCkYI", "anthropic"),
        ThinkingPart("", "EmwKAhgB", "anthropic", redacted=True),
        TextPart("I'll read the file."),
        ToolCallPart("toolu_01", "read_file", {"path": "app.py"}),
    )
    assert first.text == "I'll read the file."

    history = [
        Message.user("Diff"),
        first.message,
        Message("user", (TextPart("Keep going."),
                         ToolResultPart("toolu_01", "read_file", "denied: .env", is_error=True))),
    ]
    ask(model, history, tools=[READ_FILE])
    assert server.last.json["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Check app.py first.", "signature": "EqQBCkYI"},
            {"type": "redacted_thinking", "data": "EmwKAhgB"},
            {"type": "text", "text": "I'll read the file."},
            {"type": "tool_use", "id": "toolu_01", "name": "read_file",
             "input": {"path": "app.py"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "denied: .env",
             "is_error": True},
            {"type": "text", "text": "Keep going.", "cache_control": {"type": "ephemeral"}},
        ]},
    ]


def test_history_normalisation(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, anthropic_text("ok")))
    history = [
        Message.user("one"),
        Message.user("two"),
        Message("assistant", (ThinkingPart("", "gemini-sig", "gemini"), TextPart(""),
                              ToolCallPart("srcall_1", "read_file", {"path": "x"}))),
        Message.tool_results([ToolResultPart("srcall_1", "read_file", "content")]),
    ]
    ask(direct_model(server.url), history)
    assert server.last.json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "one"},
                                     {"type": "text", "text": "two"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "srcall_1", "name": "read_file", "input": {"path": "x"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "srcall_1", "content": "content",
             "cache_control": {"type": "ephemeral"}}]},
    ]


@pytest.mark.parametrize(
    ("stop_reason", "expected"),
    [
        ("end_turn", FinishReason.STOP),
        ("stop_sequence", FinishReason.STOP),
        ("max_tokens", FinishReason.MAX_TOKENS),
        ("model_context_window_exceeded", FinishReason.MAX_TOKENS),
        ("refusal", FinishReason.SAFETY),
        ("pause_turn", FinishReason.OTHER),
        ("something_new", FinishReason.OTHER),
        (None, FinishReason.OTHER),
    ],
)
def test_stop_reasons(
    fake_servers: FakeServers, stop_reason: str | None, expected: FinishReason
) -> None:
    body = anthropic_message([{"type": "text", "text": "partial"}], stop_reason)
    server = fake_servers.start().queue(Reply(200, body))
    response = ask(direct_model(server.url))
    assert response.finish_reason is expected
    assert response.raw_finish_reason == stop_reason
    assert response.text == "partial"


def test_refusal_without_text_is_still_a_response(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, anthropic_message([], "refusal")))
    response = ask(direct_model(server.url))
    assert response.finish_reason is FinishReason.SAFETY
    assert response.parts == ()


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param(anthropic_message([], "end_turn"), EmptyResponseError, id="empty-end-turn"),
        pytest.param(anthropic_message([{"type": "thinking", "thinking": "hm", "signature": "s"}],
                                       "end_turn"), EmptyResponseError, id="only-thinking"),
        pytest.param({"type": "message", "stop_reason": "end_turn"}, MalformedResponseError,
                     id="no-content"),
        pytest.param({"content": "text"}, MalformedResponseError, id="content-not-list"),
    ],
)
def test_bad_answers(
    fake_servers: FakeServers, body: dict[str, Any], error: type[Exception]
) -> None:
    server = fake_servers.start().queue(Reply(200, body))
    with pytest.raises(error):
        ask(direct_model(server.url))


def test_tool_input_that_is_not_an_object(fake_servers: FakeServers) -> None:
    block = {"type": "tool_use", "id": "toolu_9", "name": "read_file", "input": "app.py"}
    server = fake_servers.start().queue(Reply(200, anthropic_message([block], "tool_use")))
    call = ask(direct_model(server.url)).tool_calls[0]
    assert call.id == "toolu_9"
    assert call.args == {}
    assert call.arguments_error == "arguments must be a JSON object, got str"
