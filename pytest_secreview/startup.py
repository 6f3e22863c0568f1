"""Start-up: the review state of this process, from the range, the diff, the base revision's
trusted settings and the rule files; an xdist worker takes them from the controller's
:class:`~.handoff.Handoff`. Raises ``pytest.UsageError`` with the fix for every bad input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from . import steering
from .agent.guidance import load_guidance
from .diff.model import Diff
from .diff.prefetch import DiffPrefetch
from .errors import SecreviewError
from .handoff import Handoff
from .options import Settings
from .rules.loader import RuleFiles, find_rule_files
from .rules.matcher import PreparedDiff
from .state import ReviewState
from .suppression.apply import Quiet
from .suppression.authority import Authority, author_authority
from .suppression.setup import load_quiet
from .triage.ignore import read_ignore_file
from .triage.links import read_links

if TYPE_CHECKING:
    from .agent.guidance import Guidance
    from .evaluation.evaluate import Reviewer
    from .phases.inputs import StoredDiff


def start_review(
    config: pytest.Config, settings: Settings, session_dir: Path,
    prefetch: DiffPrefetch | StoredDiff | None, handoff: Handoff | None = None,
) -> ReviewState:
    """Resolve the range, take the diff ``prefetch`` computed (git's, or a phase's stored
    one) and find the rule files; an xdist worker takes them from the controller's
    ``handoff`` instead.

    Raises ``pytest.UsageError`` with an actionable message for every bad input.
    """
    if handoff is not None:
        return _from_handoff(config, handoff, session_dir)
    assert prefetch is not None
    invocation = config.invocation_params.dir
    notes: list[str] = []
    try:
        repo, base_ref, diff = prefetch.result()
        settings, command_line = steering.trusted_settings(config, settings, repo,
                                                           diff.base_sha, notes)
        exposed = steering.exposure(steering.touched(diff),
                                    steering.hardening_of(config, repo, os.environ))
        steering.warn_exposure(config, exposed)
        warnings = [*(e.text for e in exposed), *notes]
        notes = list(warnings)
        rule_files = find_rule_files(
            settings.rules, repo, settings.rules_from, diff.base_sha, invocation
        )
        agent, guidance = (
            _build_reviewer(config, settings, repo, diff, session_dir, notes)
            if settings.model else (None, None)
        )
        if agent is None and settings.instructions is not None:
            # Nothing reads them without a model, but a named file that exists nowhere is a
            # usage error all the same (the run would otherwise pass, silently unguided).
            load_guidance(repo, diff.base_sha, config.invocation_params.dir,
                          settings.instructions, settings.rules_from, [])
        if settings.mode == "fix" and agent is None:
            notes.append("--secreview-mode=fix proposes patches with a model, and none is "
                         "configured: no patch was proposed; set --secreview-model")
        quiet = load_quiet(settings, repo, diff, invocation, notes)
        authority = _authority(settings, diff, notes)
        ignore = read_ignore_file(repo, diff.base_sha)
        notes += ignore.notes(diff)
        rule_files.notes[:0] = notes
    except SecreviewError as exc:
        raise pytest.UsageError(f"secreview: {exc}") from None
    links = read_links(repo, diff.head_sha, diff.files)
    return ReviewState(
        config=config,
        settings=settings,
        repo=repo,
        base_ref=base_ref,
        diff=diff,
        prepared=PreparedDiff.with_defaults(diff.files, links.aliases),
        links=links,
        rule_files=rule_files,
        ignore=ignore,
        agent=agent,
        guidance=guidance,
        warnings=warnings,
        selection=command_line.selection(),
        session_dir=session_dir,
        quiet=quiet,
        authority=authority,
    )


def _authority(settings: Settings, diff: Diff, notes: list[str]) -> Authority | None:
    """Whether the suppressions the pull request adds are a maintainer's, asked once."""
    authority = author_authority(diff, os.environ, number=settings.pr, repository=settings.repo)
    if authority is not None and not authority.writes:
        notes.append("suppressions this pull request adds mute only findings below "
                     f"--secreview-fail-on ({settings.fail_on.value}); the others await a "
                     f"maintainer: {authority.reason}")
    return authority


def _from_handoff(config: pytest.Config, handoff: Handoff, session_dir: Path) -> ReviewState:
    """A worker's review state from the controller's start-up: only the model review (its
    clients and credentials stay in each process) is built here."""
    settings = handoff.settings
    notes: list[str] = []
    try:
        agent, guidance = (_build_reviewer(config, settings, handoff.repo, handoff.diff,
                                           session_dir, notes, handoff.guidance)
                           if settings.model else (None, None))
    except SecreviewError as exc:
        raise pytest.UsageError(f"secreview: {exc}") from None
    links = read_links(handoff.repo, handoff.diff.head_sha, handoff.diff.files)
    return ReviewState(
        config=config, settings=settings, repo=handoff.repo, base_ref=handoff.base_ref,
        diff=handoff.diff, prepared=PreparedDiff.with_defaults(handoff.diff.files, links.aliases),
        links=links,
        rule_files=RuleFiles(list(handoff.rule_files.sources),
                             [*handoff.rule_files.notes, *notes]),
        ignore=handoff.ignore, agent=agent, guidance=guidance,
        warnings=list(handoff.warnings), selection=dict(handoff.selection),
        session_dir=session_dir, quiet=Quiet(handoff.repo, handoff.diff, handoff.baseline),
        authority=handoff.authority,
    )


def _build_reviewer(config: pytest.Config, settings: Settings, repo: Path, diff: Diff,
                    session_dir: Path, notes: list[str], guidance: Guidance | None = None,
                    ) -> tuple[Reviewer, Guidance]:
    # Only a review with a model loads the model clients (collection stays light).
    from .reviewer import build_reviewer

    return build_reviewer(config, settings, repo, diff, session_dir, notes, guidance)
