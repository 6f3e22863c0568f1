"""Small helpers shared by the wire-format adapters."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from .errors import EmptyResponseError, MalformedResponseError
from .messages import FinishReason, Part, TextPart, ToolCallPart, Usage

# Tool-call ids we invent for providers that do not send one (Gemini often does not). The
# prefix lets the Gemini adapter avoid echoing an id the provider never issued.
SYNTHETIC_ID_PREFIX = "srcall_"


def synthetic_call_id() -> str:
    return SYNTHETIC_ID_PREFIX + uuid.uuid4().hex[:16]


def as_int(value: Any) -> int:
    """A token count from wire JSON: absent, null or garbage counts as 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float):
        return max(0, int(value))
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def require_object(data: Any, provider: str, what: str) -> dict[str, Any]:
    """``data`` when it is a JSON object, else a :class:`MalformedResponseError`."""
    if not isinstance(data, dict):
        raise MalformedResponseError(
            f"{provider} returned {type(data).__name__} where {what} was expected",
            provider=provider,
        )
    return data


def join_url(base: str, path: str, *, version_prefix: str = "") -> str:
    """``base`` + ``path``; ``version_prefix`` (``/v1``) is added only when ``base`` has no path.

    Follows the SDK convention that a base URL with a path (``http://localhost:11434/v1``,
    ``https://proxy/openai``) already includes the API version, while a bare host does not.
    """
    base = base.rstrip("/")
    if version_prefix and not urlsplit(base).path.strip("/"):
        path = version_prefix + path
    return base + path


def ensure_answer(
    parts: tuple[Part, ...],
    finish: FinishReason,
    usage: Usage,
    provider: str,
) -> None:
    """Refuse a normal stop with neither text nor tool calls: it must not read as an answer."""
    has_content = any(
        (isinstance(p, TextPart) and p.text.strip()) or isinstance(p, ToolCallPart) for p in parts
    )
    if finish in (FinishReason.STOP, FinishReason.TOOL_CALLS) and not has_content:
        raise EmptyResponseError(
            f"{provider} finished normally but returned no text and no tool calls; retry the "
            "request, or switch models if this repeats",
            provider=provider,
            usage=usage,
        )
