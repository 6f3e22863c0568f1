"""The evaluate phase's output and what the comment and report phases read from it.

``phases/evaluate.json`` points at the ``summary.json`` the evaluation wrote (the same file
as a whole review's) and records its SHA-256 and the diff's, so the comment and report phases
publish exactly that evaluation, or refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diff.git import load_diff, resolve_range
from ..diff.model import Diff
from ..diff.prefetch import repository_root
from ..errors import SecreviewError
from ..reporting.merge import load_report
from ..reporting.model import Report
from ..trust import tracked_under
from .inputs import decode_diff, load_stored_diff, refuse_tracked
from .store import (
    PhaseError,
    check_made_from,
    check_range,
    phase_file,
    read_phase,
    sha256_of,
    write_phase,
)


def _relative(path: Path, root: Path) -> str:
    # Relative to the artifacts directory when inside it: the directory can be moved
    # (uploaded by one CI job, downloaded by the next) and still be read.
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def _checkout(start: Path) -> Path | None:
    try:
        return repository_root(start)
    except SecreviewError:
        return None  # the comment and report phases may run without a checkout


def write_evaluation(root: Path, report_dir: Path, diff: Diff) -> Path:
    """``phases/evaluate.json`` for the ``summary.json`` in ``report_dir``."""
    summary = report_dir / "summary.json"
    rules = phase_file(root, "rules")
    data: dict[str, Any] = {
        "base_sha": diff.base_sha, "head_sha": diff.head_sha,
        "summary": _relative(summary, root), "summary_sha256": sha256_of(summary),
        "diff_sha256": sha256_of(phase_file(root, "diff")),
        "rules_sha256": sha256_of(rules) if rules.is_file() else None,
    }
    return write_phase(root, "evaluate", data)


def load_evaluation(root: Path, *, needed_by: str, start: Path, base: str | None = None,
                    head: str = "HEAD") -> tuple[Report, Path, Diff]:
    """(report, its directory, diff) of the evaluate phase, checked to belong together:
    ``evaluate.json`` made from this ``diff.json`` and pointing at an unchanged
    ``summary.json``. Raises :class:`PhaseError` naming what to run again.

    Run inside a checkout (``start``), ``diff.json`` is also checked against it exactly as
    the later phases of a pytest run check it (:func:`~.inputs.load_stored_diff`: ``head``
    and the merge base with ``base``, default the stored base ref), so a push after the
    evaluation is refused rather than published. Outside any checkout (a job that only
    downloaded the artifacts) there is no repository to check against: the files are only
    checked to belong to each other.

    Without ``evaluate.json``, the report of a plain ``pytest --secreview`` run with these
    artifacts is read instead (:func:`load_run_report`)."""
    if not phase_file(root, "evaluate").is_file() and run_summary(root).is_file():
        return load_run_report(root, needed_by=needed_by, start=start, base=base, head=head)
    if _checkout(start) is None:
        diff = decode_diff(root, read_phase(root, "diff", needed_by=needed_by))
    else:
        _repo, _base_ref, diff, _data = load_stored_diff(root, start, base, head,
                                                         needed_by=needed_by)
    data = read_phase(root, "evaluate", needed_by=needed_by)
    check_range(data, diff.base_sha, diff.head_sha, what=phase_file(root, "evaluate"),
                phase="evaluate", needed_by=needed_by)
    check_made_from(data, "diff_sha256", phase_file(root, "diff"), phase="evaluate",
                    needed_by=needed_by)
    summary = root / str(data.get("summary", ""))
    if not summary.is_file():
        raise PhaseError(f"{needed_by} needs {summary} (named by {phase_file(root, 'evaluate')}"
                         "), which does not exist: run `secreview evaluate` first")
    check_made_from(data, "summary_sha256", summary, phase="evaluate", needed_by=needed_by)
    return load_report(summary), summary.parent, diff


def run_summary(root: Path) -> Path:
    """Where a plain run with ``--secreview-artifacts root`` writes ``summary.json``."""
    return root / "report" / "summary.json"


def load_run_report(root: Path, *, needed_by: str, start: Path, base: str | None = None,
                    head: str = "HEAD") -> tuple[Report, Path, Diff]:
    """(report, its directory, diff) of a plain ``pytest --secreview`` run.

    Such a run stores no diff (``phases/diff.json`` would hold every line the pull request
    added, secrets included, in uploaded artifacts): the diff is read from git again, for the
    range ``summary.json`` names, inside the checkout. The report is refused when the
    checkout tracks it (a pull request could commit a "report"), or when ``head`` and its
    merge base with ``base`` (default: the report's base ref) are no longer that range."""
    summary = run_summary(root)
    repo = _checkout(start)
    if repo is None:
        raise PhaseError(f"{needed_by} reads {summary}, a plain run's report, and the diff it "
                         "reviewed from git: run it inside the repository's checkout")
    refuse_tracked(root, repo)
    if tracked_under(repo, "HEAD", summary.parent):
        raise PhaseError(f"{summary.parent} holds files committed in the checked-out revision; "
                         "a report is never read from the pull request. Use an artifacts "
                         "directory outside the repository's tracked files")
    report = load_report(summary)
    base_ref = base or report.base_ref
    try:
        merge_base, head_sha = resolve_range(repo, base_ref, head)
    except SecreviewError as exc:
        raise PhaseError(f"{needed_by}: cannot check {summary} against the repository: {exc}"
                         ) from None
    if (report.base_sha, report.head_sha) != (merge_base, head_sha):
        raise PhaseError(
            f"{needed_by}: {summary} is the review of {report.base_sha[:12]}..."
            f"{report.head_sha[:12]}, but {base_ref}...{head} is now {merge_base[:12]}..."
            f"{head_sha[:12]}; run the review again for this range")
    try:
        diff = load_diff(repo, report.base_sha, report.head_sha)
    except SecreviewError as exc:
        raise PhaseError(f"{needed_by}: cannot read the diff of {summary} from git: {exc}"
                         ) from None
    return report, summary.parent, diff


def write_comment_record(root: Path, report: Report, lines: list[str]) -> Path:
    """``phases/comment.json``: what the comment phase did (its terminal lines)."""
    return write_phase(root, "comment", {
        "base_sha": report.base_sha, "head_sha": report.head_sha, "lines": lines})
