"""Deliver the results where teams read them; runs only on the controller (or the single
process without xdist), after every item has reported.

Every delivery failure (a path that cannot be written, GitHub refusing) becomes a line in
the terminal summary; none changes an item's outcome or crashes the session.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..diff.model import Diff
from ..errors import SecreviewError
from ..github.client import GitHubClient
from ..github.context import PullRequest, pull_request_from_env
from ..options import Settings
from ..state import ReviewState
from .actions import ACTIONS_LOG_PLUGIN, ActionsLog
from .artifacts import ArtifactWriter, dump_json
from .build import build_report
from .merge import DURATIONS_NAME, write_durations
from .model import Report
from .summary import Summary


def pull_request(review: ReviewState, env: Mapping[str, str]) -> PullRequest:
    """The PR under review from the environment and the --secreview-pr/--secreview-repo."""
    settings = review.settings
    return pull_request_from_env(env, number=settings.pr, repository=settings.repo)


def deliver(review: ReviewState, summary: Summary, env: Mapping[str, str] | None = None
            ) -> tuple[Report, list[str]]:
    """Write every output; return the report and lines for the terminal summary."""
    env = os.environ if env is None else env
    settings = review.settings
    invocation = review.config.invocation_params.dir
    pr = pull_request(review, env)
    report = build_report(review, summary, pr)
    lines: list[str] = []

    root = invocation / settings.artifacts
    report_dir = invocation / settings.report if settings.report else root / "report"
    try:
        writer = ArtifactWriter(root, own=True)
        writer.write_inputs(review.diff, review.rule_files.sources)
        writer.write_text("triage.json", dump_json(review.triage.to_json()))
        for nodeid, result in sorted(summary.items.items()):
            if result.artifact is not None:
                writer.write_item(nodeid, result.artifact, result.outcome)
        write_summary_json(report, report_dir)
    except OSError as exc:
        # The items' outcomes stand; the terminal says what could not be written.
        lines.append(f"report and artifacts not written: {exc}")
        return report, lines
    lines.append(f"artifacts: {root}")
    if settings.baseline_update:
        lines.append(_update_baseline(review, report, invocation))
    lines.append(f"report: {report_dir / 'summary.json'}")
    progress = review.config.pluginmanager.get_plugin("secreview-progress")
    if progress is not None:
        lines.extend(f"progress comment: {w}" for w in progress.comment.warnings)
    try:
        deliver_rich(report, settings=settings, invocation=invocation, diff=review.diff, pr=pr,
                     report_dir=report_dir, env=env, lines=lines,
                     actions_log=review.config.pluginmanager.get_plugin(ACTIONS_LOG_PLUGIN))
    except OSError as exc:
        lines.append(f"output not written: {exc}")
    return report, lines


def _update_baseline(review: ReviewState, report: Report, invocation: Path) -> str:
    """``--secreview-baseline-update``: rewrite the baseline from this review's findings."""
    from ..suppression.setup import write_baseline
    from .build import batch_paths

    batches = batch_paths(review)
    # Entries of (rule, path) pairs this review did not complete are kept as they are.
    evaluated = {(i.rule, path) for i in report.items
                 if i.rule is not None and i.outcome in ("passed", "failed")
                 for path in batches.get(i.nodeid, (i.path,))}
    try:
        return write_baseline(review.settings, invocation, report.findings, evaluated)
    except (OSError, SecreviewError) as exc:
        return f"baseline not written: {exc}"


def write_summary_json(report: Report, report_dir: Path) -> None:
    """``summary.json`` and the items' durations (pytest-split's format, for sharding)."""
    ArtifactWriter(report_dir).write_text("summary.json", dump_json(report.model_dump(mode="json")))
    write_durations(report, report_dir / DURATIONS_NAME)


def deliver_rich(report: Report, *, settings: Settings, invocation: Path, diff: Diff | None,
                 pr: PullRequest, report_dir: Path, env: Mapping[str, str],
                 lines: list[str], actions_log: ActionsLog | None = None) -> None:
    """Markdown, SARIF, GitHub Actions and the PR comment. ``diff`` tells which lines an
    inline comment may be placed on (None: summary comment only). In a pytest session,
    ``actions_log`` writes the annotations after pytest's last line (see
    :class:`~pytest_secreview.reporting.actions.ActionsLog`); without it they are printed now,
    each on a line of its own."""
    from ..github.comments import publish
    from ..github.inline import commentable_from_diff
    from .actions import STEP_SUMMARY_LIMIT, annotations, in_github_actions, write_step_summary
    from .markdown import to_markdown
    from .sarif import write_sarif

    link_base = _link_base(pr, env)
    # The file and the step summary allow far more than a PR comment (which publish() fits
    # into GitHub's 65,536 characters itself).
    markdown = to_markdown(report, link_base=link_base, max_chars=STEP_SUMMARY_LIMIT)
    ArtifactWriter(report_dir).write_text("summary.md", markdown)
    if settings.sarif:
        sarif_path = invocation / settings.sarif
        sarif_path.parent.mkdir(parents=True, exist_ok=True)
        write_sarif(report, sarif_path)
        lines.append(f"SARIF: {sarif_path}")
    if in_github_actions(env):
        if write_step_summary(markdown, env):
            lines.append("step summary: written to GITHUB_STEP_SUMMARY")
        commands = annotations(report)
        if actions_log is not None:
            actions_log.add(commands)  # written once workflow commands resume
        else:
            for command in commands:
                print(command, flush=True)
    mode = settings.comment or ("summary" if pr.can_call_api else "off")
    if mode == "off":
        return
    client = github_client(settings, invocation, pr)
    if client is None:
        lines.append(f"PR comment ({mode}) not posted: needs SECREVIEW_GITHUB_TOKEN or "
                     "GITHUB_TOKEN (or --secreview-dry-run), the repository and the PR number "
                     "(--secreview-repo, --secreview-pr, or GitHub Actions' environment), and "
                     "a valid GITHUB_API_URL")
        return
    result = publish(report, pr, mode=mode, client=client,  # type: ignore[arg-type]
                     commentable=commentable_from_diff(diff) if diff is not None else {},
                     link_base=link_base)
    lines.extend(result.lines)


def github_client(settings: Settings, invocation: Path, pr: PullRequest
                  ) -> GitHubClient | None:
    """A client for the PR when it can be used (a token, or --secreview-dry-run)."""
    from ..github.client import GitHubClient, GitHubError

    if not (pr.repository and pr.number and (pr.token or settings.dry_run)):
        return None
    dry_run = (invocation / settings.artifacts / "github-requests") if settings.dry_run else None
    try:
        return GitHubClient(pr.api_url, pr.token, dry_run_dir=dry_run)
    except GitHubError:
        return None


def _link_base(pr: PullRequest, env: Mapping[str, str]) -> str | None:
    if not pr.repository:
        return None
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    return f"{server}/{pr.repository}"
