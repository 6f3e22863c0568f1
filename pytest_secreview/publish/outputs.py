"""Deliver the results where teams read them; runs only on the controller (or the single
process without xdist), after every item has reported.

Every delivery failure (a path that cannot be written, GitHub refusing) becomes a line in
the terminal summary; none changes an item's outcome or crashes the session.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

from ..diff.model import Diff
from ..errors import SecreviewError
from ..github.client import GitHubClient
from ..github.context import PullRequest, pull_request_from_env
from ..options import Settings
from ..reporting.actions import ACTIONS_LOG_PLUGIN, ActionsLog
from ..reporting.artifacts import ArtifactWriter
from ..reporting.build import build_report
from ..reporting.merge import DURATIONS_NAME, write_durations
from ..reporting.model import Report
from ..reporting.review_view import ReviewView
from ..reporting.run_binding import (
    RUN_KEY_ENV,
    ShardBinding,
    run_key,
    sha256_file,
    write_binding,
)
from ..reporting.summary import Summary
from .result import Approve

#: What runs after ``summary.json`` is written: the report's renderings and the PR comment.
STAGES = ("report", "comment")


def pull_request(review: ReviewView, env: Mapping[str, str]) -> PullRequest:
    """The PR under review from the environment and the --secreview-pr/--secreview-repo."""
    settings = review.settings
    return pull_request_from_env(env, number=settings.pr, repository=settings.repo)


def deliver(review: ReviewView, summary: Summary, env: Mapping[str, str] | None = None,
            *, stages: Collection[str] = STAGES) -> tuple[Report, list[str]]:
    """Write every output; return the report and lines for the terminal summary. ``stages``:
    which of the comment and report phases run after the artifacts and ``summary.json`` are
    written (both in a whole review; see :mod:`..phases`)."""
    env = os.environ if env is None else env
    settings = review.settings
    invocation = review.config.invocation_params.dir
    pr = pull_request(review, env)
    report = build_report(review, summary, pr)
    lines: list[str] = []

    root = invocation / settings.artifacts
    report_dir = report_dir_of(settings, invocation)
    try:
        writer = ArtifactWriter(root, own=True)
        writer.write_inputs(review.diff, review.rule_files.sources)
        writer.write_json("triage.json", review.triage.to_json())
        for nodeid, result in sorted(summary.items.items()):
            if result.artifact is not None:
                writer.write_item(nodeid, result.artifact, result.outcome)
        from ..reporting.fixes import write_fixes  # fix mode's patches, when there are any

        fix_lines = write_fixes(writer, report, review.repo)
        write_summary_json(report, report_dir)
        bound = _bind_to_run(review, report, report_dir, env)
    except OSError as exc:
        # The items' outcomes stand; the terminal says what could not be written.
        lines.append(f"report and artifacts not written: {exc}")
        return report, lines
    lines.append(f"artifacts: {root}")
    if settings.baseline_update:
        lines.append(_update_baseline(review, report, invocation))
    lines.append(f"report: {report_dir / 'summary.json'}")
    if bound is not None:
        lines.append(bound)
    lines.extend(fix_lines)
    progress = review.config.pluginmanager.get_plugin("secreview-progress")
    if progress is not None:
        lines.extend(f"progress comment: {w}" for w in progress.comment.warnings)
    try:
        deliver_rich(report, settings=settings, invocation=invocation, diff=review.diff, pr=pr,
                     report_dir=report_dir, env=env, lines=lines, stages=stages,
                     actions_log=review.config.pluginmanager.get_plugin(ACTIONS_LOG_PLUGIN))
    except OSError as exc:
        lines.append(f"output not written: {exc}")
    return report, lines


def report_dir_of(settings: Settings, invocation: Path) -> Path:
    """Where ``summary.json`` and ``summary.md`` go: --secreview-report, else
    ``<artifacts>/report``."""
    if settings.report:
        return invocation / settings.report
    return invocation / settings.artifacts / "report"
def _update_baseline(review: ReviewView, report: Report, invocation: Path) -> str:
    """``--secreview-baseline-update``: rewrite the baseline from this review's findings."""
    from ..reporting.build import batch_paths
    from ..suppression.setup import write_baseline

    batches = batch_paths(review)
    # Entries of (rule, path) pairs this review did not complete are kept as they are.
    evaluated = {(i.rule, path) for i in report.items
                 if i.rule is not None and i.outcome in ("passed", "failed")
                 for path in batches.get(i.nodeid, (i.path,))}
    # Every item's own reports, not the merged ones: the baseline mutes per rule and
    # fingerprint, so each copy of a merged problem needs its entry.
    reported = [f for item in report.items for f in item.findings]
    try:
        return write_baseline(review.settings, invocation, reported, evaluated)
    except (OSError, SecreviewError) as exc:
        return f"baseline not written: {exc}"


def _bind_to_run(review: ReviewView, report: Report, report_dir: Path,
                 env: Mapping[str, str]) -> str | None:
    """With the run's key (``SECREVIEW_RUN_KEY``), write the shard's binding beside
    ``summary.json`` (see :mod:`..reporting.run_binding`); without it, a shard of a split
    (pytest-split's ``--splits``) writes it unsigned, which binds nothing but names its group.
    Returns the line that says so."""
    try:
        key = run_key(env)
    except ValueError as exc:
        return f"report not bound to the run: {exc}"
    option = review.config.option
    if key is None and getattr(option, "splits", None) is None:
        return None
    xmlpath = getattr(option, "xmlpath", None)
    junit = (review.config.invocation_params.dir / xmlpath) if xmlpath else None
    binding = ShardBinding(
        run_id=env.get("GITHUB_RUN_ID") or None, head_sha=report.head_sha,
        base_sha=report.base_sha, group=getattr(option, "group", None),
        splits=getattr(option, "splits", None),
        summary_sha256=sha256_file(report_dir / "summary.json"),
        junit=os.path.relpath(junit, report_dir) if junit is not None and junit.is_file()
        else None,
        junit_sha256=sha256_file(junit) if junit is not None and junit.is_file() else None)
    written = write_binding(report_dir, binding, key)
    if key is None:
        return (f"run binding: {written} is unsigned ({RUN_KEY_ENV} is not set): "
                "`secreview report --merge` counts this report only with the run's key, or "
                "unchecked with --trust-unbound-shards")
    return f"run binding: {written}"


def write_summary_json(report: Report, report_dir: Path) -> None:
    """``summary.json`` and the items' durations (pytest-split's format, for sharding)."""
    ArtifactWriter(report_dir).write_json("summary.json", report.model_dump(mode="json"))
    write_durations(report, report_dir / DURATIONS_NAME)


def deliver_rich(report: Report, *, settings: Settings, invocation: Path, diff: Diff | None,
                 pr: PullRequest, report_dir: Path, env: Mapping[str, str],
                 lines: list[str], actions_log: ActionsLog | None = None,
                 stages: Collection[str] = STAGES, client: GitHubClient | None = None,
                 approve: Approve | None = None) -> None:
    """Markdown, SARIF, GitHub Actions (stage ``report``) and the PR comment (stage
    ``comment``). ``diff`` tells which lines an inline comment may be placed on (None:
    summary comment only). In a pytest session, ``actions_log`` writes the annotations after
    pytest's last line (see :class:`~pytest_secreview.reporting.actions.ActionsLog`); without
    it they are printed now, each on a line of its own. ``client`` replaces the one built from
    the settings; ``approve`` is asked before each comment is posted (``secreview comment``)."""
    link_base = _link_base(pr, env)
    if "report" in stages:
        _render(report, settings=settings, invocation=invocation, report_dir=report_dir,
                env=env, lines=lines, actions_log=actions_log, link_base=link_base)
    if "comment" in stages:
        _comment(report, settings=settings, invocation=invocation, diff=diff, pr=pr,
                 lines=lines, link_base=link_base, client=client, approve=approve)


def _render(report: Report, *, settings: Settings, invocation: Path, report_dir: Path,
            env: Mapping[str, str], lines: list[str], actions_log: ActionsLog | None,
            link_base: str | None) -> None:
    from ..reporting.actions import (
        STEP_SUMMARY_LIMIT,
        annotations,
        in_github_actions,
        write_step_summary,
    )
    from ..reporting.markdown import to_markdown
    from ..reporting.sarif import write_sarif

    # The file and the step summary allow far more than a PR comment (which publish() fits
    # into GitHub's 65,536 characters itself).
    markdown = to_markdown(report, link_base=link_base, max_chars=STEP_SUMMARY_LIMIT)
    ArtifactWriter(report_dir).write_text("summary.md", markdown)
    if settings.sarif:
        sarif_path = invocation / settings.sarif
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


def _comment(report: Report, *, settings: Settings, invocation: Path, diff: Diff | None,
             pr: PullRequest, lines: list[str], link_base: str | None,
             client: GitHubClient | None, approve: Approve | None) -> None:
    from .comments import publish
    from .inline import commentable_from_diff

    mode = settings.comment or ("summary" if pr.can_call_api else "off")
    if mode == "off":
        return
    client = client or github_client(settings, invocation, pr)
    if client is None:
        lines.append(f"PR comment ({mode}) not posted: needs SECREVIEW_GITHUB_TOKEN or "
                     "GITHUB_TOKEN (or --secreview-dry-run), the repository and the PR number "
                     "(--secreview-repo, --secreview-pr, or GitHub Actions' environment), and "
                     "a valid GITHUB_API_URL")
        return
    result = publish(report, pr, mode=mode, client=client,  # type: ignore[arg-type]
                     commentable=commentable_from_diff(diff) if diff is not None else {},
                     link_base=link_base, approve=approve)
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
