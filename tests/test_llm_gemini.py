"""Gemini generateContent (Vertex AI and the Gemini Developer API) against a fake server."""

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
from pytest_secreview.llm.gemini_schema import to_gemini_schema
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    fast_retry,
    gemini_call,
    gemini_response,
    gemini_text,
    not_json,
)

TOKEN = "ya29.static-token-77"
GEMINI_KEY = "AIza-test-key-123"

READ_FILE = ToolSpec(
    "read_file",
    "Read a file of the repository.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Repository-relative path."},
            "offset": {"type": ["integer", "null"], "default": None},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
)
FETCH_PR_FILES = ToolSpec("fetch_pr_files", "List the pull request's files.",
                          {"type": "object", "properties": {}})


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


def vertex_model(server: FakeServer, location: str = "global") -> ChatModel:
    retry, _ = fast_retry()
    settings = LLMSettings(api_base=server.url, project="my-proj", location=location)
    env = {"SECREVIEW_ACCESS_TOKEN": TOKEN}
    return resolve_model("google/gemini-2.5-pro", settings, env, retry=retry)


def ask(
    model: ChatModel,
    messages: list[Message] | None = None,
    tools: list[ToolSpec] | None = None,
    temperature: float | None = None,
) -> ModelResponse:
    return model.complete(ChatRequest(
        "You review code.", messages or [Message.user("Review this diff.")],
        tools, max_output_tokens=2048, temperature=temperature,
    ))


@pytest.mark.parametrize("location", ["global", "us-central1", "europe-west4", "us", "eu"])
def test_vertex_request_path_headers_and_body(fake_servers: FakeServers, location: str) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_text("No issues.")))
    response = ask(vertex_model(server, location), tools=[READ_FILE], temperature=0.2)

    request = server.last
    assert request.path == (
        f"/v1/projects/my-proj/locations/{location}/publishers/google/models/"
        "gemini-2.5-pro:generateContent"
    )
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert "x-goog-api-key" not in request.headers
    assert request.json == {
        "contents": [{"role": "user", "parts": [{"text": "Review this diff."}]}],
        "systemInstruction": {"parts": [{"text": "You review code."}]},
        "tools": [{"functionDeclarations": [{
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {
                "type": "OBJECT",
                "properties": {
                    "path": {"type": "STRING", "description": "Repository-relative path."},
                    "offset": {"type": "INTEGER", "nullable": True},
                },
                "required": ["path"],
            },
        }]}],
        "generationConfig": {"maxOutputTokens": 2048, "temperature": 0.2},
    }
    assert response.text == "No issues."
    assert response.finish_reason is FinishReason.STOP
    assert response.model == "gemini-2.5-pro"


def test_gemini_developer_api_uses_the_api_key_header(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_text("hi")))
    retry, _ = fast_retry()
    model = resolve_model("gemini:gemini-2.5-flash", LLMSettings(api_base=server.url),
                          {"GEMINI_API_KEY": GEMINI_KEY}, retry=retry)
    ask(model)
    assert server.last.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert server.last.headers["x-goog-api-key"] == GEMINI_KEY
    assert "authorization" not in server.last.headers
    assert "key=" not in server.last.query  # the key never travels in the URL


def test_tool_without_arguments_omits_parameters(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_text("ok")))
    ask(vertex_model(server), tools=[FETCH_PR_FILES])
    declaration = server.last.json["tools"][0]["functionDeclarations"][0]
    assert declaration == {"name": "fetch_pr_files",
                           "description": "List the pull request's files."}


def test_function_call_round_trip_with_thought_signature(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(
        Reply(200, gemini_response(
            [
                {"text": "Let me think about paths.", "thought": True},
                gemini_call("read_file", {"path": "app.py"}, thoughtSignature="c2lnLTE="),
                gemini_call("read_file", {"path": "db.py"}),
            ],
            usage={"promptTokenCount": 120, "cachedContentTokenCount": 100,
                   "candidatesTokenCount": 20, "thoughtsTokenCount": 30, "totalTokenCount": 170},
        )),
        Reply(200, gemini_text("Done.")),
    )
    model = vertex_model(server)
    first = ask(model, tools=[READ_FILE])

    assert first.finish_reason is FinishReason.TOOL_CALLS
    assert first.usage == Usage(input_tokens=120, output_tokens=50, cached_tokens=100,
                                reasoning_tokens=30)
    assert [type(p) for p in first.parts] == [ThinkingPart, ToolCallPart, ToolCallPart]
    assert first.parts[0] == ThinkingPart("", "c2lnLTE=", "gemini")
    calls = first.tool_calls
    assert [(c.name, c.args) for c in calls] == [("read_file", {"path": "app.py"}),
                                                  ("read_file", {"path": "db.py"})]
    assert calls[0].id != calls[1].id
    assert "think about paths" not in first.text

    history = [
        Message.user("Review this diff."),
        first.message,
        Message.tool_results([
            ToolResultPart(calls[0].id, "read_file", "print('hi')"),
            ToolResultPart(calls[1].id, "read_file", "no such file", is_error=True),
        ]),
    ]
    second = ask(model, history, tools=[READ_FILE])
    assert second.text == "Done."
    assert server.last.json["contents"][1:] == [
        {"role": "model", "parts": [
            {"functionCall": {"name": "read_file", "args": {"path": "app.py"}},
             "thoughtSignature": "c2lnLTE="},
            {"functionCall": {"name": "read_file", "args": {"path": "db.py"}}},
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "print('hi')"}}},
            {"functionResponse": {"name": "read_file", "response": {"error": "no such file"}}},
        ]},
    ]


def test_provider_call_ids_are_echoed(fake_servers: FakeServers) -> None:
    call = {"functionCall": {"id": "fc-9", "name": "read_file", "args": {"path": "a"}}}
    server = fake_servers.start().queue(Reply(200, gemini_response([call])),
                                        Reply(200, gemini_text("ok")))
    model = vertex_model(server)
    first = ask(model, tools=[READ_FILE])
    assert first.tool_calls[0].id == "fc-9"
    ask(model, [Message.user("x"), first.message,
                Message.tool_results([ToolResultPart("fc-9", "read_file", "body")])])
    model_turn, results = server.last.json["contents"][1:]
    assert model_turn["parts"][0]["functionCall"]["id"] == "fc-9"
    assert results["parts"][0]["functionResponse"]["id"] == "fc-9"


def test_text_signature_and_foreign_thinking(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_text("ok")))
    history = [
        Message.user("q"),
        Message("assistant", (ThinkingPart("", "c2lnLTI=", "gemini"), TextPart("answer"),
                              ThinkingPart("claude thoughts", "anthropic-sig", "anthropic"))),
        Message("assistant", (ThinkingPart("only foreign", "sig", "anthropic"),)),
        Message.user("next"),
    ]
    ask(vertex_model(server), history)
    assert server.last.json["contents"] == [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"text": "answer", "thoughtSignature": "c2lnLTI="}]},
        {"role": "user", "parts": [{"text": "next"}]},
    ]


def test_malformed_function_call_arguments(fake_servers: FakeServers) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_response(
        [{"functionCall": {"name": "read_file", "args": "path=app.py"}}])))
    call = ask(vertex_model(server), tools=[READ_FILE]).tool_calls[0]
    assert call.args == {}
    assert call.arguments_error is not None


@pytest.mark.parametrize(
    ("parts", "finish", "expected", "text"),
    [
        pytest.param([], "SAFETY", FinishReason.SAFETY, "", id="safety"),
        pytest.param([], "PROHIBITED_CONTENT", FinishReason.SAFETY, "", id="prohibited"),
        pytest.param([], "SPII", FinishReason.SAFETY, "", id="spii"),
        pytest.param([{"text": "As written in"}], "RECITATION", FinishReason.RECITATION,
                     "As written in", id="recitation"),
        pytest.param([{"text": "The first finding is"}], "MAX_TOKENS", FinishReason.MAX_TOKENS,
                     "The first finding is", id="max-tokens"),
        pytest.param([], "MALFORMED_FUNCTION_CALL", FinishReason.MALFORMED_TOOL_CALL, "",
                     id="malformed-call"),
        pytest.param([{"text": "hm"}], "SOMETHING_NEW", FinishReason.OTHER, "hm", id="unknown"),
        pytest.param([{"text": "hm"}], None, FinishReason.OTHER, "hm", id="missing"),
    ],
)
def test_finish_reasons(
    fake_servers: FakeServers,
    parts: list[dict[str, Any]],
    finish: str | None,
    expected: FinishReason,
    text: str,
) -> None:
    server = fake_servers.start().queue(Reply(200, gemini_response(parts, finish)))
    response = ask(vertex_model(server))
    assert response.finish_reason is expected
    assert response.raw_finish_reason == finish
    assert response.text == text
    assert response.usage.input_tokens == 10


def test_blocked_prompt_is_a_safety_response(fake_servers: FakeServers) -> None:
    body = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
            "usageMetadata": {"promptTokenCount": 12559, "totalTokenCount": 12559}}
    server = fake_servers.start().queue(Reply(200, body))
    response = ask(vertex_model(server))
    assert response.finish_reason is FinishReason.SAFETY
    assert response.raw_finish_reason == "PROMPT_BLOCKED:PROHIBITED_CONTENT"
    assert response.parts == ()
    assert response.usage.input_tokens == 12559


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"usageMetadata": {"promptTokenCount": 3}}, id="no-candidates"),
        pytest.param({"candidates": []}, id="empty-candidates"),
        pytest.param(gemini_response([], "STOP"), id="stop-without-parts"),
        pytest.param(gemini_response([{"text": "  "}], "STOP"), id="stop-with-blank-text"),
        pytest.param(gemini_response([{"text": "x", "thought": True}], "STOP"),
                     id="stop-with-only-thoughts"),
    ],
)
def test_empty_answers_are_errors(fake_servers: FakeServers, body: dict[str, Any]) -> None:
    server = fake_servers.start().queue(Reply(200, body))
    with pytest.raises(EmptyResponseError, match=r"Vertex AI google/gemini-2\.5-pro") as info:
        ask(vertex_model(server))
    assert info.value.usage is not None


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(not_json(), id="not-json"),
        pytest.param(Reply(200, ["a", "list"]), id="not-an-object"),
        pytest.param(Reply(200, {"candidates": ["text"]}), id="candidate-not-object"),
        pytest.param(Reply(200, gemini_response([{"functionCall": {"args": {}}}])),
                     id="call-without-name"),
        pytest.param(Reply(200, {"candidates": [{"content": {"parts": "x"}}]}),
                     id="parts-not-list"),
    ],
)
def test_malformed_bodies(fake_servers: FakeServers, reply: Reply) -> None:
    server = fake_servers.start().queue(reply)
    with pytest.raises(MalformedResponseError):
        ask(vertex_model(server))


# --- JSON Schema to Gemini Schema ---------------------------------------------------------


def test_schema_inlines_pydantic_refs_and_drops_unknown_keys() -> None:
    schema = {
        "$defs": {
            "Severity": {"enum": ["CRITICAL", "HIGH", "LOW"], "title": "Severity",
                         "type": "string"},
            "Finding": {
                "type": "object",
                "title": "Finding",
                "additionalProperties": False,
                "properties": {
                    "severity": {"$ref": "#/$defs/Severity", "description": "How bad."},
                    "line": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "path": {"type": "string", "format": "uri"},
                },
                "required": ["severity", "missing"],
            },
        },
        "type": "object",
        "properties": {"findings": {"type": "array", "items": {"$ref": "#/$defs/Finding"}}},
        "required": ["findings"],
    }
    assert to_gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {"findings": {"type": "ARRAY", "items": {
            "type": "OBJECT",
            "properties": {
                "severity": {"type": "STRING", "enum": ["CRITICAL", "HIGH", "LOW"],
                             "description": "How bad."},
                "line": {"type": "INTEGER", "nullable": True},
                "confidence": {"type": "NUMBER", "minimum": 0, "maximum": 1},
                "path": {"type": "STRING"},
            },
            "required": ["severity"],
        }}},
        "required": ["findings"],
    }


def test_schema_with_non_string_enum_and_unions() -> None:
    assert to_gemini_schema({"type": "integer", "enum": [1, 2, None]}) == {
        "type": "INTEGER", "description": "One of: 1, 2.", "nullable": True,
    }
    assert to_gemini_schema({"anyOf": [{"type": "string"}, {"type": "integer"}]}) == {
        "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}],
    }
    assert to_gemini_schema({"const": "report"}) == {"type": "STRING", "enum": ["report"]}


def test_schema_rejects_recursive_refs() -> None:
    recursive = {"$defs": {"Node": {"type": "object",
                                     "properties": {"child": {"$ref": "#/$defs/Node"}}}},
                 "$ref": "#/$defs/Node"}
    with pytest.raises(ValueError, match="deeply"):
        to_gemini_schema(recursive)
    with pytest.raises(ValueError, match="points nowhere"):
        to_gemini_schema({"$ref": "#/$defs/Missing"})
