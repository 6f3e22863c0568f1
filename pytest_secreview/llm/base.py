"""The model interface the agent loop programs against, and the settings that build models."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from .messages import ChatRequest, ModelResponse
from .pricing import Price


@runtime_checkable
class ChatModel(Protocol):
    """A chat model behind one wire format.

    Implementations are thread-safe and hold no conversation state: the caller passes the whole
    conversation on every call. ``complete`` either returns a :class:`ModelResponse` (whose
    ``finish_reason`` the caller must check: a response cut off or blocked is still a response)
    or raises one of the errors in :mod:`pytest_secreview.llm.errors`.
    """

    @property
    def model_id(self) -> str:
        """The model string this object was built from, e.g. ``google/gemini-2.5-pro``."""
        ...

    def complete(self, request: ChatRequest) -> ModelResponse:
        """Send one request (see :class:`~pytest_secreview.llm.messages.ChatRequest`) and
        convert the answer."""
        ...


@dataclass(frozen=True)
class LLMSettings:
    """Everything needed to turn a model string into a :class:`ChatModel`.

    Built once by the options layer from ``--secreview-*`` flags, ``secreview_*`` ini keys and
    ``SECREVIEW_*`` environment variables; values here win over the provider environment
    variables read by :func:`~pytest_secreview.llm.routing.resolve_model`.

    Attributes:
        model: the model string (``google/gemini-2.5-pro``, ``openai:gpt-4.1``,
            ``anthropic:claude-sonnet-4-5``, ``gemini:gemini-2.5-flash``); None means no model,
            deterministic rules only.
        fallback_model: a second model string to switch to when the first raises
            :class:`~pytest_secreview.llm.errors.ProviderUnavailableError`.
        api_base: replaces the provider's base URL on every route (a proxy, a private endpoint,
            a local test server). Only scheme, host, port and an optional path prefix: the route
            still appends its own path.
        api_key: overrides the provider's API key variable (``OPENAI_API_KEY``,
            ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``). Not used for Vertex AI.
        access_token: a bearer token for Vertex AI; when unset, Application Default
            Credentials are used.
        project: the Google Cloud project for Vertex AI (else ``GOOGLE_CLOUD_PROJECT``).
        location: the Vertex AI location (else ``GOOGLE_CLOUD_LOCATION``, else ``global``);
            ``us`` and ``eu`` select the multi-region endpoints.
        timeout: seconds allowed for one HTTP request (connecting is capped at 10 s).
        max_attempts: HTTP attempts per model call, including the first.
        max_output_tokens: the default output limit the loop passes to ``complete``. On Gemini
            2.5 thinking models, reasoning counts against this limit.
        temperature: sampling temperature; None leaves the provider default.
        prices: price overrides by model-id prefix, see :mod:`pytest_secreview.llm.pricing`.
    """

    model: str | None = None
    fallback_model: str | None = None
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    access_token: str | None = field(default=None, repr=False)
    project: str | None = None
    location: str | None = None
    timeout: float = 300.0
    max_attempts: int = 4
    max_output_tokens: int = 4096
    temperature: float | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)
