"""Start and finish: the review's :class:`~.apply.Quiet` from the settings, and the baseline
rewritten from a finished review's findings (``--secreview-baseline-update``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..core.findings import Finding
from ..diff.model import Diff
from ..errors import ConfigError
from ..options import Settings
from .apply import SUPPRESSION_RULE, Quiet
from .baseline import load_baseline, parse_baseline, update_baseline

__all__ = ["baseline_path", "load_quiet", "write_baseline"]


def baseline_path(settings: Settings, invocation: Path) -> Path | None:
    """``--secreview-baseline`` resolved against the directory pytest was started in."""
    # Not resolved: whether it lies in the repository is decided on the path as written too.
    return Path(os.path.abspath(invocation / settings.baseline)) if settings.baseline else None


def load_quiet(settings: Settings, repo: Path, diff: Diff, invocation: Path,
               notes: list[str]) -> Quiet:
    """The suppressions of this review. Raises :class:`ConfigError` for a malformed baseline
    and for ``--secreview-baseline-update`` without a file."""
    path = baseline_path(settings, invocation)
    if settings.baseline_update and path is None:
        raise ConfigError("--secreview-baseline-update needs the file to write: add "
                          "--secreview-baseline FILE (for example .secreview/baseline.json)")
    if path is None:
        return Quiet(repo, diff)
    if settings.baseline_update and path.is_file():
        # The file to rewrite must parse too (its notes are kept), whatever the base holds.
        parse_baseline(path.read_text("utf-8", "replace"), str(path))
    baseline = load_baseline(path, repo, diff.base_sha, notes, updating=settings.baseline_update)
    return Quiet(repo, diff, baseline)


def write_baseline(settings: Settings, invocation: Path, findings: Iterable[Finding],
                   evaluated: set[tuple[str, str]]) -> str:
    """Rewrite the baseline from ``findings``; returns a line for the terminal summary.

    Findings suppressed inline or dismissed by the model need no entry, and a report about a
    suppression comment is not a finding to accept."""
    path = baseline_path(settings, invocation)
    assert path is not None  # load_quiet refused --secreview-baseline-update without a file
    kept = [f for f in findings if f.rule != SUPPRESSION_RULE
            and f.suppression != "inline" and not f.dismissed]
    count, noteless = update_baseline(path, kept, evaluated)
    return (f"baseline: {count} accepted finding(s) written to {path} ({noteless} without a "
            "note); entries without a note already mute, so give each a note a reviewer can "
            "check, then commit it (inside the repository it takes effect once merged)")
