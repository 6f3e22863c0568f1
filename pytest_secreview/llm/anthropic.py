"""Anthropic Messages API: ``/v1/messages`` and Claude on Vertex AI (``rawPredict``).

The two differ only in the envelope: the Messages API takes ``model`` in the body and
``anthropic-version: 2023-06-01`` as a header; Vertex takes the model in the URL and
``anthropic_version: vertex-2023-10-16`` in the body.

Prompt caching: the system prompt is sent as a list of text blocks whose last block carries
``cache_control: {"type": "ephemeral"}`` (caching tools and system together), and the last
block of the conversation carries one too, so each turn of the agent loop reads the previous
turns from the cache.

Answers: ``thinking``/``redacted_thinking`` blocks are kept as :class:`ThinkingPart` (Anthropic
requires them echoed back, signature intact, during tool use). ``stop_reason`` ``end_turn`` and
``stop_sequence`` become ``STOP``, ``tool_use`` ``TOOL_CALLS``, ``max_tokens`` and
``model_context_window_exceeded`` ``MAX_TOKENS``, ``refusal`` ``SAFETY``, anything else
(``pause_turn``, unknown) ``OTHER``. A normal stop with no content raises
:class:`EmptyResponseError`; a body without a ``content`` list :class:`MalformedResponseError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import messages as msg
from ._wire import as_dict, as_int, ensure_answer, require_object, synthetic_call_id
from .adapter import HttpChatModel
from .errors import MalformedResponseError

ORIGIN = "anthropic"
API_VERSION = "2023-06-01"
VERTEX_VERSION = "vertex-2023-10-16"
_EPHEMERAL = {"type": "ephemeral"}
_CACHEABLE = frozenset({"text", "tool_use", "tool_result"})

_FINISH = {
    "end_turn": msg.FinishReason.STOP,
    "stop_sequence": msg.FinishReason.STOP,
    "tool_use": msg.FinishReason.TOOL_CALLS,
    "max_tokens": msg.FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": msg.FinishReason.MAX_TOKENS,
    "refusal": msg.FinishReason.SAFETY,
}


class AnthropicModel(HttpChatModel):
    """A Claude model via the Messages API (``vertex=False``) or Vertex ``rawPredict``."""

    def __init__(self, *, wire_model: str, vertex: bool, **common: Any) -> None:
        super().__init__(**common)
        self._wire_model = wire_model
        self._vertex = vertex

    def build(self, request: msg.ChatRequest) -> dict[str, Any]:
        return build_request(
            request,
            model=None if self._vertex else self._wire_model,
            anthropic_version=VERTEX_VERSION if self._vertex else None,
        )

    def headers(self) -> dict[str, str] | None:
        return None if self._vertex else {"anthropic-version": API_VERSION}

    def parse(self, data: Any) -> msg.ModelResponse:
        return parse_response(data, provider=self._provider, requested_model=self._model_id)


def build_request(
    request: msg.ChatRequest, *, model: str | None, anthropic_version: str | None
) -> dict[str, Any]:
    """The Messages API request body (``model`` None and ``anthropic_version`` set for Vertex)."""
    body: dict[str, Any] = {}
    if model:
        body["model"] = model
    if anthropic_version:
        body["anthropic_version"] = anthropic_version
    body["max_tokens"] = request.max_output_tokens
    if request.system:
        body["system"] = [
            {"type": "text", "text": request.system, "cache_control": dict(_EPHEMERAL)}
        ]
    body["messages"] = _messages(request.messages)
    if request.tools:
        body["tools"] = [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": {"type": "object", **t.parameters},
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _messages(messages: Sequence[msg.Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        blocks = [b for p in message.parts if (b := _block(p)) is not None]
        if message.role == "user":
            # Anthropic wants tool_result blocks before any text in a user turn.
            blocks.sort(key=lambda b: b["type"] != "tool_result")
        if not blocks:
            continue
        if wire and wire[-1]["role"] == message.role:
            wire[-1]["content"].extend(blocks)  # roles must alternate
        else:
            wire.append({"role": message.role, "content": blocks})
    if wire and wire[-1]["content"][-1]["type"] in _CACHEABLE:
        wire[-1]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
    return wire


def _block(part: msg.Part) -> dict[str, Any] | None:
    if isinstance(part, msg.TextPart):
        # The API rejects empty text blocks.
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, msg.ToolCallPart):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.args}
    if isinstance(part, msg.ToolResultPart):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": part.call_id,
            "content": part.content,
        }
        if part.is_error:
            block["is_error"] = True
        return block
    if isinstance(part, msg.ThinkingPart):
        if part.origin != ORIGIN or not part.signature:
            return None  # another provider's reasoning, or nothing we may echo
        if part.redacted:
            return {"type": "redacted_thinking", "data": part.signature}
        return {"type": "thinking", "thinking": part.text, "signature": part.signature}
    raise TypeError(f"unexpected part {type(part).__name__}")


def parse_response(data: Any, *, provider: str, requested_model: str) -> msg.ModelResponse:
    """Convert a Messages API response body (see the module docstring for the rules)."""
    body = require_object(data, provider, "a Message object")
    content = body.get("content")
    if not isinstance(content, list):
        raise MalformedResponseError(
            f"{provider} returned a body without a content list", provider=provider
        )
    usage = _usage(as_dict(body.get("usage")))
    parts = tuple(p for block in content if (p := _parse_block(block)) is not None)
    raw = body.get("stop_reason") if isinstance(body.get("stop_reason"), str) else None
    finish = _FINISH.get(raw, msg.FinishReason.OTHER) if raw else msg.FinishReason.OTHER
    model = body.get("model") if isinstance(body.get("model"), str) else None
    ensure_answer(parts, finish, usage, provider)
    return msg.ModelResponse(parts, finish, usage, model or requested_model, raw)


def _parse_block(block: Any) -> msg.Part | None:
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
        return msg.TextPart(block["text"])
    if kind == "tool_use" and isinstance(block.get("name"), str):
        raw_id = block.get("id")
        call_id = raw_id if isinstance(raw_id, str) and raw_id else synthetic_call_id()
        args = block.get("input")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return msg.ToolCallPart(
                call_id, block["name"], {},
                arguments_error=f"arguments must be a JSON object, got {type(args).__name__}",
            )
        return msg.ToolCallPart(call_id, block["name"], args)
    if kind == "thinking":
        signature = block.get("signature") if isinstance(block.get("signature"), str) else None
        return msg.ThinkingPart(str(block.get("thinking") or ""), signature, ORIGIN)
    if kind == "redacted_thinking" and isinstance(block.get("data"), str):
        return msg.ThinkingPart("", block["data"], ORIGIN, redacted=True)
    return None


def _usage(usage: dict[str, Any]) -> msg.Usage:
    # Anthropic's input_tokens excludes cache reads and writes; ours includes them.
    read = as_int(usage.get("cache_read_input_tokens"))
    written = as_int(usage.get("cache_creation_input_tokens"))
    return msg.Usage(
        input_tokens=as_int(usage.get("input_tokens")) + read + written,
        output_tokens=as_int(usage.get("output_tokens")),
        cached_tokens=read,
        cache_write_tokens=written,
    )
