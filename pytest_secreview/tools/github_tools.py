"""``fetch_pr_files``: the pull request's changed files, from the GitHub REST API.

Tool injection: the token and the pull request are given at construction and
are never parameters, so the model cannot see, choose or leak them; they never appear in the
result, in error texts or in reprs. Errors come back as text, never as exceptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..llm.http import shared_client
from .errors import ToolError
from .gate import Gate
from .registry import Tool
from .schema import ToolArgs

_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
_PER_PAGE = 100
#: GitHub lists at most 3,000 files of a pull request: 30 pages of 100.
MAX_PAGES = 30
_STATUS = {
    "added": "A",
    "removed": "D",
    "modified": "M",
    "renamed": "R",
    "copied": "C",
    "changed": "T",
    "unchanged": "U",
}


@dataclass(frozen=True)
class GitHubPRContext:
    """Where the pull request lives and the token to read it. The token never shows in reprs."""

    repository: str
    pr_number: int
    token: str = field(repr=False)
    api_url: str = "https://api.github.com"

    def __post_init__(self) -> None:
        if not _REPOSITORY.match(self.repository):
            raise ValueError(f"repository must be 'owner/name', got {self.repository!r}")
        if self.pr_number < 1:
            raise ValueError(f"pull request number must be positive, got {self.pr_number}")
        if not self.api_url.startswith(("https://", "http://")):
            raise ValueError(f"api_url must be an http(s) URL, got {self.api_url!r}")


@dataclass(frozen=True)
class PRFile:
    """One changed file as the file list shows it."""

    path: str
    status: str  # A, M, D, R, C, T, U or ?
    additions: int
    deletions: int
    previous: str | None = None


def _count(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def format_pr_files(header: str, files: list[PRFile], *, title: str = "",
                    problem: str | None = None, gate: Gate | None = None) -> str:
    """The file list the model reads (the triage's format): a header, the title, one line per
    file with its status letter, counts and language, then the languages and the dependency
    files changed. Names and the title come from the pull request: one line each, untrusted."""
    from ..diff.kinds import Kind, classify  # the triage vocabulary: one definition

    gate = gate if gate is not None else Gate()
    languages: set[str] = set()
    dependencies: list[str] = []
    rows = []
    for item in files:
        name = _one_line(item.path)
        shown = f"{_one_line(item.previous)} -> {name}" if item.previous else name
        kind = classify(item.path)
        if kind.language:
            languages.add(kind.language)
        if kind.kind in (Kind.DEPENDENCIES, Kind.LOCK):
            dependencies.append(name)
        row = (f"  {item.status} {shown}  (+{item.additions} -{item.deletions})  "
               f"[{kind.language or kind.kind.value}]")
        reason = gate.reason(item.path)
        if reason is not None:
            row += f"  [content withheld by the security gate: {reason}]"
        rows.append(row)
    added = sum(f.additions for f in files)
    deleted = sum(f.deletions for f in files)
    lines = [f"{header}: {len(files)} files changed (+{added} -{deleted})"]
    if title:
        lines.append(f"Title: {_one_line(title)}")
    if problem:
        lines.append(f"[incomplete: {problem}]")
    # The summary lines come before the list, not after it: a long list is
    # truncated at the tool output limit, and these must survive.
    lines.append("Languages: " + (", ".join(sorted(languages)) or "none recognised"))
    lines.append("Dependency files changed: " + (", ".join(dependencies) or "none"))
    return "\n".join([*lines, *rows])


def _one_line(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)[:300]


class FetchPRFilesArgs(ToolArgs):
    """``fetch_pr_files`` takes no arguments: the PR is fixed at construction."""


class FetchPRFiles:
    """Lists a pull request's files through ``GET /repos/{owner}/{repo}/pulls/{n}/files``.

    ``client`` defaults to the process's shared :class:`httpx.Client` (no redirects followed);
    each request has its own ``timeout``. Follows ``Link: rel="next"`` (same origin only, so the
    token is never sent elsewhere) or stops on a short page, up to :data:`MAX_PAGES`.
    """

    def __init__(
        self,
        context: GitHubPRContext,
        *,
        client: httpx.Client | None = None,
        timeout: float = 20.0,
        gate: Gate | None = None,
        title: str = "",
    ) -> None:
        self._context = context
        self._title = title
        self._client = client
        self._timeout = timeout
        self._gate = gate if gate is not None else Gate()

    def __repr__(self) -> str:
        return f"FetchPRFiles({self._context.repository}#{self._context.pr_number})"

    def _headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._context.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "pytest-secreview",
        }

    def _failure(self, response: httpx.Response) -> str:
        ctx = self._context
        code = response.status_code
        if code == 404:
            return (
                f"GitHub returned 404: pull request #{ctx.pr_number} of {ctx.repository} was not "
                "found, or the token cannot read it"
            )
        if code in (401, 403):
            if response.headers.get("x-ratelimit-remaining") == "0":
                return f"GitHub returned {code}: the API rate limit is exhausted; try again later"
            return f"GitHub returned {code}: the token is not allowed to read this pull request"
        return f"GitHub returned HTTP {code} while listing the pull request's files"

    def _same_origin(self, url: str) -> bool:
        base = httpx.URL(self._context.api_url)
        other = httpx.URL(url)
        return (other.scheme, other.host, other.port) == (base.scheme, base.host, base.port)

    def _fetch(self, client: httpx.Client) -> tuple[list[dict[str, Any]], str | None]:
        ctx = self._context
        api = ctx.api_url.rstrip("/")
        url: str | None = f"{api}/repos/{ctx.repository}/pulls/{ctx.pr_number}/files"
        params: dict[str, int] | None = {"per_page": _PER_PAGE, "page": 1}
        files: list[dict[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            assert url is not None
            try:
                response = client.get(
                    url, params=params, headers=self._headers(), timeout=self._timeout
                )
            except httpx.HTTPError as exc:
                problem = f"could not reach the GitHub API ({type(exc).__name__})"
                if not files:
                    raise ToolError(problem) from None
                return files, f"page {page} failed: {problem}"
            if response.status_code != 200:
                if not files:
                    raise ToolError(self._failure(response))
                return files, f"page {page} failed: {self._failure(response)}"
            try:
                batch = response.json()
            except ValueError:
                batch = None
            if not isinstance(batch, list):
                raise ToolError("GitHub returned a response that is not a list of files")
            files.extend(item for item in batch if isinstance(item, dict))
            next_url = response.links.get("next", {}).get("url")
            if next_url:
                if not self._same_origin(next_url):
                    return files, "the next page is on another host; not followed"
                url, params = next_url, None
            elif "link" in response.headers or len(batch) < _PER_PAGE:
                return files, None
            else:
                params = {"per_page": _PER_PAGE, "page": page + 1}
        return files, f"stopped after {MAX_PAGES} pages; GitHub lists at most 3,000 files"

    def __call__(self, _args: FetchPRFilesArgs | None = None) -> str:
        """The formatted file list (status letter, path, +additions -deletions)."""
        client = self._client if self._client is not None else shared_client()
        files, problem = self._fetch(client)
        return self._format(files, problem)

    def _format(self, files: list[dict[str, Any]], problem: str | None) -> str:
        ctx = self._context
        entries = [
            PRFile(str(item.get("filename", "?")), _STATUS.get(str(item.get("status")), "?"),
                   _count(item.get("additions")), _count(item.get("deletions")),
                   str(item["previous_filename"]) if item.get("previous_filename") else None)
            for item in files
        ]
        return format_pr_files(f"Pull request #{ctx.pr_number} of {ctx.repository}", entries,
                               title=self._title, problem=problem, gate=self._gate)

    def tool(self) -> Tool:
        """Declaration for the registry."""
        return Tool(
            name="fetch_pr_files",
            description=(
                "List the files changed by this pull request according to GitHub: status "
                "letter (A added, M modified, D removed, R renamed), path, and +additions "
                "-deletions. Takes no arguments."
            ),
            function=self,
            args_model=FetchPRFilesArgs,
        )
