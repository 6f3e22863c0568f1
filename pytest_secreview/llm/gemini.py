"""Gemini ``generateContent``: Vertex AI and the Gemini Developer API share this wire format.

Request: ``systemInstruction``, ``contents`` with roles ``user``/``model``, ``functionCall`` /
``functionResponse`` parts, ``tools[].functionDeclarations`` and ``generationConfig``.

Answers are converted as follows (nothing is ever an empty successful answer):

- ``thought`` parts (reasoning summaries) are dropped; a ``thoughtSignature`` is kept as a
  :class:`ThinkingPart` in front of the part that carried it and echoed back on that part,
  which Gemini 3 requires during function calling.
- ``finishReason`` ``STOP`` with function calls becomes ``TOOL_CALLS``; ``MAX_TOKENS``;
  ``SAFETY``/``BLOCKLIST``/``PROHIBITED_CONTENT``/``SPII``/``IMAGE_SAFETY`` become ``SAFETY``;
  ``RECITATION``; ``MALFORMED_FUNCTION_CALL``/``UNEXPECTED_TOOL_CALL`` become
  ``MALFORMED_TOOL_CALL``; anything else ``OTHER`` (raw value kept).
- No candidates with ``promptFeedback.blockReason``: a response with ``SAFETY`` and raw reason
  ``PROMPT_BLOCKED:<reason>``. No candidates otherwise, or ``STOP`` with no content:
  :class:`EmptyResponseError`. A body that is not a JSON object: :class:`MalformedResponseError`.
"""

from __future__ import annotations

from typing import Any

from . import messages as msg
from ._wire import (
    SYNTHETIC_ID_PREFIX,
    as_dict,
    as_int,
    ensure_answer,
    require_object,
    synthetic_call_id,
)
from .adapter import HttpChatModel
from .errors import EmptyResponseError, MalformedResponseError
from .gemini_schema import to_gemini_schema

ORIGIN = "gemini"

_FINISH = {
    "STOP": msg.FinishReason.STOP,
    "MAX_TOKENS": msg.FinishReason.MAX_TOKENS,
    "SAFETY": msg.FinishReason.SAFETY,
    "BLOCKLIST": msg.FinishReason.SAFETY,
    "PROHIBITED_CONTENT": msg.FinishReason.SAFETY,
    "SPII": msg.FinishReason.SAFETY,
    "IMAGE_SAFETY": msg.FinishReason.SAFETY,
    "IMAGE_PROHIBITED_CONTENT": msg.FinishReason.SAFETY,
    "RECITATION": msg.FinishReason.RECITATION,
    "IMAGE_RECITATION": msg.FinishReason.RECITATION,
    "MALFORMED_FUNCTION_CALL": msg.FinishReason.MALFORMED_TOOL_CALL,
    "UNEXPECTED_TOOL_CALL": msg.FinishReason.MALFORMED_TOOL_CALL,
}


class GeminiModel(HttpChatModel):
    """A Gemini model reached through ``generateContent`` at ``url``."""

    def build(self, request: msg.ChatRequest) -> dict[str, Any]:
        return build_request(request)

    def parse(self, data: Any) -> msg.ModelResponse:
        return parse_response(data, provider=self._provider, requested_model=self._model_id)


def build_request(request: msg.ChatRequest) -> dict[str, Any]:
    """The ``generateContent`` request body."""
    body: dict[str, Any] = {"contents": [c for m in request.messages if (c := _content(m))]}
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": [_declaration(t) for t in request.tools]}]
    config: dict[str, Any] = {"maxOutputTokens": request.max_output_tokens}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    body["generationConfig"] = config
    return body


def _declaration(tool: msg.ToolSpec) -> dict[str, Any]:
    declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
    # Gemini rejects an OBJECT schema without properties; a tool without arguments omits it.
    if tool.parameters.get("properties"):
        declaration["parameters"] = to_gemini_schema(tool.parameters)
    return declaration


def _content(message: msg.Message) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    signature: str | None = None
    for part in message.parts:
        if isinstance(part, msg.ThinkingPart):
            if part.origin == ORIGIN and part.signature:
                if signature:
                    parts.append({"text": "", "thoughtSignature": signature})
                signature = part.signature
            continue
        wire = _part(part)
        if signature:
            wire["thoughtSignature"] = signature
            signature = None
        parts.append(wire)
    if signature:
        parts.append({"text": "", "thoughtSignature": signature})
    if not parts:
        return None  # Gemini rejects a content without parts
    return {"role": "model" if message.role == "assistant" else "user", "parts": parts}


def _part(part: msg.Part) -> dict[str, Any]:
    if isinstance(part, msg.TextPart):
        return {"text": part.text}
    if isinstance(part, msg.ToolCallPart):
        call: dict[str, Any] = {"name": part.name, "args": part.args}
        if not part.id.startswith(SYNTHETIC_ID_PREFIX):
            call["id"] = part.id
        return {"functionCall": call}
    if isinstance(part, msg.ToolResultPart):
        key = "error" if part.is_error else "output"
        result: dict[str, Any] = {"name": part.name, "response": {key: part.content}}
        if not part.call_id.startswith(SYNTHETIC_ID_PREFIX):
            result["id"] = part.call_id
        return {"functionResponse": result}
    raise TypeError(f"unexpected part {type(part).__name__}")


def parse_response(data: Any, *, provider: str, requested_model: str) -> msg.ModelResponse:
    """Convert a ``GenerateContentResponse`` body (see the module docstring for the rules)."""
    body = require_object(data, provider, "a GenerateContentResponse object")
    usage = _usage(as_dict(body.get("usageMetadata")))
    model = body.get("modelVersion") if isinstance(body.get("modelVersion"), str) else None
    model = model or requested_model
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        block = as_dict(body.get("promptFeedback")).get("blockReason")
        if block:
            return msg.ModelResponse((), msg.FinishReason.SAFETY, usage, model,
                                     f"PROMPT_BLOCKED:{block}")
        raise EmptyResponseError(
            f"{provider} returned no candidates and no block reason; retry the request",
            provider=provider,
            usage=usage,
        )
    candidate = require_object(candidates[0], provider, "a candidate object")
    raw = candidate.get("finishReason")
    raw = raw if isinstance(raw, str) else None
    parts = _parse_parts(as_dict(candidate.get("content")).get("parts"), provider)
    finish = _FINISH.get(raw, msg.FinishReason.OTHER) if raw else msg.FinishReason.OTHER
    if finish is msg.FinishReason.STOP and any(isinstance(p, msg.ToolCallPart) for p in parts):
        finish = msg.FinishReason.TOOL_CALLS
    ensure_answer(parts, finish, usage, provider)
    return msg.ModelResponse(parts, finish, usage, model, raw)


def _parse_parts(raw_parts: Any, provider: str) -> tuple[msg.Part, ...]:
    if raw_parts is None:
        return ()
    if not isinstance(raw_parts, list):
        raise MalformedResponseError(f"{provider} returned content.parts that is not a list",
                                     provider=provider)
    out: list[msg.Part] = []
    for raw in raw_parts:
        if not isinstance(raw, dict):
            continue
        signature = raw.get("thoughtSignature")
        if isinstance(signature, str) and signature:
            out.append(msg.ThinkingPart("", signature, ORIGIN))
        if raw.get("thought"):
            continue  # a reasoning summary: not part of the answer
        if "functionCall" in raw:
            out.append(_tool_call(as_dict(raw["functionCall"]), provider))
        elif isinstance(raw.get("text"), str) and raw["text"]:
            out.append(msg.TextPart(raw["text"]))
    return tuple(out)


def _tool_call(call: dict[str, Any], provider: str) -> msg.ToolCallPart:
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedResponseError(f"{provider} returned a functionCall without a name",
                                     provider=provider)
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
    args = call.get("args")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return msg.ToolCallPart(
            call_id or synthetic_call_id(), name, {},
            arguments_error=f"arguments must be a JSON object, got {type(args).__name__}",
        )
    return msg.ToolCallPart(call_id or synthetic_call_id(), name, args)


def _usage(meta: dict[str, Any]) -> msg.Usage:
    # promptTokenCount already includes cached tokens; thoughts are billed as output but
    # reported apart from candidatesTokenCount.
    thoughts = as_int(meta.get("thoughtsTokenCount"))
    return msg.Usage(
        input_tokens=as_int(meta.get("promptTokenCount"))
        + as_int(meta.get("toolUsePromptTokenCount")),
        output_tokens=as_int(meta.get("candidatesTokenCount")) + thoughts,
        cached_tokens=as_int(meta.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
    )
