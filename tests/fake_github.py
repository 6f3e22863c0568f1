"""A real fake of the GitHub REST API on 127.0.0.1, for the comment writer's tests.

It serves the endpoints pytest-secreview uses, with GitHub's documented shapes:

- ``GET/POST /repos/{o}/{r}/issues/{n}/comments`` and ``PATCH /repos/{o}/{r}/issues/comments/{id}``
- ``POST /repos/{o}/{r}/pulls/{n}/reviews`` (stores each comment as a review comment)
- ``GET /repos/{o}/{r}/pulls/{n}/comments`` and ``GET /repos/{o}/{r}/pulls/{n}/files``
- ``POST /repos/{o}/{r}/pulls/{n}/comments/{id}/replies`` (a reply in a review thread) and
  ``GET /repos/{o}/{r}/collaborators/{login}/permission`` (from ``permissions``; 404 for a
  login that is not a collaborator)
- ``GET /user``: the token's own account when ``login`` is set (a personal access token);
  without it the token is an installation token like GitHub Actions' ``GITHUB_TOKEN``, which
  GitHub answers with 403 "Resource not accessible by integration". What the token writes is
  authored by ``login`` (type User), else by ``github-actions[bot]`` (type Bot).

Lists are paginated like GitHub (``per_page`` default 30, at most 100, ``page``) with ``Link``
headers (``next``, ``last``, ``first``, ``prev``). Every request must carry
``Authorization: Bearer <token>`` (401 otherwise). Bodies are validated: required keys and
their types, unknown top-level keys rejected with 422, a review comment's line must be on the
right side of the file's diff ("Line could not be resolved"), bodies at most 65,536 characters.

Faults (:meth:`FakeGitHub.fault`): a primary rate limit (403, ``x-ratelimit-remaining: 0``,
``x-ratelimit-reset``), a secondary one (403 with ``retry-after``, or with only the message),
5xx answers, an error that echoes the Authorization header (a careless proxy); ``read_only``
answers every write with 403 "Resource not accessible by integration" like a fork's token;
``reject_lines`` refuses review comments at given (path, line) with 422.

The oracle for diff lines is written here independently of the code under test.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pytest_secreview.core.severity import Severity
from pytest_secreview.github.client import GitHubClient, GitHubRetry
from pytest_secreview.reporting.model import FindingReport, ItemReport, Report, RuleReport, Usage

MAX_BODY = 65_536
Answer = tuple[int, Any, dict[str, str]]


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it (header names lower-cased; ``path`` without query)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None


@dataclass
class Fault:
    """Answer the next ``times`` matching requests with a fault instead of serving them."""

    kind: str  # primary | secondary | secondary-message | 5xx | echo-auth
    times: int = 1
    method: str | None = None
    path_contains: str | None = None
    status: int = 403
    retry_after: int = 7
    reset_at: int = 0


class _Reply(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


def _unprocessable(*errors: str) -> _Reply:
    return _Reply(422, {"message": "Unprocessable Entity", "errors": list(errors),
                        "documentation_url": "https://docs.github.com/rest"})


def _right_side(patch: str) -> set[int]:
    found: set[int] = set()
    line = 0
    in_hunk = False
    for text in patch.splitlines():
        header = re.match(r"@@ -\d+(,\d+)? \+(\d+)(,\d+)? @@", text)
        if header:
            line, in_hunk = int(header.group(2)), True
            continue
        if not in_hunk or text.startswith(("-", "\\")):
            continue
        found.add(line)
        line += 1
    return found


@dataclass
class FakeGitHub:
    """The fake server. Use as a context manager; ``api_url`` is what the client needs."""

    token: str
    repository: str = "octo/repo"
    number: int = 7
    head_sha: str = "c0ffee" + "0" * 34
    prefix: str = ""
    read_only: bool = False
    reject_lines: set[tuple[str, int]] = field(default_factory=set)
    files: dict[str, str | None] = field(default_factory=dict)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    #: login -> permission (admin, write, read, none) for the collaborator permission endpoint
    permissions: dict[str, str] = field(default_factory=dict)
    #: the token's own login (a personal access token); None: GitHub Actions' bot token
    login: str | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._next_id = 1000
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    # -- lifecycle ----------------------------------------------------------------------

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def origin(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def api_url(self) -> str:
        return self.origin + self.prefix

    # -- setup helpers ------------------------------------------------------------------

    def new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    def add_issue_comment(self, body: str, *, login: str = "someone",
                          user_type: str = "User") -> dict[str, Any]:
        comment = {
            "id": self.new_id(), "node_id": "IC_x", "body": body,
            "user": {"login": login, "type": user_type},
            "html_url": f"https://github.com/{self.repository}/pull/{self.number}"
                        f"#issuecomment-{self._next_id}",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        }
        self.issue_comments.append(comment)
        return comment

    @property
    def author(self) -> dict[str, str]:
        """The ``user`` of what the token writes."""
        if self.login is not None:
            return {"login": self.login, "type": "User"}
        return {"login": "github-actions[bot]", "type": "Bot"}

    def fault(self, kind: str, **options: Any) -> Fault:
        item = Fault(kind, **options)
        self.faults.append(item)
        return item

    def summary_comments(self) -> list[dict[str, Any]]:
        marker = "<!-- pytest-secreview:summary -->"
        return [c for c in self.issue_comments if c["body"].startswith(marker)]

    def calls(self, method: str, contains: str = "") -> list[Recorded]:
        return [r for r in self.requests if r.method == method and contains in r.path]

    # -- serving ------------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw: bytes,
               ) -> Answer:
        split = urlsplit(raw_path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        self.requests.append(Recorded(method, split.path, query, headers, raw))
        try:
            self._check_auth(headers)
            self._inject_fault(method, split.path, headers)
            path = split.path
            if not path.startswith(self.prefix + "/"):
                raise _Reply(404, {"message": "Not Found"})
            return self._route(method, path[len(self.prefix):], query, headers, raw)
        except _Reply as reply:
            return reply.status, reply.body, reply.headers

    def _check_auth(self, headers: dict[str, str]) -> None:
        if headers.get("authorization") != f"Bearer {self.token}":
            raise _Reply(401, {"message": "Bad credentials",
                               "documentation_url": "https://docs.github.com/rest"})

    def _inject_fault(self, method: str, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            fault = next((f for f in self.faults if f.times > 0
                          and (f.method is None or f.method == method)
                          and (f.path_contains is None or f.path_contains in path)), None)
            if fault is None:
                return
            fault.times -= 1
        if fault.kind == "primary":
            raise _Reply(fault.status, {
                "message": "API rate limit exceeded for installation ID 1.",
                "documentation_url": "https://docs.github.com/rest/rate-limit"},
                {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0",
                 "x-ratelimit-used": "5000", "x-ratelimit-reset": str(fault.reset_at),
                 "x-ratelimit-resource": "core"})
        secondary = {"message": "You have exceeded a secondary rate limit. Please wait a few "
                                "minutes before you try again."}
        if fault.kind == "secondary":
            raise _Reply(fault.status, secondary, {"retry-after": str(fault.retry_after)})
        if fault.kind == "secondary-message":
            raise _Reply(fault.status, secondary)
        if fault.kind == "5xx":
            raise _Reply(fault.status if fault.status >= 500 else 502,
                         {"message": "Server Error"})
        if fault.kind == "echo-auth":
            raise _Reply(400, {"message": f"bad request with {headers.get('authorization')}"})
        raise AssertionError(f"unknown fault {fault.kind}")

    def _route(self, method: str, path: str, query: dict[str, str], headers: dict[str, str],
               raw: bytes) -> Answer:
        if path == "/user" and method == "GET":
            if self.login is None:
                raise _Reply(403, {"message": "Resource not accessible by integration",
                                   "documentation_url": "https://docs.github.com/rest"})
            return 200, {"login": self.login, "id": 1, "type": "User"}, {}
        repo = re.escape(self.repository)
        permission = re.fullmatch(rf"/repos/{repo}/collaborators/([^/]+)/permission", path)
        if permission and method == "GET":
            return self._permission(permission.group(1))
        reply = re.fullmatch(rf"/repos/{repo}/pulls/(\d+)/comments/(\d+)/replies", path)
        if reply and method == "POST":
            if self.read_only:
                raise _Reply(403, {"message": "Resource not accessible by integration"})
            return self._create_reply(int(reply.group(1)), int(reply.group(2)), raw)
        routes = [
            ("GET", rf"/repos/{repo}/issues/(\d+)/comments", self._list_issue_comments),
            ("POST", rf"/repos/{repo}/issues/(\d+)/comments", self._create_issue_comment),
            ("PATCH", rf"/repos/{repo}/issues/comments/(\d+)", self._update_issue_comment),
            ("POST", rf"/repos/{repo}/pulls/(\d+)/reviews", self._create_review),
            ("GET", rf"/repos/{repo}/pulls/(\d+)/comments", self._list_review_comments),
            ("GET", rf"/repos/{repo}/pulls/(\d+)/files", self._list_files),
        ]
        for verb, pattern, handler in routes:
            match = re.fullmatch(pattern, path)
            if match and verb == method:
                if verb != "GET" and self.read_only:
                    raise _Reply(403, {
                        "message": "Resource not accessible by integration",
                        "documentation_url": "https://docs.github.com/rest"})
                number = int(match.group(1))
                return handler(number, query, headers, raw)
        raise _Reply(404, {"message": "Not Found"})

    # -- endpoint handlers --------------------------------------------------------------

    def _pr(self, number: int) -> None:
        if number != self.number:
            raise _Reply(404, {"message": "Not Found"})

    def _body(self, raw: bytes, allowed: set[str], required: set[str]) -> dict[str, Any]:
        try:
            data = json.loads(raw)
        except ValueError:
            raise _Reply(400, {"message": "Problems parsing JSON"}) from None
        if not isinstance(data, dict):
            raise _Reply(400, {"message": "Body should be a JSON object"})
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise _unprocessable(f'"{unknown[0]}" is not a permitted key.')
        missing = sorted(required - set(data))
        if missing:
            raise _unprocessable(f'"{missing[0]}" wasn\'t supplied.')
        return data

    @staticmethod
    def _text(value: Any, name: str) -> str:
        if not isinstance(value, str):
            raise _unprocessable(f"For '{name}', {value!r} is not a string.")
        if len(value) > MAX_BODY:
            raise _unprocessable(f"Body is too long (maximum is {MAX_BODY} characters)")
        return value

    def _page(self, items: list[dict[str, Any]], path: str, query: dict[str, str],
              headers: dict[str, str]) -> Answer:
        per_page = min(100, max(1, int(query.get("per_page", "30"))))
        page = max(1, int(query.get("page", "1")))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        base = f"http://{headers.get('host', '127.0.0.1')}{path}"
        links = []

        def link(target: int, rel: str) -> str:
            return f'<{base}?per_page={per_page}&page={target}>; rel="{rel}"'

        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        return 200, chunk, ({"link": ", ".join(links)} if links else {})

    def _list_issue_comments(self, number: int, query: dict[str, str],
                             headers: dict[str, str], _raw: bytes) -> Answer:
        self._pr(number)
        with self._lock:
            items = list(self.issue_comments)
        return self._page(items, self._path("issues", number, "comments"), query, headers)

    def _create_issue_comment(self, number: int, _query: dict[str, str],
                              _headers: dict[str, str], raw: bytes) -> Answer:
        self._pr(number)
        data = self._body(raw, {"body"}, {"body"})
        author = self.author
        comment = self.add_issue_comment(self._text(data["body"], "body"),
                                         login=author["login"], user_type=author["type"])
        return 201, comment, {}

    def _update_issue_comment(self, comment_id: int, _query: dict[str, str],
                              _headers: dict[str, str], raw: bytes) -> Answer:
        data = self._body(raw, {"body"}, {"body"})
        body = self._text(data["body"], "body")
        with self._lock:
            for comment in self.issue_comments:
                if comment["id"] == comment_id:
                    comment["body"] = body
                    comment["updated_at"] = "2026-01-02T00:00:00Z"
                    return 200, comment, {}
        raise _Reply(404, {"message": "Not Found"})

    def _create_review(self, number: int, _query: dict[str, str], _headers: dict[str, str],
                       raw: bytes) -> Answer:
        self._pr(number)
        data = self._body(raw, {"commit_id", "body", "event", "comments"}, set())
        event = data.get("event")
        if event is not None and event not in ("APPROVE", "REQUEST_CHANGES", "COMMENT"):
            raise _unprocessable(f"event {event!r} is not one of APPROVE, REQUEST_CHANGES, COMMENT")
        if event in ("REQUEST_CHANGES", "COMMENT") and not data.get("body"):
            raise _unprocessable("Body is required for COMMENT and REQUEST_CHANGES events")
        if "body" in data:
            self._text(data["body"], "body")
        commit = data.get("commit_id", self.head_sha)
        if commit != self.head_sha:
            raise _unprocessable(f"No commit found for SHA: {commit}")
        comments = data.get("comments", [])
        if not isinstance(comments, list):
            raise _unprocessable("For 'comments', it is not an array.")
        checked = [self._review_comment(c) for c in comments]
        review_id = self.new_id()
        stored = []
        for comment in checked:
            stored.append({**comment, "id": self.new_id(), "pull_request_review_id": review_id,
                           "commit_id": commit, "user": self.author})
        with self._lock:
            self.review_comments.extend(stored)
            review = {"id": review_id, "state": "COMMENTED", "body": data.get("body", ""),
                      "commit_id": commit, "comments": stored}
            self.reviews.append(review)
        return 200, {k: v for k, v in review.items() if k != "comments"}, {}

    def _review_comment(self, comment: Any) -> dict[str, Any]:
        allowed = {"path", "position", "body", "line", "side", "start_line", "start_side"}
        if not isinstance(comment, dict):
            raise _unprocessable("comments must be objects")
        unknown = sorted(set(comment) - allowed)
        if unknown:
            raise _unprocessable(f'"{unknown[0]}" is not a permitted key.')
        if not isinstance(comment.get("path"), str):
            raise _unprocessable("path wasn't supplied.")
        self._text(comment.get("body"), "body")
        line = comment.get("line")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            raise _unprocessable("line wasn't supplied.")
        for key in ("side", "start_side"):
            if key in comment and comment[key] not in ("LEFT", "RIGHT"):
                raise _unprocessable(f"{key} must be LEFT or RIGHT")
        start = comment.get("start_line")
        if start is not None and (not isinstance(start, int) or start >= line):
            raise _unprocessable("start_line must precede line")
        path = comment["path"]
        if path not in self.files:
            raise _unprocessable("Path could not be resolved")
        patch = self.files[path]
        lines = _right_side(patch) if patch else set()
        for number in {line, start or line}:
            if number not in lines or (path, number) in self.reject_lines:
                raise _unprocessable("Line could not be resolved")
        return dict(comment)

    def _permission(self, login: str) -> Answer:
        level = self.permissions.get(login)
        if level is None:
            raise _Reply(404, {"message": f"{login} is not a user",
                               "documentation_url": "https://docs.github.com/rest"})
        role = {"admin": "admin", "write": "write", "read": "read"}.get(level, level)
        return 200, {"permission": level, "role_name": role,
                     "user": {"login": login, "type": "User"}}, {}

    def _create_reply(self, number: int, comment_id: int, raw: bytes) -> Answer:
        self._pr(number)
        data = self._body(raw, {"body"}, {"body"})
        with self._lock:
            parent = next((c for c in self.review_comments if c["id"] == comment_id), None)
        if parent is None:
            raise _Reply(404, {"message": "Not Found"})
        if parent.get("in_reply_to_id"):
            raise _unprocessable("Replies to replies are not supported.")
        comment = {"id": self.new_id(), "body": self._text(data["body"], "body"),
                   "in_reply_to_id": comment_id, "path": parent.get("path"),
                   "line": parent.get("line"), "user": self.author,
                   "html_url": f"https://github.com/{self.repository}/pull/{number}"
                               f"#discussion_r{self._next_id}"}
        with self._lock:
            self.review_comments.append(comment)
        return 201, comment, {}

    def _list_review_comments(self, number: int, query: dict[str, str],
                              headers: dict[str, str], _raw: bytes) -> Answer:
        self._pr(number)
        with self._lock:
            items = list(self.review_comments)
        return self._page(items, self._path("pulls", number, "comments"), query, headers)

    def _list_files(self, number: int, query: dict[str, str], headers: dict[str, str],
                    _raw: bytes) -> Answer:
        self._pr(number)
        items = []
        for name, patch in self.files.items():
            item: dict[str, Any] = {"sha": "0" * 40, "filename": name, "status": "modified",
                                    "additions": 1, "deletions": 0, "changes": 1}
            if patch is not None:
                item["patch"] = patch
            items.append(item)
        return self._page(items, self._path("pulls", number, "files"), query, headers)

    def _path(self, kind: str, number: int, tail: str) -> str:
        return f"{self.prefix}/repos/{self.repository}/{kind}/{number}/{tail}"


def _handler(server: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes: without this, delayed ACKs add 40 ms each.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, body, extra = server.handle(self.command, self.path, headers, raw)
            payload = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(payload)))
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    return Handler


def iter_bodies(server: FakeGitHub) -> Iterator[str]:
    """Every text the client posted to GitHub (comment bodies and review comment bodies)."""
    for request in server.requests:
        data = request.json if request.raw else None
        if isinstance(data, dict):
            if isinstance(data.get("body"), str):
                yield data["body"]
            for comment in data.get("comments") or []:
                if isinstance(comment, dict) and isinstance(comment.get("body"), str):
                    yield comment["body"]


# -- report builders shared by the markdown and GitHub tests ----------------------------------


def make_finding(**overrides: Any) -> FindingReport:
    """A :class:`FindingReport` with sensible defaults."""
    values: dict[str, Any] = {
        "rule": "command-injection", "severity": "CRITICAL", "title": "Shell command built "
        "from request data", "path": "app/run.py", "line": 3, "source": "pattern",
        "explanation": "The handler passes a request parameter to os.system.",
        "exploit_scenario": "A request with name=x;id runs id on the server.",
        "recommendation": "Use subprocess.run with an argument list.",
        "fingerprint": "",
    }
    values.update(overrides)
    if not values["fingerprint"]:
        seed = f"{values['rule']}|{values['path']}|{values['title']}".encode()
        values["fingerprint"] = hashlib.sha256(seed).hexdigest()[:32]
    return FindingReport.from_json(values)


def make_report(findings: list[FindingReport] | None = None, **overrides: Any) -> Report:
    """A :class:`Report` around ``findings`` (items derived from them unless given)."""
    found = list(findings or [])
    items = overrides.pop("items", None)
    if items is None:
        keys = sorted({(f.rule, f.path) for f in found})
        items = [ItemReport(nodeid=f"secreview::{rule}::{path}", rule=rule, path=path,
                            outcome="failed" if any(
                                f.rule == rule and f.path == path for f in found) else "passed",
                            findings=[f for f in found if (f.rule, f.path) == (rule, path)])
                 for rule, path in keys]
    outcomes = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    for item in items:
        outcomes[item.outcome] += 1
    values: dict[str, Any] = {
        "tool_version": "0.1.0", "repository": "octo/repo", "pull_request": 7,
        "base_ref": "main", "base_sha": "b" * 40, "head_sha": "c0ffee" + "0" * 34,
        "fail_on": "CRITICAL", "outcomes": outcomes, "findings": found, "items": items,
        "rules": [RuleReport(
            id="command-injection", title="OS command injection", source="bundled",
            severity=Severity.CRITICAL,
            documentation_link="https://cheatsheetseries.owasp.org/cheatsheets/"
                               "OS_Command_Injection_Defense_Cheat_Sheet.html")],
        "not_reviewed": [], "usage": Usage(model_calls=2, tool_calls=5, input_tokens=1200,
                                           output_tokens=300, cost_usd=0.0123),
    }
    values.update(overrides)
    return Report.model_validate(values)


def make_token() -> str:
    """A GitHub-installation-token-shaped value, assembled at run time (never literal)."""
    rng = random.Random(11)
    return "gh" + "s_" + "".join(rng.choice(string.ascii_letters + string.digits)
                                 for _ in range(36))


class Sleeps(list[float]):
    """An injectable ``sleep`` that records the waits instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


NOW = 1_800_000_000.0


def make_client(api_url: str, token: str | None, sleeps: Sleeps | None = None,
                **options: Any) -> GitHubClient:
    """A :class:`GitHubClient` whose waits are recorded, with a fixed wall clock and jitter."""
    retry = GitHubRetry(sleep=sleeps if sleeps is not None else Sleeps(), now=lambda: NOW,
                        jitter=lambda: 0.5, **options.pop("retry", {}))
    return GitHubClient(api_url, token, retry=retry, **options)
