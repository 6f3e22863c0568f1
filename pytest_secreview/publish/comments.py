"""Publish the review on the pull request: one summary comment and inline review comments.

:func:`publish` is called once, on the controller, after the report is built. It never
raises and never changes an item's outcome: every failure becomes a warning in the
:class:`PublishResult`.

Summary comment (modes ``summary`` and ``all``)
    Exactly one per PR. It starts with :data:`SUMMARY_MARKER`; the next run finds it again
    through the paginated issue comments and edits it in place (``PATCH``), or creates it.
    Only a comment written by the token's own account counts (anyone can paste the marker,
    before the first run too); of those, the oldest. The body ends with a
    hidden state block listing the current findings (fingerprint, severity, rule, path, line,
    title), so the next run shows the findings fixed since then as resolved. A previous
    finding whose item was skipped or errored this time is not called resolved: it is carried
    over in the state until a run checks it again. The progress comment
    (:mod:`.progress`) uses the same marker and carries the state over.

Inline review comments (modes ``inline`` and ``all``)
    Findings at or above the lower of the report's ``fail_on`` and MEDIUM (or
    ``inline_min_severity``) are posted as one review (``event: COMMENT``) on the PR head
    commit, at most ``max_inline`` per run, in batches. Each body carries the hidden marker
    ``<!-- pytest-secreview:finding:<fingerprint> -->``; existing review comments are listed
    first and a fingerprint already posted by the token's own account is never posted again.
    Only lines in the PR's diff can take a comment: the caller may pass ``commentable``
    (path -> head line numbers); otherwise the PR's files are fetched and each ``patch``
    parsed for its right-side lines.
    A multi-line finding whose whole range is in the diff gets ``start_line`` and, when it
    has a ``suggestion``, a ````suggestion`` block that replaces exactly those lines; a
    finding whose range is only partly in the diff is commented at its first line without a
    suggestion block. Findings outside the diff, rejected by GitHub (422: the batch is
    retried one comment per review to isolate them) or over the limit are listed in the
    summary's notes and in the terminal lines. In mode ``inline`` no summary comment is
    written; those findings are in the step summary and ``summary.md`` only.

A read-only token (a PR from a fork: 403 "Resource not accessible by integration") stops
every write with one clear warning.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from ..core.severity import Severity
from ..github.client import GitHubClient, GitHubError
from ..github.context import PullRequest
from ..options import COMMENT_MODES, CommentMode
from ..reporting.markdown import to_markdown
from ..reporting.markdown_layout import GITHUB_COMMENT_LIMIT, notable_threshold
from ..reporting.model import FindingReport, Report
from .comment_state import (
    SUMMARY_MARKER,
    ExistingComment,
    StateEntry,
    decode_state,
    encode_state,
    find_summary_comment,
    finding_key,
    state_entry,
    upsert_summary,
)
from .inline import post_inline
from .result import Approve, PublishResult, PublishRun


class MarkdownBuilder(Protocol):
    """What :func:`publish` calls to render the summary (:func:`to_markdown` by default)."""

    def __call__(
        self, report: Report, *, resolved: Sequence[FindingReport | Mapping[str, Any]],
        max_chars: int, link_base: str | None,
    ) -> str: ...


# -- publish -------------------------------------------------------------------------------


def web_url(api_url: str, repository: str) -> str:
    """``https://github.com/owner/repo`` for an API root (github.com or GHE ``/api/v3``)."""
    api = api_url.rstrip("/")
    if api in ("https://api.github.com", "http://api.github.com"):
        return f"https://github.com/{repository}"
    if api.endswith("/api/v3"):
        api = api[: -len("/api/v3")]
    return f"{api}/{repository}"


def _previous_and_resolved(report: Report, existing: ExistingComment | None,
                           ) -> tuple[list[StateEntry], list[StateEntry]]:
    """(entries to carry over unchecked, entries resolved since the last run)."""
    previous = decode_state(existing.body) if existing else []
    current = {finding_key(f) for f in report.findings}
    unchecked_items = {(i.rule, i.path) for i in report.items if i.outcome in ("skipped", "error")}
    unchecked_paths = {n.path for n in report.not_reviewed if n.rule is None}
    carried, resolved = [], []
    for entry in previous:
        if entry.fingerprint in current:
            continue
        if (entry.rule, entry.path) in unchecked_items or entry.path in unchecked_paths:
            carried.append(entry)
        else:
            resolved.append(entry)
    return carried, resolved


def _summary(client: GitHubClient, pr: PullRequest, report: Report, run: PublishRun,
             builder: MarkdownBuilder, link_base: str | None,
             approve: Approve | None = None) -> None:
    existing = find_summary_comment(client, pr, run.warnings)
    carried, resolved = _previous_and_resolved(report, existing)
    run.resolved = len(resolved)
    state = encode_state([state_entry(f) for f in report.findings] + carried)
    notes_report = report.model_copy(update={"notes": [*report.notes, *run.notes]})
    budget = GITHUB_COMMENT_LIMIT - len(SUMMARY_MARKER) - len(state) - 8
    markdown = builder(notes_report, resolved=[e.as_mapping() for e in resolved],
                       max_chars=budget, link_base=link_base)
    body = f"{SUMMARY_MARKER}\n{markdown.rstrip()}\n\n{state}\n"
    if approve is not None and not approve("summary", body):
        run.declined += 1
        return
    action, cid, url = upsert_summary(client, pr, body, existing)
    run.summary, run.summary_comment_id, run.summary_url = action, cid, url


def publish(
    report: Report,
    pr: PullRequest,
    *,
    mode: CommentMode,
    client: GitHubClient,
    markdown_builder: MarkdownBuilder = to_markdown,
    commentable: Mapping[str, Collection[int]] | None = None,
    inline_min_severity: Severity | None = None,
    max_inline: int = 50,
    link_base: str | None = None,
    approve: Approve | None = None,
) -> PublishResult:
    """Post or update the summary comment and the inline comments; never raises.

    ``mode``: ``off`` (nothing), ``summary``, ``inline`` or ``all``. ``client`` carries the
    token (or a dry-run directory). ``commentable``: head line numbers per path that are in
    the PR's diff; fetched from GitHub when None. ``inline_min_severity``: defaults to the
    lower of ``report.fail_on`` and MEDIUM. ``link_base``: the repository's web URL for file
    links; derived from ``pr.api_url`` when None. ``approve``: asked before each comment is
    posted; a comment it declines is not posted.
    """
    run = PublishRun(mode=mode)
    if mode == "off":
        return run.result()
    try:
        problem = _cannot_publish(pr, mode, client)
        if problem:
            run.warnings.append(problem)
            return run.result()
        assert pr.repository is not None
        base = link_base or web_url(pr.api_url, pr.repository)
        if mode in ("inline", "all"):
            post_inline(client, pr, report, run, commentable=commentable,
                         min_severity=inline_min_severity or notable_threshold(report.fail_on),
                         max_inline=max_inline, approve=approve)
        if mode in ("summary", "all") and not run.write_forbidden:
            try:
                _summary(client, pr, report, run, markdown_builder, base, approve)
            except GitHubError as exc:
                run.summary = "failed"
                run.failed("could not write the summary comment", exc)
    except Exception as exc:  # a bug here must not fail the test session
        run.warnings.append(f"publishing to GitHub failed unexpectedly: "
                            f"{type(exc).__name__}: {_scrub(str(exc), pr)}")
    _describe(run, client, report, pr)
    return run.result()


def _cannot_publish(pr: PullRequest, mode: str, client: GitHubClient) -> str | None:
    if mode not in COMMENT_MODES:
        return f"unknown PR comment mode {mode!r}; choose one of {', '.join(COMMENT_MODES)}"
    if not (pr.repository and pr.number):
        return "no pull request is known (repository and number); nothing was posted"
    if not (client.has_token or client.dry_run):
        return "no GitHub token (SECREVIEW_GITHUB_TOKEN or GITHUB_TOKEN); nothing was posted"
    return None


def _scrub(text: str, pr: PullRequest) -> str:
    return text.replace(pr.token, "[REDACTED]") if pr.token else text


def _describe(run: PublishRun, client: GitHubClient, report: Report, pr: PullRequest) -> None:
    prefix = "PR comment (dry run)" if client.dry_run else "PR comment"
    if run.summary not in ("skipped", "failed"):
        where = f": {run.summary_url}" if run.summary_url else ""
        run.lines.append(f"{prefix}: summary {run.summary}{where}")
        if run.resolved:
            run.lines.append(f"{prefix}: {run.resolved} finding(s) resolved since the last run")
    if run.mode in ("inline", "all"):
        parts = [f"{run.posted} inline comment(s) posted"]
        if run.already:
            parts.append(f"{run.already} already posted earlier")
        if run.outside:
            parts.append(f"{run.outside} outside the diff (summary only)")
        if run.over_limit:
            parts.append(f"{run.over_limit} over the limit")
        run.lines.append(f"{prefix}: " + ", ".join(parts))
    if run.declined:
        run.lines.append(f"{prefix}: {run.declined} comment(s) not posted at your request")
    if run.rejected:
        run.lines.append(f"{prefix}: GitHub rejected {len(run.rejected)} inline comment(s): "
                         + ", ".join(sorted(run.rejected)[:20]))
    head = pr.head_sha
    if run.posted and head and head != report.head_sha:
        run.lines.append(f"{prefix}: inline comments are on the PR head {head[:12]}; the "
                         f"review ran on {report.head_sha[:12]}")
    if client.dry_run and client.dry_run_dir is not None:
        run.lines.append(f"{prefix}: requests written to {client.dry_run_dir}")
    run.lines.extend(f"{prefix}: warning: {w}" for w in run.warnings)
