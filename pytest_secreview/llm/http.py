"""HTTP for every provider: one shared client, bounded retries, errors the loop can act on.

- One :class:`httpx.Client` per process (created lazily, recreated after a fork), explicit
  timeouts, ``User-Agent: pytest-secreview/<version>``.
- 408, 409, 429, 5xx and transport errors (including timeouts) are retried with exponential
  backoff and full jitter, honouring ``Retry-After`` (seconds or an HTTP date) and
  ``retry-after-ms``; attempts and total time are bounded by :class:`RetryPolicy`. When they
  run out the call raises :class:`ProviderUnavailableError`.
- A 401 asks the credential to refresh itself once, then retries once.
- Other 4xx raise at once with the provider's own message trimmed to about 300 characters and
  classified (tools unsupported, context too long, authentication, anything else).
- Every message is scrubbed of the credential's secret values.
"""

from __future__ import annotations

import atexit
import email.utils
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from .. import __version__
from ..backoff import Backoff
from ..logs import get_logger
from ..severity import squeeze
from .errors import (
    AuthenticationError,
    ContextLengthExceededError,
    LLMError,
    MalformedResponseError,
    ProviderRequestError,
    ProviderUnavailableError,
    ToolsUnsupportedError,
)

if TYPE_CHECKING:
    from .credential import Credential

log = get_logger("pytest_secreview.llm")

USER_AGENT = f"pytest-secreview/{__version__}"
CONNECT_TIMEOUT = 10.0
DEFAULT_TIMEOUT = 300.0
RETRYABLE_STATUSES = frozenset({408, 409, 429})
MESSAGE_LIMIT = 300

_client: httpx.Client | None = None
_client_pid: int | None = None
_client_lock = threading.Lock()


def shared_client() -> httpx.Client:
    """The process-wide httpx client (connection pooling across all models and threads)."""
    global _client, _client_pid
    with _client_lock:
        # A forked child must not share the parent's sockets.
        if _client is None or _client.is_closed or _client_pid != os.getpid():
            _client = httpx.Client(
                headers={"User-Agent": USER_AGENT},
                timeout=httpx.Timeout(DEFAULT_TIMEOUT, connect=CONNECT_TIMEOUT),
                follow_redirects=False,
            )
            _client_pid = os.getpid()
        return _client


def close_shared_client() -> None:
    """Close the shared client; the next call creates a new one."""
    global _client
    with _client_lock:
        if _client is not None:
            _client.close()
            _client = None


atexit.register(close_shared_client)


class RequestThrottle(Protocol):
    """What the retry loop needs from a throttle."""

    def request(self) -> AbstractContextManager[None]:
        """Hold a slot for one HTTP request."""
        ...

    def pause(self, seconds: float) -> None:
        """Make every process wait ``seconds`` before its next request."""
        ...


@dataclass(frozen=True)
class RetryPolicy(Backoff):
    """How transient failures of a model call are retried (see :class:`Backoff` for the delays).

    ``max_total`` bounds the whole call in seconds (requests and waits). A ``Retry-After`` from
    the server is honoured as given instead of the backoff; one beyond ``max_retry_after`` or
    beyond the remaining time budget ends the call at once. ``clock`` is injectable like
    ``sleep`` and ``jitter``.
    """

    max_total: float = 600.0
    max_retry_after: float = 120.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False, compare=False)
    #: Shared across processes: bounds requests in flight and per minute, and turns one
    #: process's 429 into a pause for all (see ``pytest_secreview.ratelimit``).
    throttle: RequestThrottle | None = field(default=None, repr=False, compare=False)


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``Retry-After``; None when absent."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def post_json(
    url: str,
    body: Mapping[str, Any],
    *,
    credential: Credential,
    provider: str,
    timeout: float,
    retry: RetryPolicy,
    headers: Mapping[str, str] | None = None,
    tools_in_request: bool = False,
) -> Any:
    """POST ``body`` as JSON and return the decoded JSON answer, retrying transient failures.

    ``provider`` labels the endpoint in error messages (for example ``"Vertex AI
    google/gemini-2.5-pro in my-project/global at https://aiplatform.googleapis.com"``);
    ``headers`` are sent in addition to the credential's;
    ``tools_in_request`` lets a 400 about tools become :class:`ToolsUnsupportedError`.
    Raises the errors of :mod:`pytest_secreview.llm.errors`.
    """
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    request_timeout = httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout))
    client = shared_client()
    start = retry.clock()
    attempt = 0
    refreshed = False
    while True:
        attempt += 1
        request_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            **(headers or {}),
            **credential.headers(),
        }
        status: int | None = None
        retry_after: float | None = None
        try:
            with retry.throttle.request() if retry.throttle else nullcontext():
                response = client.post(
                    url, content=payload, headers=request_headers, timeout=request_timeout
                )
        except httpx.TransportError as exc:
            reason = _scrub(f"{type(exc).__name__} ({_transport_detail(exc)})", credential)
        else:
            status = response.status_code
            if 200 <= status < 300:
                return _decode(response, provider, credential)
            if status == 401 and not refreshed and credential.refresh_after_unauthorized(
                request_headers
            ):
                # A token revoked or rotated early: one forced refresh, which is not counted as
                # a retry of a transient failure.
                refreshed = True
                attempt -= 1
                continue
            message = _scrub(_provider_message(response), credential)
            if status not in RETRYABLE_STATUSES and status < 500:
                raise _request_error(status, message, provider, credential, tools_in_request)
            reason = f"HTTP {status}: {message}"
            retry_after = parse_retry_after(response.headers)

        elapsed = retry.clock() - start
        if attempt >= retry.max_attempts:
            raise _unavailable(provider, reason, status, attempt, elapsed)
        if retry_after is not None and retry_after > retry.max_retry_after:
            raise _unavailable(
                provider, f"{reason}; asked to retry after {retry_after:.0f}s", status, attempt,
                elapsed,
            )
        delay = retry_after if retry_after is not None else retry.backoff(attempt - 1)
        if elapsed + delay > retry.max_total:
            raise _unavailable(provider, reason, status, attempt, elapsed)
        log.warning(
            "%s: %s; retrying in %.1fs (attempt %d of %d)",
            provider, reason, delay, attempt + 1, retry.max_attempts,
        )
        if retry.throttle is not None and (status == 429 or retry_after is not None):
            retry.throttle.pause(delay)
        retry.sleep(delay)


@contextmanager
def scrubbed(credential: Credential) -> Iterator[None]:
    """Remove the credential's secrets from any provider error raised inside the block.

    Adapters parse answers inside it: a body that echoes a key must not carry it into a message.
    """
    try:
        yield
    except LLMError as exc:
        exc.args = tuple(_scrub(a, credential) if isinstance(a, str) else a for a in exc.args)
        raise


def _decode(response: httpx.Response, provider: str, credential: Credential) -> Any:
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        snippet = _scrub(squeeze(response.text, MESSAGE_LIMIT), credential)
        raise MalformedResponseError(
            f"{provider} answered HTTP {response.status_code} with a body that is not JSON: "
            f"{snippet!r}",
            provider=provider,
        ) from None


def _provider_message(response: httpx.Response) -> str:
    """The human-readable error message from any provider's error body."""
    try:
        data: Any = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        return squeeze(response.text, MESSAGE_LIMIT) or response.reason_phrase
    # Vertex's OpenAI-compatible endpoint sometimes wraps the error in a list.
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, str):
            return squeeze(error, MESSAGE_LIMIT)
        if isinstance(error, dict):
            for key in ("message", "detail", "error"):
                if isinstance(error.get(key), str):
                    return squeeze(error[key], MESSAGE_LIMIT)
        for key in ("message", "detail"):
            if isinstance(data.get(key), str):
                return squeeze(data[key], MESSAGE_LIMIT)
    return squeeze(json.dumps(data), MESSAGE_LIMIT)


_TOOLS_UNSUPPORTED = re.compile(
    r"(does not support|doesn't support|not support(ed)?|unsupported|not enabled|not available)"
    r"[^.]{0,60}\b(tools?|function[ _]?call(ing|s)?|functions?)\b"
    r"|\b(tools?|function[ _]?call(ing|s)?)\b[^.]{0,60}"
    r"(not supported|unsupported|not enabled|not available)"
    r"|enable-auto-tool-choice",
    re.IGNORECASE,
)
_CONTEXT_TOO_LONG = re.compile(
    r"context[ _]length|context window|prompt is too long|too many (input )?tokens"
    r"|maximum number of tokens|input token count|model token limit",
    re.IGNORECASE,
)


def _request_error(
    status: int,
    message: str,
    provider: str,
    credential: Credential,
    tools_in_request: bool,
) -> ProviderRequestError:
    what = f"{provider} refused the request (HTTP {status}): {message}"
    if status in (401, 403):
        return AuthenticationError(
            f"{what}; {credential.hint}", provider=provider, status=status, provider_message=message
        )
    if status in (400, 404, 422) and tools_in_request and _TOOLS_UNSUPPORTED.search(message):
        return ToolsUnsupportedError(
            f"{what}; this model does not support native tool calling, use prompt-based tool "
            "calls instead",
            provider=provider, status=status, provider_message=message,
        )
    if status in (400, 413) and _CONTEXT_TOO_LONG.search(message):
        return ContextLengthExceededError(
            f"{what}; the prompt does not fit the model's context window",
            provider=provider, status=status, provider_message=message,
        )
    if status == 404:
        what += "; check the model name and, on Vertex AI, that it is offered in this location"
    return ProviderRequestError(what, provider=provider, status=status, provider_message=message)


def _unavailable(
    provider: str, reason: str, status: int | None, attempts: int, elapsed: float
) -> ProviderUnavailableError:
    return ProviderUnavailableError(
        f"{provider} is unavailable after {attempts} attempt(s) in {elapsed:.1f}s; last error: "
        f"{reason}. Retry later or configure a fallback model.",
        provider=provider, status=status, attempts=attempts,
    )


def _transport_detail(exc: httpx.TransportError) -> str:
    return squeeze(str(exc), MESSAGE_LIMIT) or "no detail"




def _scrub(text: str, credential: Credential) -> str:
    for secret in credential.secrets():
        if secret:
            text = text.replace(secret, "[REDACTED]")
    return text
