"""The comment and report phases on a stored evaluation: the same renderers and the same
PR comment as a whole review (:func:`~..publish.outputs.deliver_rich`), fed from
``phases/evaluate.json`` instead of a pytest session."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

from ..github.client import GitHubClient
from ..github.context import pull_request_from_env
from ..options import Settings
from ..publish.outputs import deliver_rich, write_summary_json
from ..publish.result import Approve
from ..reporting.actions import ActionsLog
from .results import load_evaluation, write_comment_record
from .store import PhaseError


def publish_stored(root: Path, *, settings: Settings, invocation: Path,
                   stages: Collection[str], lines: list[str], needed_by: str,
                   env: Mapping[str, str] | None = None, report_dir: Path | None = None,
                   client: GitHubClient | None = None, approve: Approve | None = None,
                   actions_log: ActionsLog | None = None, require_pr: bool = False) -> int:
    """Run ``stages`` (``comment``, ``report``) on the evaluation stored under ``root``;
    return the review's exit status (1 when an item failed or errored, as pytest's).

    ``report_dir``: where ``summary.md`` goes (default: next to the stored ``summary.json``;
    elsewhere, a copy of ``summary.json`` and ``durations.json`` goes with it).
    ``require_pr``: refuse, rather than post nothing, when the pull request or (unless
    ``client`` is given) a token is unknown.
    Raises :class:`~.store.PhaseError` when the evaluation is missing or stale: inside a
    checkout (``invocation``), stale includes a ``diff.json`` for another range than
    ``settings.head`` and ``settings.base`` resolve to now."""
    env = os.environ if env is None else env
    report, stored_dir, diff = load_evaluation(root, needed_by=needed_by, start=invocation,
                                               base=settings.base, head=settings.head)
    pr = pull_request_from_env(env, number=settings.pr, repository=settings.repo)
    if require_pr and not (pr.repository and pr.number):
        raise PhaseError(f"{needed_by} needs the pull request: pass --pr N and --repo "
                         "OWNER/NAME (or set SECREVIEW_PR and SECREVIEW_REPO; GitHub Actions' "
                         "event and GITHUB_REPOSITORY give both)")
    if require_pr and client is None and not pr.token:
        raise PhaseError(f"{needed_by} needs a token to post: set SECREVIEW_GITHUB_TOKEN or "
                         "GITHUB_TOKEN, or pass --dry-run to see what would be posted")
    if "report" in stages and report_dir is not None and report_dir != stored_dir:
        write_summary_json(report, report_dir)  # the JSON output goes with the others
    deliver_rich(report, settings=settings, invocation=invocation, diff=diff, pr=pr,
                 report_dir=report_dir or stored_dir, env=env, lines=lines,
                 actions_log=actions_log, stages=stages, client=client, approve=approve)
    if "comment" in stages:
        write_comment_record(root, report, lines)
    broken = report.outcomes.get("failed", 0) + report.outcomes.get("error", 0)
    return 1 if broken else 0
