"""The shell every wire-format adapter shares: one endpoint, one credential, the retry
policy, and the order of a call (build the body, post it, parse the answer with secrets
scrubbed from any error). Subclasses say only how to build and how to parse."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from .credential import Credential
from .http import RetryPolicy, post_json, scrubbed
from .messages import ChatRequest, ModelResponse


class HttpChatModel(ABC):
    """A :class:`~pytest_secreview.llm.base.ChatModel` behind one HTTP endpoint."""

    def __init__(
        self,
        *,
        model_id: str,
        url: str,
        credential: Credential,
        provider: str,
        timeout: float = 300.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._model_id = model_id
        self.url = url
        self._credential = credential
        self._provider = provider
        self._timeout = timeout
        self._retry = retry or RetryPolicy()

    @property
    def model_id(self) -> str:
        """The model string this object was built from."""
        return self._model_id

    @abstractmethod
    def build(self, request: ChatRequest) -> dict[str, Any]:
        """The request body in this adapter's wire format."""

    @abstractmethod
    def parse(self, data: Any) -> ModelResponse:
        """The neutral response from this adapter's wire format."""

    def headers(self) -> Mapping[str, str] | None:
        """Headers sent besides the credential's."""
        return None

    def complete(self, request: ChatRequest) -> ModelResponse:
        """Send one request and convert the answer (see ``ChatModel.complete``)."""
        data = post_json(
            self.url,
            self.build(request),
            credential=self._credential,
            provider=self._provider,
            timeout=self._timeout,
            retry=self._retry,
            headers=self.headers(),
            tools_in_request=bool(request.tools),
        )
        with scrubbed(self._credential):
            return self.parse(data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self._model_id!r}, url={self.url!r})"
