"""The provider layer: neutral messages, one adapter per wire format, HTTP/retry, auth, prices.

Typical use by the agent loop::

    model = resolve_model(settings.model, settings, os.environ)
    response = model.complete(ChatRequest(system, messages, tools,
                                          max_output_tokens=settings.max_output_tokens,
                                          temperature=settings.temperature))

See :mod:`.routing` for the model strings, :mod:`.errors` for what can go wrong and
:class:`FinishReason` for how an answer can end.

How a call ends, on every route (each adapter's docstring has its provider's details):

- a :class:`ModelResponse` whose ``finish_reason`` the loop must check: ``STOP`` and
  ``TOOL_CALLS`` are answers; ``MAX_TOKENS`` (truncated, parts may be partial), ``SAFETY``
  (blocked prompt or answer, or a refusal), ``RECITATION``, ``MALFORMED_TOOL_CALL`` and
  ``OTHER`` (unknown reasons, raw value in ``raw_finish_reason``) are responses the loop
  decides about; a tool call whose arguments were not a JSON object carries
  ``arguments_error`` instead of raising;
- or an error from :mod:`.errors`: a normal stop with no text and no tool calls, or no
  candidates/choices at all, is :class:`EmptyResponseError`; a body that is not the documented
  JSON is :class:`MalformedResponseError`. An empty answer is never returned as a success, so it
  cannot be mistaken for "no findings".
"""

from __future__ import annotations

from .base import ChatModel, LLMSettings
from .errors import (
    AuthenticationError,
    ContextLengthExceededError,
    EmptyResponseError,
    LLMError,
    MalformedResponseError,
    ProviderRequestError,
    ProviderUnavailableError,
    ToolsUnsupportedError,
)
from .http import RetryPolicy
from .messages import (
    ChatRequest,
    FinishReason,
    Message,
    ModelResponse,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
)
from .pricing import Price, estimate_cost, lookup_price, price_from_mapping
from .routing import parse_model, resolve_model

__all__ = [
    "AuthenticationError",
    "ChatModel",
    "ChatRequest",
    "ContextLengthExceededError",
    "EmptyResponseError",
    "FinishReason",
    "LLMError",
    "LLMSettings",
    "MalformedResponseError",
    "Message",
    "ModelResponse",
    "Part",
    "Price",
    "ProviderRequestError",
    "ProviderUnavailableError",
    "RetryPolicy",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResultPart",
    "ToolSpec",
    "ToolsUnsupportedError",
    "Usage",
    "estimate_cost",
    "lookup_price",
    "parse_model",
    "price_from_mapping",
    "resolve_model",
]
