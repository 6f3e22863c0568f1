"""A scripted OpenAI-compatible chat-completions server for the end-to-end benchmark.

Every review item gets the same three model turns, told apart by the number of messages in
the request (system prompt excluded: 1 message is turn 1, 3 are turn 2, 5 are turn 3):

1. a ``read_file`` call on the item's file (taken from the task prompt's ``File: `...` `` line),
2. a ``search_files`` call over the whole repository for the file's ``<stem>_lookup`` helper,
3. ``report_findings`` with no findings.

(``script`` changes the tool turns, e.g. ``()`` answers ``report_findings`` at once; the
benchmark uses that to split the plugin's CPU between its parts.)

Each answer is sent after ``latency`` seconds. The server is a ``ThreadingHTTPServer`` (one
thread per connection; the plugin sends one request at a time per connection, so every request
in flight has its own thread and the latency overlaps for real). It counts calls, records each
request's size and the peak number of requests in flight; nothing of the bodies is kept beyond
what the token estimate needs.

In the benchmark it runs as a thread of the benchmark process (the pytest processes under
measurement are separate). Standalone, for poking at it by hand:

    .venv/bin/python benchmarks/fake_model_server.py --latency 0.5 [--port 8765]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fake_providers import openai_completion, openai_tool_call

_FILE = re.compile(r"^File: `([^`]+)`", re.MULTILINE)
_RULE = re.compile(r"against rule `([^`]+)`")


@dataclass(frozen=True)
class Request:
    """What the server recorded about one chat-completions request."""

    turn: int
    rule: str
    path: str
    body_bytes: int  # the raw JSON body
    system_chars: int  # the system message
    message_chars: int  # every message's content (system included) and tool-call arguments
    tools_chars: int  # the tool declarations, as compact JSON
    started: float
    finished: float

    @property
    def input_chars(self) -> int:
        """What a provider bills as input: messages plus tool declarations."""
        return self.message_chars + self.tools_chars


def turn_of(messages: list[dict[str, Any]]) -> int:
    """The item's turn: 1 + the completed (assistant, tool results) rounds in the history."""
    history = sum(1 for m in messages if m.get("role") != "system")
    return (history + 1) // 2


def _content_chars(message: dict[str, Any]) -> int:
    content = message.get("content")
    chars = len(content) if isinstance(content, str) else 0
    for call in message.get("tool_calls") or []:
        chars += len(str(call.get("function", {}).get("arguments", "")))
    return chars


#: The benchmark's script: one tool per turn; the turn after the last is ``report_findings``.
SCRIPT = ("read_file", "search_files")
TURNS = len(SCRIPT) + 1


def answer(turn: int, path: str, script: tuple[str, ...] = SCRIPT) -> dict[str, Any]:
    """The scripted completion for ``turn`` of the item reviewing ``path``."""
    tool = script[turn - 1] if turn <= len(script) else "report_findings"
    if tool == "read_file":
        args: dict[str, Any] = {"path": path}
    elif tool == "search_files":
        args = {"pattern": rf"\b{Path(path).stem}_lookup\b", "glob": "*.py"}
    elif tool == "report_findings":
        args = {"findings": []}
    else:
        raise ValueError(f"no scripted arguments for {tool}")
    call = openai_tool_call(f"call_{turn}", tool, json.dumps(args))
    return openai_completion(tool_calls=[call], finish_reason="tool_calls", model="test-model")


class FakeModelServer:
    """The scripted server on a random 127.0.0.1 port; use as a context manager."""

    def __init__(self, latency: float = 0.5, port: int = 0,
                 script: tuple[str, ...] = SCRIPT) -> None:
        self.latency = latency
        self.script = script
        self._lock = threading.Lock()
        self.requests: list[Request] = []
        self.unexpected = 0  # requests past turn 3 or without a recognisable task prompt
        self.in_flight = 0
        self.peak_in_flight = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self),
                                          bind_and_activate=False)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 256  # 16 workers connecting at once must not be refused
        self._httpd.server_bind()
        self._httpd.server_activate()
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def reset(self, latency: float | None = None, script: tuple[str, ...] | None = None) -> None:
        """Forget what was recorded (and optionally change the latency or the script)."""
        with self._lock:
            self.requests = []
            self.unexpected = 0
            self.peak_in_flight = self.in_flight
            if latency is not None:
                self.latency = latency
            if script is not None:
                self.script = script

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _begin(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def _end(self, record: Request | None) -> None:
        with self._lock:
            self.in_flight -= 1
            if record is None:
                self.unexpected += 1
            else:
                self.requests.append(record)
                if record.turn > len(self.script) + 1:
                    self.unexpected += 1

    def handle(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        """Answer one request body: ``(status, JSON answer)``, after the latency."""
        started = time.monotonic()
        self._begin()
        record = None
        try:
            body = json.loads(raw)
            messages = body["messages"]
            task = next(m["content"] for m in messages if m.get("role") == "user")
            path_match, rule_match = _FILE.search(task), _RULE.search(task)
            if path_match is None or rule_match is None:
                return 400, {"error": {"message": "fake model server: no task prompt found"}}
            turn = turn_of(messages)
            reply = answer(turn, path_match.group(1), self.script)
            system = sum(len(m.get("content") or "") for m in messages
                         if m.get("role") == "system")
            chars = sum(_content_chars(m) for m in messages)
            tools = len(json.dumps(body.get("tools") or [], separators=(",", ":")))
            # Usage as chars/4, so the plugin's token and cost totals have something to add.
            reply["usage"] = {"prompt_tokens": (chars + tools) // 4, "completion_tokens": 20,
                              "total_tokens": (chars + tools) // 4 + 20}
            if self.latency:
                time.sleep(self.latency)
            record = Request(turn, rule_match.group(1), path_match.group(1), len(raw), system,
                             chars, tools, started, time.monotonic())
            return 200, reply
        except (ValueError, KeyError, TypeError, StopIteration) as exc:
            return 400, {"error": {"message": f"fake model server: bad request: {exc}"}}
        finally:
            self._end(record)


def _handler_for(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body are separate writes: without this, Nagle's algorithm and delayed
        # ACKs add ~40 ms to every keep-alive response.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            status, data = server.handle(raw)
            payload = json.dumps(data).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per answer")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with FakeModelServer(args.latency, args.port) as server:
        print(f"--secreview-model openai:test-model --secreview-api-base {server.url}",
              flush=True)
        try:
            while True:
                time.sleep(5)
                print(f"{server.calls} calls, peak {server.peak_in_flight} in flight", flush=True)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
