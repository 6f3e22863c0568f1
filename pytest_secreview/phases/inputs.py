"""Reading the earlier phases' artifacts back for a later phase: the diff (checked against
the repository), the rule files and model triage, and the evaluation's report."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..diff.git import resolve_range
from ..diff.model import Diff
from ..diff.prefetch import repository_root
from ..errors import SecreviewError
from ..rules.loader import RuleFiles, RuleSource
from ..trust import tracked_under
from .diff_codec import diff_from_json
from .store import PhaseError, check_made_from, check_range, phase_dir, phase_file, read_phase


class StoredDiff:
    """Stands in for :class:`~..diff.prefetch.DiffPrefetch` in a run that starts after the
    diff phase: the diff comes from ``phases/diff.json``, after checking that the repository
    still has that range (the head and the merge base git resolves now)."""

    def __init__(self, root: Path, start: Path, base: str | None, head: str,
                 env: Mapping[str, str], needed_by: str) -> None:
        self.root = root
        self._args = (start, base, head, dict(env))
        self.needed_by = needed_by

    def result(self) -> tuple[Path, str, Diff]:
        """(repository root, base ref, diff), as :class:`DiffPrefetch` gives them."""
        start, base, head, _env = self._args
        repo, base_ref, diff, _data = load_stored_diff(self.root, start, base, head,
                                                       needed_by=self.needed_by)
        return repo, base_ref, diff


def load_stored_diff(root: Path, start: Path, base: str | None, head: str, *,
                     needed_by: str) -> tuple[Path, str, Diff, dict[str, Any]]:
    """Read ``phases/diff.json`` and check it against the repository at ``start``: ``head``
    must resolve to the stored head and the merge base with ``base`` (the stored base ref
    when None) to the stored one. Raises :class:`PhaseError` otherwise."""
    try:
        repo = repository_root(start)
    except SecreviewError as exc:
        raise PhaseError(f"{needed_by}: {exc}") from None
    refuse_tracked(root, repo)
    data = read_phase(root, "diff", needed_by=needed_by)
    path = phase_file(root, "diff")
    base_ref = base or str(data.get("base_ref") or "")
    try:
        merge_base, head_sha = resolve_range(repo, base_ref, head)
    except SecreviewError as exc:
        raise PhaseError(f"{needed_by}: cannot check {path} against the repository: {exc}"
                         ) from None
    check_range(data, merge_base, head_sha, what=path, phase="diff", needed_by=needed_by)
    return repo, base_ref, decode_diff(root, data), data


def decode_diff(root: Path, data: Mapping[str, Any]) -> Diff:
    """The :class:`Diff` stored in ``phases/diff.json`` (read as ``data``); a damaged file
    is a :class:`PhaseError` saying to run the diff phase again."""
    try:
        return diff_from_json(data["diff"])
    except (KeyError, TypeError, ValueError) as exc:
        raise PhaseError(f"{phase_file(root, 'diff')} is damaged ({type(exc).__name__}: "
                         f"{exc}); run `secreview diff` again") from None


def refuse_tracked(root: Path, repo: Path | None) -> None:
    """Refuse phase artifacts that the checked-out commit tracks: a pull request could commit
    "results" for a later phase to publish. ``repo`` None: not run inside a checkout."""
    if repo is not None and tracked_under(repo, "HEAD", phase_dir(root)):
        raise PhaseError(
            f"{phase_dir(root)} holds files committed in the checked-out revision; a later "
            "phase never reads artifacts from the pull request. Use an artifacts directory "
            "outside the repository's tracked files")


def load_rules(root: Path, diff: Diff, *, needed_by: str) -> dict[str, Any]:
    """``phases/rules.json``, checked to be made from this ``phases/diff.json`` and range."""
    data = read_phase(root, "rules", needed_by=needed_by)
    path = phase_file(root, "rules")
    check_range(data, diff.base_sha, diff.head_sha, what=path, phase="rules",
                needed_by=needed_by)
    check_made_from(data, "diff_sha256", phase_file(root, "diff"), phase="rules",
                    needed_by=needed_by)
    return data


def rule_files_of(data: Mapping[str, Any]) -> RuleFiles:
    """The rule files the rules phase used, with its notes, from ``rules.json``."""
    sources = [RuleSource(display=str(s["display"]), path=Path(str(s["path"])),
                          raw=_raw(s), revision=s.get("revision"))
               for s in data.get("rule_files", [])]
    return RuleFiles(sources=sources, notes=[str(n) for n in data.get("notes", [])])


def rule_file_json(source: RuleSource) -> dict[str, Any]:
    """One rule file for ``rules.json``: its bytes as text, or base64 when not UTF-8."""
    out: dict[str, Any] = {"display": source.display, "path": str(source.path),
                           "revision": source.revision}
    try:
        out["text"] = source.raw.decode("utf-8")
    except UnicodeDecodeError:
        out["base64"] = base64.b64encode(source.raw).decode("ascii")
    return out


def _raw(entry: Mapping[str, Any]) -> bytes:
    if "text" in entry:
        return str(entry["text"]).encode("utf-8")
    return base64.b64decode(str(entry["base64"]))
