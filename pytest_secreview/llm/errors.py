"""Provider errors: what the agent loop must tell apart.

All derive from :class:`pytest_secreview.errors.ProviderError`, so an item whose model broke
ends as a pytest *error*. Messages never carry a credential; they name the environment
variable to check instead. ``usage`` is set when the provider billed tokens before the
failure, so cost accounting stays honest on failure paths too.

=============================== =================================================================
error                           what the loop should do
=============================== =================================================================
ToolsUnsupportedError           switch to prompt-based tool calls (then single-shot)
ProviderUnavailableError        provider down or rate limited after retries: try the fallback model
ContextLengthExceededError      the prompt is too long: shrink it, or give up on the item
EmptyResponseError              the model said nothing: retry once, then error the item
MalformedResponseError          the body was not the documented format: error the item
AuthenticationError             credentials missing, rejected or lacking permission: error
ProviderRequestError            any other refused request (bad model name, bad parameter): error
=============================== =================================================================
"""

from __future__ import annotations

from ..errors import ProviderError
from .messages import Usage


class LLMError(ProviderError):
    """Base of the provider-layer errors; ``provider`` names the endpoint that failed."""

    def __init__(self, message: str, *, provider: str = "", usage: Usage | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.usage = usage


class ProviderRequestError(LLMError):
    """The provider refused the request with a 4xx status that retrying will not fix."""

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        provider_message: str = "",
    ) -> None:
        super().__init__(message, provider=provider)
        self.status = status
        self.provider_message = provider_message


class ToolsUnsupportedError(ProviderRequestError):
    """The model or server does not support native tool (function) calling."""


class ContextLengthExceededError(ProviderRequestError):
    """The request does not fit in the model's context window."""


class AuthenticationError(ProviderRequestError):
    """Credentials are missing, invalid, expired beyond refresh, or lack permission."""


class ProviderUnavailableError(LLMError):
    """The provider stayed unavailable (429, 5xx, timeouts, connection errors) after retries.

    The caller may switch to the fallback model.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        attempts: int = 0,
    ) -> None:
        super().__init__(message, provider=provider)
        self.status = status
        self.attempts = attempts


class MalformedResponseError(LLMError):
    """The provider answered 2xx but the body is not valid JSON of the documented shape."""


class EmptyResponseError(LLMError):
    """The model finished normally but returned neither text nor tool calls.

    Never treated as an answer: an empty reply must not read as "no findings".
    """
