"""The summary comment's identity and memory: the hidden markers, finding fingerprints, the
state block that remembers the findings of the last run, and finding and editing the one
summary comment of a pull request."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.severity import Severity, worst_first
from ..github.client import GitHubClient, GitHubError
from ..github.context import PullRequest
from ..reporting.markdown_text import display_safe
from ..reporting.model import FindingReport

SUMMARY_MARKER = "<!-- pytest-secreview:summary -->"
REVIEW_MARKER = "<!-- pytest-secreview:review -->"
FINDING_MARKER = "<!-- pytest-secreview:finding:{} -->"
FINDING_MARKER_RE = re.compile(r"<!-- pytest-secreview:finding:([0-9A-Za-z_-]{1,128}) -->")
_STATE_OPEN = "<!-- pytest-secreview:state "
_STATE_RE = re.compile(r"<!-- pytest-secreview:state (\{[^\n]*\}) -->")
#: Room the hidden state may take in the summary comment (the rest is for people).
STATE_LIMIT = 16_000
_STATE_TITLE = 120


# -- fingerprints and the hidden state -----------------------------------------------------


def finding_key(finding: FindingReport) -> str:
    """The finding's fingerprint, or a stable stand-in when it has none."""
    if finding.fingerprint and re.fullmatch(r"[0-9A-Za-z_-]{1,128}", finding.fingerprint):
        return finding.fingerprint
    raw = f"{finding.rule}\0{finding.path}\0{finding.line}\0{finding.title}"
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class StateEntry:
    """One finding remembered in the summary comment's hidden state."""

    fingerprint: str
    severity: Severity
    rule: str
    path: str
    line: int
    title: str

    def as_mapping(self) -> dict[str, Any]:
        """The shape :func:`to_markdown` accepts in ``resolved``."""
        return {"fingerprint": self.fingerprint, "severity": self.severity.value,
                "rule": self.rule, "path": self.path, "line": self.line, "title": self.title}


def state_entry(finding: FindingReport) -> StateEntry:
    return StateEntry(finding_key(finding), finding.severity, finding.rule, finding.path,
                      finding.line, display_safe(finding.title)[:_STATE_TITLE])


def encode_state(entries: Sequence[StateEntry]) -> str:
    """The hidden state block, at most :data:`STATE_LIMIT` characters.

    Worst severities are kept first when it does not fit; ``complete`` says so. ``<``, ``>``,
    ``&`` and ``-`` are JSON-escaped, so no text can end the HTML comment early.
    """
    ordered = sorted(entries, key=lambda e: worst_first(e.severity, e.path, e.line,
                                                        e.fingerprint))
    rows: list[str] = []
    size = 0
    complete = True
    for e in ordered:
        row = _json([e.fingerprint, e.severity.value, e.rule, e.path, e.line, e.title])
        if size + len(row) + 1 > STATE_LIMIT - 100:
            complete = False
            break
        rows.append(row)
        size += len(row) + 1
    body = '{"v":1,"complete":' + ("true" if complete else "false") + ',"findings":[' \
        + ",".join(rows) + "]}"
    return f"{_STATE_OPEN}{body} -->"


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    # Only strings can hold these characters here (numbers are non-negative integers).
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("-", "\\u002d"))


def decode_state(body: str) -> list[StateEntry]:
    """The entries of a hidden state block in ``body``; malformed parts are ignored."""
    # Only the body's last line counts: that is where we put it, after every text that came
    # from the pull request, so a hostile title quoting a state block cannot stand in for it.
    last_line = (body or "").rstrip().rsplit("\n", 1)[-1]
    match = _STATE_RE.fullmatch(last_line)
    if not match:
        return []
    try:
        data = json.loads(match.group(1))
    except ValueError:
        return []
    rows = data.get("findings") if isinstance(data, dict) else None
    entries = []
    for row in rows if isinstance(rows, list) else []:
        if not (isinstance(row, list) and len(row) == 6):
            continue
        fp, severity, rule, path, line, title = row
        if not (isinstance(fp, str) and FINDING_MARKER_RE.fullmatch(FINDING_MARKER.format(fp))
                and all(isinstance(v, str) for v in (severity, rule, path, title))
                and isinstance(line, int) and not isinstance(line, bool)):
            continue
        try:
            level = Severity.parse(severity)
        except ValueError:
            continue
        entries.append(StateEntry(fp, level, rule[:200], path[:1000], line, title[:200]))
    return entries[:5000]


# -- finding the summary comment ------------------------------------------------------------


@dataclass(frozen=True)
class ExistingComment:
    """A summary (or progress) comment found on the PR."""

    id: int
    body: str
    html_url: str | None


def find_summary_comment(client: GitHubClient, pr: PullRequest,
                         warnings: list[str] | None = None) -> ExistingComment | None:
    """The PR's summary comment: the oldest comment written by the token's own account
    (:meth:`GitHubClient.author`) whose body starts with :data:`SUMMARY_MARKER`. A comment
    by anyone else carrying the marker is never ours, whoever posted it first.

    Raises :class:`GitHubError`. A listing cut short by the page limit adds a warning.
    """
    author = client.author()
    listing = client.paginate(f"/repos/{pr.repository}/issues/{pr.number}/comments")
    if not listing.complete and warnings is not None:
        warnings.append("the PR has more comments than the page limit; an older summary "
                        "comment may be missed and a second one created")
    for item in listing.items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            continue
        body = item.get("body") or ""
        if (author is not None and author.wrote(item) and isinstance(body, str)
                and body.lstrip().startswith(SUMMARY_MARKER)):
            url = item.get("html_url")
            return ExistingComment(item["id"], body, url if isinstance(url, str) else None)
    return None


def upsert_summary(client: GitHubClient, pr: PullRequest, body: str,
                   existing: ExistingComment | None) -> tuple[str, int | None, str | None]:
    """Edit ``existing`` (or create the comment when there is none or it vanished).

    Returns (``"updated"`` | ``"created"`` | ``"written (dry run)"``, id, html URL).
    Raises :class:`GitHubError`.
    """
    text = display_safe(body)
    if existing is not None:
        try:
            answer = client.patch(
                f"/repos/{pr.repository}/issues/comments/{existing.id}", {"body": text})
        except GitHubError as exc:
            if exc.status != 404:
                raise
        else:
            return _written(client, "updated", answer, existing.id)
    answer = client.post(f"/repos/{pr.repository}/issues/{pr.number}/comments", {"body": text})
    return _written(client, "created", answer, None)


def _written(client: GitHubClient, action: str, answer: Any,
             known_id: int | None) -> tuple[str, int | None, str | None]:
    if client.dry_run:
        return "written (dry run)", known_id, None
    answer = answer if isinstance(answer, dict) else {}
    cid = answer.get("id") if isinstance(answer.get("id"), int) else known_id
    url = answer.get("html_url") if isinstance(answer.get("html_url"), str) else None
    return action, cid, url
