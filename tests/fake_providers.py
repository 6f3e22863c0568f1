"""Real HTTP servers on 127.0.0.1 that stand in for model providers and token endpoints.

Each :class:`FakeServer` records every request (method, path, headers, body) and answers from a
script of :class:`Reply` objects, then from an optional ``responder`` callable. Replies can
inject faults: any status with any headers (429 + Retry-After, 5xx), a delay longer than the
client's timeout, or a raw body that is not JSON. Builders below produce documented response
bodies for each wire format (Gemini generateContent, Anthropic Messages, OpenAI chat
completions) and for OAuth/STS token endpoints.

Use :class:`FakeServers` as a fixture: ``with FakeServers() as servers: srv = servers.start()``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from pytest_secreview.llm import RetryPolicy


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it; header names are lower-cased."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None

    @property
    def form(self) -> dict[str, str]:
        return dict(parse_qsl(self.raw.decode("utf-8")))


@dataclass(frozen=True)
class Reply:
    """A scripted answer: ``json`` (or raw ``body``), ``status``, ``headers``, ``delay`` seconds."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def payload(self) -> bytes:
        if self.body is not None:
            return self.body
        return json.dumps(self.json if self.json is not None else {}).encode("utf-8")


Responder = Callable[[Recorded], Reply]


class FakeServer:
    """A threaded HTTP server on a random 127.0.0.1 port."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.requests: list[Recorded] = []
        self._script: list[Reply] = []
        self._responder = responder
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def queue(self, *replies: Reply) -> FakeServer:
        """Answer the next requests with ``replies``, in order."""
        with self._lock:
            self._script.extend(replies)
        return self

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def _answer(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._script:
                return self._script.pop(0)
        if self._responder is not None:
            return self._responder(request)
        return Reply(400, {"error": {"message": f"fake server: no scripted reply for "
                                                f"{request.method} {request.path}"}})


def _handler_for(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes; without this, Nagle's algorithm and
        # delayed ACKs add ~40 ms to every keep-alive response.
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            request = Recorded(
                method=self.command,
                path=parts.path,
                query=parts.query,
                headers={k.lower(): v for k, v in self.headers.items()},
                raw=raw,
            )
            reply = server._answer(request)
            if reply.delay:
                time.sleep(reply.delay)
            payload = reply.payload()
            try:
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        do_POST = _serve
        do_GET = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class FakeServers:
    """Starts servers on demand and stops them all on exit."""

    def __init__(self) -> None:
        self._servers: list[FakeServer] = []

    def start(self, responder: Responder | None = None) -> FakeServer:
        server = FakeServer(responder).start()
        self._servers.append(server)
        return server

    def __enter__(self) -> FakeServers:
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers:
            server.stop()


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    """Fake provider servers for one test (import this fixture into a test module)."""
    with FakeServers() as running:
        yield running


# --- response bodies, as documented by each provider ---------------------------------------


def gemini_response(
    parts: list[dict[str, Any]],
    finish: str | None = "STOP",
    *,
    usage: dict[str, int] | None = None,
    model_version: str = "gemini-2.5-pro",
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": usage or {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                   "totalTokenCount": 15},
        "modelVersion": model_version,
    }


def gemini_text(text: str, finish: str = "STOP", **kwargs: Any) -> dict[str, Any]:
    return gemini_response([{"text": text}], finish, **kwargs)


def gemini_call(name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A ``functionCall`` part; ``extra`` adds keys such as ``thoughtSignature``."""
    return {"functionCall": {"name": name, "args": args}, **extra}


def anthropic_message(
    content: list[dict[str, Any]],
    stop_reason: str | None = "end_turn",
    *,
    usage: dict[str, int] | None = None,
    model: str = "claude-sonnet-4-5-20250929",
) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 10, "output_tokens": 5},
    }


def anthropic_text(text: str, stop_reason: str = "end_turn", **kwargs: Any) -> dict[str, Any]:
    return anthropic_message([{"type": "text", "text": text}], stop_reason, **kwargs)


def anthropic_tool_use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def openai_completion(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = "stop",
    usage: dict[str, Any] | None = None,
    model: str = "gpt-4.1-2025-04-14",
    **message_extra: Any,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, **message_extra}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def openai_tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai_no_findings(usage: dict[str, Any] | None = None) -> Reply:
    """A model's final answer that reports nothing: one ``report_findings`` call with no
    finding."""
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings", json.dumps({"findings": []}))],
        finish_reason="tool_calls", usage=usage))


# --- faults ------------------------------------------------------------------------------


def rate_limited(retry_after: str = "0") -> Reply:
    return Reply(429, {"error": {"code": 429, "message": "Resource exhausted",
                                 "status": "RESOURCE_EXHAUSTED"}},
                 headers={"Retry-After": retry_after})


def server_error(status: int = 503) -> Reply:
    return Reply(status, {"error": {"code": status, "message": "The service is unavailable."}})


def not_json(status: int = 200) -> Reply:
    return Reply(status, body=b"<html>upstream proxy error</html>",
                 headers={"Content-Type": "text/html"})


def tools_unsupported() -> Reply:
    # Ollama's wording; vLLM and Vertex use similar 400s.
    return Reply(400, {"error": {"message": "registry.ollama.ai/library/gemma2:2b does not "
                                            "support tools", "type": "api_error"}})


# --- token endpoints ---------------------------------------------------------------------


class TokenIssuer:
    """A responder for OAuth 2.0 / STS token endpoints that issues numbered access tokens."""

    def __init__(self, expires_in: int = 3600, prefix: str = "ya29.fake-token") -> None:
        self.expires_in = expires_in
        self.prefix = prefix
        self.issued: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, request: Recorded) -> Reply:
        with self._lock:
            token = f"{self.prefix}-{len(self.issued) + 1}"
            self.issued.append(token)
        body: dict[str, Any] = {
            "access_token": token,
            "expires_in": self.expires_in,
            "token_type": "Bearer",
        }
        if request.form.get("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange":
            body["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token"
        return Reply(200, body)


# --- retry policies that never really sleep -----------------------------------------------


class RecordingSleep:
    """A ``sleep`` for :class:`RetryPolicy` that records the requested delays and returns."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def fast_retry(**overrides: Any) -> tuple[RetryPolicy, RecordingSleep]:
    """A retry policy with recorded (not real) sleeps and a fixed jitter of 1.0."""
    sleep = RecordingSleep()
    options: dict[str, Any] = {"base_delay": 0.01, "sleep": sleep, "jitter": lambda: 1.0}
    options.update(overrides)
    return RetryPolicy(**options), sleep
