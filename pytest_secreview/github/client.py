"""A small GitHub REST client: the only code that talks to GitHub for comments.

- One :class:`httpx.Client` per process (the shared one of :mod:`..llm.http`), explicit
  timeouts per request, ``User-Agent: pytest-secreview/<version>``, the documented
  ``Accept`` and ``X-GitHub-Api-Version`` headers, ``Authorization: Bearer <token>``.
- ``api_url`` is configurable: ``https://api.github.com`` or a GitHub Enterprise Server's
  ``https://ghe.example/api/v3``; every path is appended to it.
- Pagination follows ``Link: rel="next"`` (same origin and API prefix only, so the token is
  never sent elsewhere), at most ``max_pages`` pages of 100.
- Rate limits: a primary limit (403/429 with ``x-ratelimit-remaining: 0``) waits until
  ``x-ratelimit-reset``; a secondary limit (403/429 with ``retry-after``, or GitHub's
  "secondary rate limit" message without it) waits as told, or a minute. All waits of one
  client share the budget ``GitHubRetry.max_wait``: a wait that would exceed it raises
  :class:`GitHubRateLimitError` at once instead of sleeping.
- 5xx answers and transport errors are retried with backoff for GET, PATCH, PUT and DELETE.
  A POST is retried only when GitHub certainly did not act on it (a rate-limit answer, a
  connection that never opened): retrying a POST after a 5xx could post a comment twice.
- Errors are :class:`GitHubError` with the status and GitHub's message trimmed; the token is
  never in a message, a repr or a log line.
- Identity (:meth:`GitHubClient.author`): the account the token writes as, asked once per
  client. Only comments by that account are ever found again or edited (the summary, the
  progress comment, inline comments): anyone can post a comment carrying our markers.
- Dry run (``dry_run_dir``): mutating requests (POST, PATCH, PUT, DELETE) are written as
  numbered JSON files (``0001-POST.json``: method, URL, non-secret headers, JSON body) and not
  sent; the answer is ``{"id": 0, "dry_run": true}``. GETs are sent when a token is present,
  so the dry run shows whether the summary comment would be edited or created and which
  inline comments already exist; without a token they are not sent and list calls return
  nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ..atomic import check_output_path, write_text_atomic
from ..backoff import Backoff
from ..errors import SecreviewError
from ..llm.http import USER_AGENT, parse_retry_after, shared_client
from ..logs import get_logger
from ..severity import squeeze

log = get_logger("pytest_secreview.github")

API_VERSION = "2022-11-28"
DEFAULT_API_URL = "https://api.github.com"
PER_PAGE = 100
MESSAGE_LIMIT = 300
_IDEMPOTENT = frozenset({"GET", "PATCH", "PUT", "DELETE", "HEAD"})
_SECONDARY = re.compile(r"secondary rate limit|abuse detection", re.IGNORECASE)
_DRY_RUN_NAME = re.compile(r"^(\d{4,})-[A-Z]+\.json$")


class GitHubError(SecreviewError):
    """A GitHub API call failed. ``status`` is None when no answer arrived."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str = "",
        path: str = "",
        github_message: str = "",
        errors: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.status = status
        self.method = method
        self.path = path
        self.github_message = github_message
        self.errors = errors

    @property
    def integration_forbidden(self) -> bool:
        """A read-only token: typically a pull request from a fork (``pull_request`` event)."""
        return self.status == 403 and "not accessible by integration" in (
            self.github_message.lower()
        )


class GitHubRateLimitError(GitHubError):
    """A rate limit would take longer to clear than the client may still wait."""


@dataclass(frozen=True)
class GitHubRetry(Backoff):
    """Retries and waits of one :class:`GitHubClient` (see :class:`Backoff` for the delays).

    ``max_attempts`` counts every try of one request (5xx, transport errors, rate limits);
    ``max_wait`` bounds the sum of all waits over the client's life, in seconds;
    ``secondary_wait`` is used for a secondary limit that sent no ``retry-after``. ``now``
    (wall-clock epoch seconds, for ``x-ratelimit-reset``) is injectable like ``sleep`` and
    ``jitter`` so tests never really wait.
    """

    max_delay: float = 20.0
    max_wait: float = 180.0
    secondary_wait: float = 60.0
    now: Callable[[], float] = field(default=time.time, repr=False, compare=False)


@dataclass(frozen=True)
class Author:
    """The account a token writes as: ``login`` and GitHub's user ``type`` (User, Bot)."""

    login: str
    type: str

    def wrote(self, item: Any) -> bool:
        """True when ``item`` (a comment as GitHub lists it) was written by this account."""
        user = item.get("user") if isinstance(item, dict) else None
        if not isinstance(user, dict):
            return False
        login, kind = user.get("login"), user.get("type")
        # GitHub logins are case-insensitive; the type tells the bot from a user named alike.
        return (isinstance(login, str) and login.lower() == self.login.lower()
                and kind == self.type)


#: Who GitHub Actions' ``GITHUB_TOKEN`` (an installation token) writes as.
ACTIONS_BOT = Author("github-actions[bot]", "Bot")
#: (API root, SHA-256 of the token) -> its account, asked once per process.
_AUTHORS: dict[tuple[str, str], Author] = {}


@dataclass(frozen=True)
class Listing:
    """Items of a paginated list; ``complete`` is False when ``max_pages`` cut it short."""

    items: list[Any]
    complete: bool = True


class GitHubClient:
    """GitHub REST calls for one token and API root. Thread-compatible, not thread-safe.

    Raises :class:`GitHubError` when ``api_url`` is not an http(s) URL.
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        token: str | None = None,
        *,
        http: httpx.Client | None = None,
        timeout: float = 30.0,
        retry: GitHubRetry | None = None,
        max_pages: int = 30,
        dry_run_dir: Path | None = None,
    ) -> None:
        api = api_url.strip().rstrip("/")
        if not re.match(r"^https?://[^/\s]+", api):
            raise GitHubError(f"GitHub api_url must be an http(s) URL, got {api_url!r}; set "
                              "GITHUB_API_URL to https://api.github.com or your GitHub "
                              "Enterprise Server's https://HOST/api/v3")
        self.api_url = api
        self._token = token or None
        self._http = http
        self._timeout = httpx.Timeout(timeout, connect=min(10.0, timeout))
        self.retry = retry or GitHubRetry()
        self.max_pages = max_pages
        self.dry_run_dir = dry_run_dir
        self.waited = 0.0
        self._author: Author | None = None

    def __repr__(self) -> str:
        token = "set" if self._token else "none"
        dry = f", dry_run_dir={str(self.dry_run_dir)!r}" if self.dry_run_dir else ""
        return f"GitHubClient({self.api_url!r}, token={token}{dry})"

    @property
    def has_token(self) -> bool:
        """True when requests are authenticated."""
        return self._token is not None

    @property
    def dry_run(self) -> bool:
        """True when mutating requests are written to files instead of sent."""
        return self.dry_run_dir is not None

    def author(self) -> Author | None:
        """The account this token writes as, found on the first call: ``GET /user`` for a
        personal or OAuth token; an installation token (GitHub Actions' ``GITHUB_TOKEN``) is
        refused there with 403 "Resource not accessible by integration" and writes as
        :data:`ACTIONS_BOT`. None in a dry run without a token (nothing is listed then).

        Raises :class:`GitHubError` when GitHub answers otherwise.
        """
        if self._author is not None:
            return self._author
        if self._token is None:
            return None
        # Once per run: the progress comment's client and the final one share the answer.
        known = (self.api_url, hashlib.sha256(self._token.encode()).hexdigest())
        self._author = _AUTHORS.get(known)
        if self._author is None:
            self._author = _AUTHORS[known] = self._ask_author()
        return self._author

    def _ask_author(self) -> Author:
        try:
            answer = self.get("/user")
        except GitHubError as exc:
            if not exc.integration_forbidden:
                raise
            return ACTIONS_BOT
        login = answer.get("login") if isinstance(answer, dict) else None
        kind = answer.get("type") if isinstance(answer, dict) else None
        if not (isinstance(login, str) and login and isinstance(kind, str)):
            raise GitHubError("GitHub GET /user answered without a login and type; the "
                              "token's own comments cannot be told from others'",
                              method="GET", path="/user")
        return Author(login, kind)

    # -- public calls ---------------------------------------------------------------------

    def request(
        self, method: str, path: str, *, json_body: Mapping[str, Any] | None = None,
        params: Mapping[str, str | int] | None = None,
    ) -> Any:
        """Send one request to ``api_url + path`` and return the decoded JSON (None if empty).

        Raises :class:`GitHubError` (or :class:`GitHubRateLimitError`).
        """
        method = method.upper()
        url = self._url(path)
        if self.dry_run and method != "GET":
            return self._record(method, url, params, json_body)
        if self.dry_run and method == "GET" and not self.has_token:
            return None
        response = self._send(method, url, params=params, json_body=json_body)
        return self._decode(method, path, response)

    def get(self, path: str, params: Mapping[str, str | int] | None = None) -> Any:
        """``GET path``."""
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """``POST path`` with a JSON body."""
        return self.request("POST", path, json_body=body)

    def patch(self, path: str, body: Mapping[str, Any]) -> Any:
        """``PATCH path`` with a JSON body."""
        return self.request("PATCH", path, json_body=body)

    def paginate(
        self, path: str, params: Mapping[str, str | int] | None = None,
        *, max_pages: int | None = None,
    ) -> Listing:
        """Every item of a list endpoint, following ``Link: rel="next"`` for at most
        ``max_pages`` pages of 100 (the client's ``max_pages`` by default)."""
        if self.dry_run and not self.has_token:
            return Listing([])
        limit = self.max_pages if max_pages is None else max_pages
        url: str | None = self._url(path)
        query: Mapping[str, str | int] | None = {**(params or {}), "per_page": PER_PAGE}
        items: list[Any] = []
        for _page in range(limit):
            assert url is not None
            response = self._send("GET", url, params=query)
            batch = self._decode("GET", path, response)
            if not isinstance(batch, list):
                raise GitHubError(
                    f"GitHub GET {path} answered with something that is not a list",
                    status=response.status_code, method="GET", path=path,
                )
            items.extend(batch)
            next_url = response.links.get("next", {}).get("url")
            if not next_url:
                return Listing(items)
            if not self._ours(next_url):
                log.warning("GitHub pagination of %s points elsewhere; not followed", path)
                return Listing(items, complete=False)
            # The next URL carries every query parameter itself.
            url, query = next_url, None
        return Listing(items, complete=False)

    # -- plumbing -------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        if not path.startswith("/"):
            path = "/" + path
        return self.api_url + path

    def _ours(self, url: str) -> bool:
        """Same scheme, host, port and API prefix: the token never leaves the API."""
        base, other = httpx.URL(self.api_url), httpx.URL(url)
        return (other.scheme, other.host, other.port) == (base.scheme, base.host, base.port) \
            and other.path.startswith(base.path.rstrip("/") + "/")

    def _headers(self, with_body: bool) -> dict[str, str]:
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
        }
        if with_body:
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _send(
        self, method: str, url: str, *, params: Mapping[str, str | int] | None = None,
        json_body: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        client = self._http if self._http is not None else shared_client()
        content = None if json_body is None else encode_body(json_body)
        path = httpx.URL(url).path
        retry = self.retry
        for attempt in range(1, retry.max_attempts + 1):
            last = attempt == retry.max_attempts
            try:
                response = client.request(
                    method, url, params=params, content=content,
                    headers=self._headers(content is not None), timeout=self._timeout,
                )
            except httpx.TransportError as exc:
                never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                reason = f"{type(exc).__name__}: {self._scrub(squeeze(str(exc), MESSAGE_LIMIT))}"
                if last or not (method in _IDEMPOTENT or never_sent):
                    raise GitHubError(
                        f"GitHub {method} {path} failed: could not reach {self.api_url} "
                        f"({reason})", method=method, path=path,
                    ) from None
                self._wait(retry.backoff(attempt - 1), method, path, reason, None)
                continue
            status = response.status_code
            if status < 400:
                return response
            message, errors = self._message(response)
            wait = self._rate_limit_wait(response, message)
            if wait is not None and not last:
                self._wait(wait, method, path, f"rate limited (HTTP {status})", response)
                continue
            if status >= 500 and method in _IDEMPOTENT and not last:
                self._wait(retry.backoff(attempt - 1), method, path, f"HTTP {status}", None)
                continue
            raise self._error(method, path, status, message, errors, wait is not None)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _rate_limit_wait(self, response: httpx.Response, message: str) -> float | None:
        """Seconds to wait for a rate limit, or None when the answer is not one."""
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        retry_after = parse_retry_after(headers, self.retry.now())
        if retry_after is not None:
            return retry_after
        if headers.get("x-ratelimit-remaining") == "0":
            try:
                reset = float(headers.get("x-ratelimit-reset", ""))
            except ValueError:
                return self.retry.secondary_wait
            # One second more: the reset time is rounded down to whole seconds.
            return max(0.0, reset - self.retry.now()) + 1.0
        if _SECONDARY.search(message):
            return self.retry.secondary_wait
        if response.status_code == 429:
            return self.retry.secondary_wait
        return None

    def _wait(self, seconds: float, method: str, path: str, reason: str,
              response: httpx.Response | None) -> None:
        if self.waited + seconds > self.retry.max_wait:
            status = response.status_code if response is not None else None
            message = self._message(response)[0] if response is not None else ""
            raise GitHubRateLimitError(
                f"GitHub {method} {path}: {reason}; it asks to wait {seconds:.0f}s, more than "
                f"the {self.retry.max_wait - self.waited:.0f}s left of this run's waiting "
                "budget. Try again later.",
                status=status, method=method, path=path, github_message=message,
            )
        log.warning("GitHub %s %s: %s; retrying in %.1fs", method, path, reason, seconds)
        self.waited += seconds
        self.retry.sleep(seconds)

    def _message(self, response: httpx.Response) -> tuple[str, tuple[str, ...]]:
        try:
            data = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            return self._scrub(squeeze(response.text, MESSAGE_LIMIT) or response.reason_phrase), ()
        if not isinstance(data, dict):
            return self._scrub(squeeze(json.dumps(data), MESSAGE_LIMIT)), ()
        message = data.get("message")
        errors = []
        for item in data.get("errors") or ():
            text = item if isinstance(item, str) else (
                item.get("message") or item.get("code") if isinstance(item, dict) else None)
            if text:
                errors.append(self._scrub(squeeze(str(text), MESSAGE_LIMIT)))
        text = message if isinstance(message, str) else json.dumps(data)
        return self._scrub(squeeze(text, MESSAGE_LIMIT)), tuple(errors[:10])

    def _error(self, method: str, path: str, status: int, message: str,
               errors: tuple[str, ...], rate_limited: bool = False) -> GitHubError:
        detail = message + (f" ({'; '.join(errors)})" if errors else "")
        hint = ""
        if status == 401:
            hint = "; the token is invalid or expired"
        elif status == 403 and "not accessible by integration" in message.lower():
            hint = ("; the token cannot write to this repository (a pull request from a fork "
                    "gets a read-only GITHUB_TOKEN)")
        elif status == 404:
            hint = "; the repository or pull request does not exist or the token cannot see it"
        if rate_limited:
            hint = "; the rate limit did not clear within the allowed attempts, try again later"
        kind = GitHubRateLimitError if rate_limited else GitHubError
        return kind(
            f"GitHub {method} {path} failed: HTTP {status}: {squeeze(detail, MESSAGE_LIMIT)}{hint}",
            status=status, method=method, path=path, github_message=message, errors=errors,
        )

    def _decode(self, method: str, path: str, response: httpx.Response) -> Any:
        if not response.content:
            return None
        try:
            return json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            raise GitHubError(
                f"GitHub {method} {path} answered HTTP {response.status_code} with a body that "
                "is not JSON", status=response.status_code, method=method, path=path,
            ) from None

    def _record(self, method: str, url: str, params: Mapping[str, str | int] | None,
                body: Mapping[str, Any] | None) -> Any:
        assert self.dry_run_dir is not None
        directory = self.dry_run_dir
        check_output_path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        # Continue the numbering of earlier runs into the same directory.
        taken = [int(m.group(1)) for p in directory.iterdir()
                 if (m := _DRY_RUN_NAME.match(p.name))]
        number = max(taken, default=0) + 1
        full_url = str(httpx.URL(url, params=params)) if params else url
        headers = {k: v for k, v in self._headers(body is not None).items()
                   if k != "Authorization"}
        record = {"method": method, "url": full_url, "headers": headers, "json": body}
        target = directory / f"{number:04d}-{method}.json"
        write_text_atomic(
            target, json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
        return {"id": 0, "dry_run": True}

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "[REDACTED]") if self._token else text


def encode_body(body: Mapping[str, Any]) -> bytes:
    """A request's JSON body exactly as it is sent (``secreview comment --dry-run`` prints
    these bytes)."""
    return json.dumps(body).encode("utf-8")


