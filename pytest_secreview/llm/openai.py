"""OpenAI chat completions: OpenAI, any compatible server, and Vertex AI's ``openapi`` endpoint.

Tool calls carry their arguments as a JSON *string*. When it does not parse to an object, the
call is still returned, with ``args`` empty and ``arguments_error`` set, so the loop can answer
with an error result and let the model correct itself. ``reasoning_content`` (DeepSeek, Kimi,
vLLM reasoning parsers) and a leading ``<think>...</think>`` block are dropped: they are not
part of the answer and must not be sent back in the history.

``finish_reason`` ``stop`` becomes ``STOP`` (``TOOL_CALLS`` when tool calls are present, as some
servers say ``stop`` there), ``tool_calls``/``function_call`` ``TOOL_CALLS``, ``length``
``MAX_TOKENS``, ``content_filter`` ``SAFETY`` (and a ``refusal`` message ``SAFETY``), anything
else ``OTHER``. No choices, or a normal stop with no content, raise :class:`EmptyResponseError`;
a body that is not a JSON object (or carries an ``error`` instead of choices) raises
:class:`MalformedResponseError`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from . import messages as msg
from ._wire import as_dict, as_int, ensure_answer, require_object, synthetic_call_id
from .adapter import HttpChatModel
from .errors import EmptyResponseError, MalformedResponseError

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]

_FINISH = {
    "stop": msg.FinishReason.STOP,
    "tool_calls": msg.FinishReason.TOOL_CALLS,
    "function_call": msg.FinishReason.TOOL_CALLS,
    "length": msg.FinishReason.MAX_TOKENS,
    "content_filter": msg.FinishReason.SAFETY,
}
_THINK = re.compile(r"^\s*<think>.*?(</think>\s*|\Z)", re.DOTALL)


class OpenAIChatModel(HttpChatModel):
    """A model behind an OpenAI-compatible ``chat/completions`` endpoint at ``url``.

    ``max_tokens_field`` is ``max_completion_tokens`` for OpenAI itself (its reasoning models
    reject ``max_tokens``) and ``max_tokens`` for compatible servers, most of which only know
    the older name.
    """

    def __init__(
        self, *, wire_model: str, max_tokens_field: MaxTokensField = "max_tokens",
        **common: Any,
    ) -> None:
        super().__init__(**common)
        self._wire_model = wire_model
        self._max_tokens_field = max_tokens_field

    @property
    def max_tokens_field(self) -> MaxTokensField:
        return self._max_tokens_field

    def build(self, request: msg.ChatRequest) -> dict[str, Any]:
        return build_request(
            request, model=self._wire_model, max_tokens_field=self._max_tokens_field
        )

    def parse(self, data: Any) -> msg.ModelResponse:
        return parse_response(data, provider=self._provider, requested_model=self._model_id)


def build_request(
    request: msg.ChatRequest, *, model: str, max_tokens_field: MaxTokensField = "max_tokens"
) -> dict[str, Any]:
    """The chat completions request body."""
    wire: list[dict[str, Any]] = (
        [{"role": "system", "content": request.system}] if request.system else []
    )
    for message in request.messages:
        wire.extend(_messages(message))
    body: dict[str, Any] = {
        "model": model, "messages": wire, max_tokens_field: request.max_output_tokens
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _messages(message: msg.Message) -> list[dict[str, Any]]:
    text = "".join(p.text for p in message.parts if isinstance(p, msg.TextPart))
    if message.role == "user":
        # Tool messages must directly follow the assistant message that made the calls.
        out = [
            {
                "role": "tool",
                "tool_call_id": p.call_id,
                "content": f"Error: {p.content}" if p.is_error else p.content,
            }
            for p in message.parts
            if isinstance(p, msg.ToolResultPart)
        ]
        if text:
            out.append({"role": "user", "content": text})
        return out
    calls = [
        {
            "id": p.id,
            "type": "function",
            "function": {
                "name": p.name,
                "arguments": p.raw_arguments if p.raw_arguments is not None else json.dumps(p.args),
            },
        }
        for p in message.parts
        if isinstance(p, msg.ToolCallPart)
    ]
    if not text and not calls:
        return []  # e.g. only another provider's reasoning
    assistant: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        assistant["tool_calls"] = calls
    return [assistant]


def parse_response(data: Any, *, provider: str, requested_model: str) -> msg.ModelResponse:
    """Convert a chat completion body (see the module docstring for the rules)."""
    body = require_object(data, provider, "a chat completion object")
    usage = _usage(as_dict(body.get("usage")))
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        if "error" in body:
            raise MalformedResponseError(
                f"{provider} answered 200 with an error instead of choices: "
                f"{str(body['error'])[:300]}",
                provider=provider,
                usage=usage,
            )
        raise EmptyResponseError(f"{provider} returned no choices; retry the request",
                                 provider=provider, usage=usage)
    choice = require_object(choices[0], provider, "a choice object")
    message = as_dict(choice.get("message"))
    parts: list[msg.Part] = []
    text = _THINK.sub("", _content_text(message.get("content")), count=1)
    if text:
        parts.append(msg.TextPart(text))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal and not text:
        parts.append(msg.TextPart(refusal))
    for call in message.get("tool_calls") or []:
        parts.append(_tool_call(as_dict(call), provider))
    raw = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
    finish = _FINISH.get(raw, msg.FinishReason.OTHER) if raw else msg.FinishReason.OTHER
    if finish is msg.FinishReason.STOP and any(isinstance(p, msg.ToolCallPart) for p in parts):
        finish = msg.FinishReason.TOOL_CALLS
    if isinstance(refusal, str) and refusal:
        finish = msg.FinishReason.SAFETY
    model = body.get("model") if isinstance(body.get("model"), str) else None
    result = tuple(parts)
    ensure_answer(result, finish, usage, provider)
    return msg.ModelResponse(result, finish, usage, model or requested_model, raw)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers send content parts
        return "".join(
            p["text"] for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def _tool_call(call: dict[str, Any], provider: str) -> msg.ToolCallPart:
    function = as_dict(call.get("function"))
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedResponseError(f"{provider} returned a tool call without a function name",
                                     provider=provider)
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
    call_id = call_id or synthetic_call_id()
    raw = function.get("arguments")
    if isinstance(raw, dict):  # a few servers send an object instead of a string
        return msg.ToolCallPart(call_id, name, raw, raw_arguments=json.dumps(raw))
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return msg.ToolCallPart(call_id, name, {}, raw_arguments="{}")
    if not isinstance(raw, str):
        return msg.ToolCallPart(call_id, name, {}, raw_arguments="{}",
                            arguments_error="arguments must be a JSON object string")
    try:
        args = json.loads(raw)
    except ValueError as exc:
        problem = f"arguments are not valid JSON ({exc}): {raw[:200]!r}"
    else:
        if isinstance(args, dict):
            return msg.ToolCallPart(call_id, name, args, raw_arguments=raw)
        problem = f"arguments must be a JSON object, got {type(args).__name__}"
    # History carries "{}" rather than the broken text: several compatible servers parse the
    # arguments of past calls and would reject the whole conversation.
    return msg.ToolCallPart(call_id, name, {}, raw_arguments="{}", arguments_error=problem)


def _usage(usage: dict[str, Any]) -> msg.Usage:
    # prompt_tokens includes cached tokens (and cache writes, which OpenAI does not bill apart
    # but compatible routers such as OpenRouter report for Claude), completion_tokens includes
    # reasoning tokens.
    details = as_dict(usage.get("prompt_tokens_details"))
    return msg.Usage(
        input_tokens=as_int(usage.get("prompt_tokens")),
        output_tokens=as_int(usage.get("completion_tokens")),
        cached_tokens=as_int(details.get("cached_tokens")),
        cache_write_tokens=as_int(details.get("cache_write_tokens")),
        reasoning_tokens=as_int(
            as_dict(usage.get("completion_tokens_details")).get("reasoning_tokens")
        ),
    )
