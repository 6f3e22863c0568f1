"""Inline review comments: which lines of the pull request can take a comment, and posting
findings there as one review, in batches, never twice."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..core.severity import Severity
from ..diff.model import Diff
from ..github.client import GitHubClient, GitHubError
from ..github.context import PullRequest
from ..reporting.markdown_finding import (
    ICONS,
    documentation_line,
    finding_prose,
    render_comment_template,
)
from ..reporting.markdown_layout import GITHUB_COMMENT_LIMIT
from ..reporting.markdown_text import code_block, display_safe, escape_text, inline_code
from ..reporting.model import FindingReport, Report, RuleReport
from .comment_state import FINDING_MARKER, FINDING_MARKER_RE, REVIEW_MARKER, finding_key
from .result import Approve, PublishRun

_BATCH = 20
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


# -- commentable lines ---------------------------------------------------------------------


def right_side_lines(patch: str) -> set[int]:
    """Head-file line numbers a review comment may target in one file's unified ``patch``
    (added and context lines of its hunks)."""
    lines: set[int] = set()
    current: int | None = None
    for raw in patch.split("\n"):
        hunk = _HUNK.match(raw)
        if hunk:
            current = int(hunk.group(1))
        elif current is not None and raw[:1] in ("+", " "):
            lines.add(current)
            current += 1
    return lines


def fetch_commentable(client: GitHubClient, pr: PullRequest) -> dict[str, set[int]]:
    """``path -> right-side lines`` from ``GET /pulls/{n}/files``. Raises GitHubError."""
    listing = client.paginate(f"/repos/{pr.repository}/pulls/{pr.number}/files")
    result: dict[str, set[int]] = {}
    for item in listing.items:
        if isinstance(item, dict) and isinstance(item.get("filename"), str):
            patch = item.get("patch")
            result[item["filename"]] = right_side_lines(patch) if isinstance(patch, str) else set()
    return result


def commentable_from_diff(diff: Diff) -> dict[str, set[int]]:
    """``path -> head lines`` of every hunk of a locally computed diff: an alternative to
    fetching the PR's files (for a dry run without a token, for instance). Each hunk's
    right-side range is made of added and context lines, all commentable."""
    result: dict[str, set[int]] = {}
    for file in diff.files:
        lines = result.setdefault(file.path, set())
        for hunk in file.hunks:
            lines.update(range(hunk.new_start, hunk.new_start + hunk.new_count))
    return result


# -- inline comments -----------------------------------------------------------------------


def inline_body(finding: FindingReport, rule: RuleReport | None, *, suggestion: bool) -> str:
    """The review comment for one finding: marker, headline, the rule's comment template
    (or the finding's prose), a ````suggestion`` block when ``suggestion``, the rule's
    documentation link."""
    head = (f"{ICONS[finding.severity]} **{finding.severity.value}** · "
            f"{escape_text(finding.title, 300, one_line=True)}")
    parts = [FINDING_MARKER.format(finding_key(finding)), head]
    if rule is not None and rule.comment_template:
        parts.append(render_comment_template(rule.comment_template, finding))
    else:
        parts += finding_prose(finding, suggestion_block=False)
    if finding.suggestion and finding.suggestion.strip():
        if suggestion and len(finding.suggestion) <= 20_000:
            parts.append("Suggested fix (replaces the commented lines):\n\n"
                         + code_block(finding.suggestion, "suggestion", limit=20_000))
        else:
            parts.append("Suggested fix:\n\n" + code_block(finding.suggestion))
    doc = documentation_line(rule)
    if doc:
        parts.append(doc)
    parts.append(f"<sub>rule {inline_code(finding.rule, 120)} · "
                 f"{finding.confidence_text()} · pytest-secreview</sub>")
    body = display_safe("\n\n".join(parts))
    if len(body) > GITHUB_COMMENT_LIMIT:
        body = display_safe("\n\n".join(parts[:2] + parts[-1:]))
    return body


def _anchor(finding: FindingReport, lines: Collection[int]) -> dict[str, Any] | None:
    """The review comment's position, or None when the finding is outside the diff."""
    end = finding.end_line if finding.end_line and finding.end_line > finding.line else None
    if end is not None and all(n in lines for n in range(finding.line, end + 1)):
        return {"start_line": finding.line, "start_side": "RIGHT", "line": end,
                "side": "RIGHT", "multi": True}
    if finding.line in lines:
        return {"line": finding.line, "side": "RIGHT", "multi": end is None}
    return None


def _existing_fingerprints(client: GitHubClient, pr: PullRequest) -> set[str]:
    author = client.author()
    listing = client.paginate(f"/repos/{pr.repository}/pulls/{pr.number}/comments")
    found = set()
    for item in listing.items:
        # A marker in someone else's comment would silence ours: only the token's own count.
        if author is None or not author.wrote(item):
            continue
        body = item.get("body")
        # Only a marker that opens the body counts: one quoted inside a text is not ours.
        marker = FINDING_MARKER_RE.match(body) if isinstance(body, str) else None
        if marker:
            found.add(marker.group(1))
    return found


def post_inline(client: GitHubClient, pr: PullRequest, report: Report, run: PublishRun,
                 *, commentable: Mapping[str, Collection[int]] | None,
                 min_severity: Severity, max_inline: int, approve: Approve | None = None
                 ) -> None:
    # Dismissed and below --secreview-min-confidence: in the summary, never inline.
    candidates = [f for f in report.findings
                  if f.severity.at_least(min_severity) and not f.muted]
    if not candidates:
        return
    try:
        lines_by_path = (dict(commentable) if commentable is not None
                         else fetch_commentable(client, pr))
        seen = _existing_fingerprints(client, pr)
    except GitHubError as exc:
        run.failed("could not read the pull request for inline comments", exc)
        run.notes.append("Inline comments could not be posted; every finding is listed here.")
        return
    rules = {r.id: r for r in report.rules}
    comments: list[tuple[str, dict[str, Any]]] = []
    outside: list[FindingReport] = []
    # Only what GitHub already holds is "already posted"; identical lines of this review
    # have distinct fingerprints (core.findings.number_occurrences).
    posting: set[str] = set()
    for finding in sorted(candidates, key=FindingReport.sort_key):
        key = finding_key(finding)
        if key in seen:
            run.already += 1
            continue
        if key in posting:
            continue  # one finding reported twice in this report: one comment
        posting.add(key)
        anchor = _anchor(finding, lines_by_path.get(finding.path, ()))
        if anchor is None:
            outside.append(finding)
            continue
        multi = anchor.pop("multi")
        body = inline_body(finding, rules.get(finding.rule), suggestion=bool(multi))
        comments.append((_where(finding), {"path": finding.path, "body": body, **anchor}))
    run.outside = len(outside)
    if outside:
        run.notes.append(f"{len(outside)} finding(s) are on lines outside this pull request's "
                         "diff, so they are reported here and not as inline comments: "
                         + ", ".join(_where(f) for f in outside[:20])
                         + (" …" if len(outside) > 20 else ""))
    if len(comments) > max_inline:
        run.over_limit = len(comments) - max_inline
        run.notes.append(f"{run.over_limit} more finding(s) were not commented inline "
                         f"(at most {max_inline} inline comments per run).")
        comments = comments[:max_inline]
    if approve is not None:
        asked = [(where, c) for where, c in comments if approve(where, c["body"])]
        run.declined += len(comments) - len(asked)
        comments = asked
    commit = pr.head_sha or report.head_sha
    for start in range(0, len(comments), _BATCH):
        if run.write_forbidden:
            return
        _post_batch(client, pr, commit, comments[start:start + _BATCH], run)
    if run.rejected:
        run.notes.append(f"GitHub did not accept {len(run.rejected)} inline comment(s), so "
                         "they are reported here only: " + ", ".join(sorted(run.rejected)[:20]))


def _where(finding: FindingReport) -> str:
    return f"{finding.path}:{finding.line}"


def _review(client: GitHubClient, pr: PullRequest, commit: str,
            batch: Sequence[tuple[str, dict[str, Any]]]) -> None:
    count = len(batch)
    client.post(f"/repos/{pr.repository}/pulls/{pr.number}/reviews", {
        "commit_id": commit,
        "event": "COMMENT",
        "body": f"{REVIEW_MARKER}\npytest-secreview: {count} finding(s) on lines this pull "
                "request changes. The summary comment lists every finding.",
        "comments": [comment for _where, comment in batch],
    })


def _post_batch(client: GitHubClient, pr: PullRequest, commit: str,
                batch: Sequence[tuple[str, dict[str, Any]]], run: PublishRun) -> None:
    try:
        _review(client, pr, commit, batch)
        run.posted += len(batch)
        return
    except GitHubError as exc:
        if exc.status != 422 or len(batch) == 1:
            if exc.status == 422:
                run.rejected.append(batch[0][0])
            else:
                run.failed("could not post inline comments", exc)
            return
    # GitHub does not say which comment it refused: one review per comment isolates it.
    for item in batch:
        if run.write_forbidden:
            return
        try:
            _review(client, pr, commit, [item])
            run.posted += 1
        except GitHubError as exc:
            if exc.status == 422:
                run.rejected.append(item[0])
            else:
                run.failed("could not post an inline comment", exc)
