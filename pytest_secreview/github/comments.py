"""Publish the review on the pull request: one summary comment and inline review comments.

:func:`publish` is called once, on the controller, after the report is built. It never
raises and never changes an item's outcome: every failure becomes a warning in the
:class:`PublishResult`.

Summary comment (modes ``summary`` and ``all``)
    Exactly one per PR. It starts with :data:`SUMMARY_MARKER`; the next run finds it again
    through the paginated issue comments and edits it in place (``PATCH``), or creates it.
    When several comments carry the marker, one written by a bot account wins (a person could
    paste the marker; GitHub Actions' token is a bot), else the oldest. The body ends with a
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
    first and a fingerprint already posted is never posted again. Only lines in the PR's diff
    can take a comment: the caller may pass ``commentable`` (path -> head line numbers);
    otherwise the PR's files are fetched and each ``patch`` parsed for its right-side lines.
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

import hashlib
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..diff.model import Diff
from ..reporting.markdown import (
    GITHUB_COMMENT_LIMIT,
    ICONS,
    code_block,
    documentation_line,
    escape_text,
    finding_prose,
    inline_code,
    notable_threshold,
    render_comment_template,
    sanitize,
    to_markdown,
)
from ..reporting.model import FindingReport, Report, RuleReport
from ..severity import Severity, worst_first
from .client import GitHubClient, GitHubError
from .context import PullRequest

Mode = Literal["off", "summary", "inline", "all"]
MODES: tuple[Mode, ...] = ("off", "summary", "inline", "all")

SUMMARY_MARKER = "<!-- pytest-secreview:summary -->"
REVIEW_MARKER = "<!-- pytest-secreview:review -->"
_FINDING_MARKER = "<!-- pytest-secreview:finding:{} -->"
_FINDING_MARKER_RE = re.compile(r"<!-- pytest-secreview:finding:([0-9A-Za-z_-]{1,128}) -->")
_STATE_OPEN = "<!-- pytest-secreview:state "
_STATE_RE = re.compile(r"<!-- pytest-secreview:state (\{[^\n]*\}) -->")
#: Room the hidden state may take in the summary comment (the rest is for people).
STATE_LIMIT = 16_000
_STATE_TITLE = 120
_BATCH = 20
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FORK_WARNING = (
    "GitHub refused to write to the pull request (403 Resource not accessible by "
    "integration): the token is read-only, as for pull requests from forks. Nothing was "
    "posted; the results are in the step summary and the report files."
)


class MarkdownBuilder(Protocol):
    """What :func:`publish` calls to render the summary (:func:`to_markdown` by default)."""

    def __call__(
        self, report: Report, *, resolved: Sequence[FindingReport | Mapping[str, Any]],
        max_chars: int, link_base: str | None,
    ) -> str: ...


@dataclass(frozen=True)
class PublishResult:
    """What :func:`publish` did. ``lines`` are for the terminal summary; ``warnings`` are
    problems (each also suitable for a terminal line or a ``::warning::``)."""

    mode: str
    #: "created", "updated", "written (dry run)", "skipped" or "failed".
    summary: str = "skipped"
    summary_comment_id: int | None = None
    summary_url: str | None = None
    inline_posted: int = 0
    inline_already_posted: int = 0
    inline_outside_diff: int = 0
    inline_rejected: tuple[str, ...] = ()
    resolved: int = 0
    lines: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class _Run:
    """Mutable bookkeeping of one publish call."""

    mode: str
    summary: str = "skipped"
    summary_comment_id: int | None = None
    summary_url: str | None = None
    posted: int = 0
    already: int = 0
    outside: int = 0
    over_limit: int = 0
    rejected: list[str] = field(default_factory=list)
    resolved: int = 0
    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    write_forbidden: bool = False

    def result(self) -> PublishResult:
        return PublishResult(
            mode=self.mode, summary=self.summary, summary_comment_id=self.summary_comment_id,
            summary_url=self.summary_url, inline_posted=self.posted,
            inline_already_posted=self.already, inline_outside_diff=self.outside,
            inline_rejected=tuple(sanitize(r) for r in self.rejected), resolved=self.resolved,
            # Paths come from the pull request: no terminal escapes in what is printed.
            lines=tuple(sanitize(line) for line in self.lines),
            warnings=tuple(sanitize(w) for w in self.warnings),
        )

    def failed(self, what: str, exc: GitHubError) -> None:
        if exc.integration_forbidden:
            if not self.write_forbidden:
                self.warnings.append(_FORK_WARNING)
            self.write_forbidden = True
        else:
            self.warnings.append(f"{what}: {exc}")


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


def _entry(finding: FindingReport) -> StateEntry:
    return StateEntry(finding_key(finding), finding.severity, finding.rule, finding.path,
                      finding.line, sanitize(finding.title)[:_STATE_TITLE])


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
        if not (isinstance(fp, str) and _FINDING_MARKER_RE.fullmatch(_FINDING_MARKER.format(fp))
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
    """The PR's summary comment, found by :data:`SUMMARY_MARKER` at the start of its body.

    Raises :class:`GitHubError`. A listing cut short by the page limit adds a warning.
    """
    listing = client.paginate(f"/repos/{pr.repository}/issues/{pr.number}/comments")
    if not listing.complete and warnings is not None:
        warnings.append("the PR has more comments than the page limit; an older summary "
                        "comment may be missed and a second one created")
    candidates = []
    for item in listing.items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            continue
        body = item.get("body") or ""
        if isinstance(body, str) and body.lstrip().startswith(SUMMARY_MARKER):
            user = item.get("user") if isinstance(item.get("user"), dict) else {}
            is_bot = isinstance(user, dict) and user.get("type") == "Bot"
            url = item.get("html_url")
            candidates.append((not is_bot, ExistingComment(
                item["id"], body, url if isinstance(url, str) else None)))
    if not candidates:
        return None
    # Stable sort: bots first, then the order GitHub listed them in (oldest first).
    candidates.sort(key=lambda c: c[0])
    return candidates[0][1]


def upsert_summary(client: GitHubClient, pr: PullRequest, body: str,
                   existing: ExistingComment | None) -> tuple[str, int | None, str | None]:
    """Edit ``existing`` (or create the comment when there is none or it vanished).

    Returns (``"updated"`` | ``"created"`` | ``"written (dry run)"``, id, html URL).
    Raises :class:`GitHubError`.
    """
    text = sanitize(body)
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
    parts = [_FINDING_MARKER.format(finding_key(finding)), head]
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
    parts.append(f"<sub>rule {inline_code(finding.rule, 120)} · confidence "
                 f"{finding.confidence:.2f} · pytest-secreview</sub>")
    body = sanitize("\n\n".join(parts))
    if len(body) > GITHUB_COMMENT_LIMIT:
        body = sanitize("\n\n".join(parts[:2] + parts[-1:]))
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
    listing = client.paginate(f"/repos/{pr.repository}/pulls/{pr.number}/comments")
    found = set()
    for item in listing.items:
        body = item.get("body") if isinstance(item, dict) else None
        # Only a marker that opens the body counts: one quoted inside a text is not ours.
        marker = _FINDING_MARKER_RE.match(body) if isinstance(body, str) else None
        if marker:
            found.add(marker.group(1))
    return found


def _post_inline(client: GitHubClient, pr: PullRequest, report: Report, run: _Run,
                 *, commentable: Mapping[str, Collection[int]] | None,
                 min_severity: Severity, max_inline: int) -> None:
    candidates = [f for f in report.findings if f.severity.at_least(min_severity)]
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
    for finding in sorted(candidates, key=FindingReport.sort_key):
        key = finding_key(finding)
        if key in seen:
            run.already += 1
            continue
        seen.add(key)  # two findings with one fingerprint: one comment
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
                batch: Sequence[tuple[str, dict[str, Any]]], run: _Run) -> None:
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


def _summary(client: GitHubClient, pr: PullRequest, report: Report, run: _Run,
             builder: MarkdownBuilder, link_base: str | None) -> None:
    existing = find_summary_comment(client, pr, run.warnings)
    carried, resolved = _previous_and_resolved(report, existing)
    run.resolved = len(resolved)
    state = encode_state([_entry(f) for f in report.findings] + carried)
    notes_report = report.model_copy(update={"notes": [*report.notes, *run.notes]})
    budget = GITHUB_COMMENT_LIMIT - len(SUMMARY_MARKER) - len(state) - 8
    markdown = builder(notes_report, resolved=[e.as_mapping() for e in resolved],
                       max_chars=budget, link_base=link_base)
    body = f"{SUMMARY_MARKER}\n{markdown.rstrip()}\n\n{state}\n"
    action, cid, url = upsert_summary(client, pr, body, existing)
    run.summary, run.summary_comment_id, run.summary_url = action, cid, url


def publish(
    report: Report,
    pr: PullRequest,
    *,
    mode: Mode,
    client: GitHubClient,
    markdown_builder: MarkdownBuilder = to_markdown,
    commentable: Mapping[str, Collection[int]] | None = None,
    inline_min_severity: Severity | None = None,
    max_inline: int = 50,
    link_base: str | None = None,
) -> PublishResult:
    """Post or update the summary comment and the inline comments; never raises.

    ``mode``: ``off`` (nothing), ``summary``, ``inline`` or ``all``. ``client`` carries the
    token (or a dry-run directory). ``commentable``: head line numbers per path that are in
    the PR's diff; fetched from GitHub when None. ``inline_min_severity``: defaults to the
    lower of ``report.fail_on`` and MEDIUM. ``link_base``: the repository's web URL for file
    links; derived from ``pr.api_url`` when None.
    """
    run = _Run(mode=mode)
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
            _post_inline(client, pr, report, run, commentable=commentable,
                         min_severity=inline_min_severity or notable_threshold(report.fail_on),
                         max_inline=max_inline)
        if mode in ("summary", "all") and not run.write_forbidden:
            try:
                _summary(client, pr, report, run, markdown_builder, base)
            except GitHubError as exc:
                run.summary = "failed"
                run.failed("could not write the summary comment", exc)
    except Exception as exc:  # a bug here must not fail the test session
        run.warnings.append(f"publishing to GitHub failed unexpectedly: "
                            f"{type(exc).__name__}: {_scrub(str(exc), pr)}")
    _describe(run, client, report, pr)
    return run.result()


def _cannot_publish(pr: PullRequest, mode: str, client: GitHubClient) -> str | None:
    if mode not in MODES:
        return f"unknown PR comment mode {mode!r}; choose one of {', '.join(MODES)}"
    if not (pr.repository and pr.number):
        return "no pull request is known (repository and number); nothing was posted"
    if not (client.has_token or client.dry_run):
        return "no GitHub token (SECREVIEW_GITHUB_TOKEN or GITHUB_TOKEN); nothing was posted"
    return None


def _scrub(text: str, pr: PullRequest) -> str:
    return text.replace(pr.token, "[REDACTED]") if pr.token else text


def _describe(run: _Run, client: GitHubClient, report: Report, pr: PullRequest) -> None:
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
