"""Neutral message types shared by every provider adapter.

The agent loop speaks only these types; each adapter in this package converts them to and from
one wire format. They are frozen dataclasses so a transcript cannot be mutated behind the loop's
back, and JSON-safe (strings, numbers, dicts) so they can travel on pytest reports.

Token accounting conventions (the same for every provider, whatever its wire format says):

- ``Usage.input_tokens`` counts *all* prompt tokens, including those read from or written to a
  cache; ``cached_tokens`` and ``cache_write_tokens`` are subsets of it.
- ``Usage.output_tokens`` counts *all* generated tokens, including hidden reasoning;
  ``reasoning_tokens`` is a subset of it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

Role: TypeAlias = Literal["user", "assistant"]


@dataclass(frozen=True)
class TextPart:
    """Plain text written by the user or the model."""

    text: str


@dataclass(frozen=True)
class ToolCallPart:
    """The model asks for a tool to be run.

    ``id`` links the call to its :class:`ToolResultPart`. When the provider sent arguments that
    are not a JSON object, ``args`` is empty and ``arguments_error`` says what was wrong: the loop
    should answer with a ``ToolResultPart(is_error=True)`` so the model can correct itself.
    ``raw_arguments`` keeps the provider's original argument string (OpenAI-style APIs) so the
    call can be echoed back exactly as the model wrote it.
    """

    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    arguments_error: str | None = None
    raw_arguments: str | None = None


@dataclass(frozen=True)
class ToolResultPart:
    """The result of running a tool, sent back to the model in a user message."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class ThinkingPart:
    """Model reasoning that a provider requires us to echo back verbatim.

    Only kept where an API demands it: Anthropic ``thinking`` blocks (with ``signature``) and
    ``redacted_thinking`` blocks (``redacted=True``, the opaque data in ``signature``), and
    Gemini ``thoughtSignature`` values (``text`` empty; the signature belongs to the part that
    follows it). ``origin`` names the wire format that produced it; other adapters drop it,
    because a signature is only valid for the provider that issued it.
    """

    text: str
    signature: str | None = None
    origin: str = ""
    redacted: bool = False


Part: TypeAlias = TextPart | ToolCallPart | ToolResultPart | ThinkingPart

_ASSISTANT_ONLY = (ToolCallPart, ThinkingPart)


@dataclass(frozen=True)
class Message:
    """One turn of the conversation: the user's (prompt, tool results) or the model's."""

    role: Role
    parts: tuple[Part, ...]

    def __post_init__(self) -> None:
        # Accept any iterable for convenience, store a tuple so the message stays immutable.
        if not isinstance(self.parts, tuple):
            object.__setattr__(self, "parts", tuple(self.parts))
        if self.role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', not {self.role!r}")
        for part in self.parts:
            if self.role == "user" and isinstance(part, _ASSISTANT_ONLY):
                raise ValueError(f"a user message cannot hold a {type(part).__name__}")
            if self.role == "assistant" and isinstance(part, ToolResultPart):
                raise ValueError("tool results belong in a user message")

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message holding one text part."""
        return cls("user", (TextPart(text),))

    @classmethod
    def tool_results(cls, results: Iterable[ToolResultPart]) -> Message:
        """A user message answering the model's tool calls."""
        return cls("user", tuple(results))

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model; ``parameters`` is a JSON Schema for its arguments object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    """One call to a model: what every adapter turns into its wire format.

    ``system`` is the system prompt (sent in the provider's dedicated field, cacheable where the
    provider supports it); ``tools`` may be None or empty for a plain completion;
    ``temperature`` None leaves the provider's default.
    """

    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] | None
    max_output_tokens: int
    temperature: float | None = None


@dataclass(frozen=True)
class Usage:
    """Tokens spent by one or more model calls (see the module docstring for what counts)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class FinishReason(enum.StrEnum):
    """Why the model stopped, normalised across providers.

    The loop decides what to do with each; none of them means "no findings":

    - ``STOP``: the model finished its answer.
    - ``TOOL_CALLS``: the model wants tools run (its parts hold :class:`ToolCallPart`).
    - ``MAX_TOKENS``: the answer was cut off at the output limit (or the context window).
    - ``SAFETY``: the provider's safety filter blocked the prompt or the answer, or the
      model refused.
    - ``RECITATION``: blocked for reciting training data.
    - ``MALFORMED_TOOL_CALL``: the model tried to call a tool but produced an unparsable call.
    - ``OTHER``: anything else, including reasons this version does not know;
      ``ModelResponse.raw_finish_reason`` holds the provider's own word.
    """

    STOP = "stop"
    TOOL_CALLS = "tool_calls"
    MAX_TOKENS = "max_tokens"
    SAFETY = "safety"
    RECITATION = "recitation"
    MALFORMED_TOOL_CALL = "malformed_tool_call"
    OTHER = "other"


@dataclass(frozen=True)
class ModelResponse:
    """One answer from a model, converted from the provider's wire format.

    ``model`` is the model that answered as the provider reported it (or the requested id when
    it did not say). ``raw_finish_reason`` is the provider's own finish/stop reason string.
    """

    parts: tuple[Part, ...]
    finish_reason: FinishReason
    usage: Usage
    model: str
    raw_finish_reason: str | None = None

    @property
    def text(self) -> str:
        """The concatenated text parts (reasoning excluded)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    @property
    def message(self) -> Message:
        """The answer as an assistant message, ready to append to the conversation."""
        return Message("assistant", self.parts)
