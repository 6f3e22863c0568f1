"""File contents for the deterministic layer: the pull request's changed files at head and
base, read from git objects (never the working tree) with one ``git cat-file --batch`` per
revision, and the taint session built on them."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ..analysis.session import ChangedFile, LineRuns, TaintSession
from ..diff.model import ChangeKind, Diff
from ..rules.model import Rule
from ..tools.gittree import GitTree
from ..triage.plan import TAINT_SUFFIXES

#: Reading the changed files of one revision stops after this many seconds spent in git
#: (the analysis between two reads does not count: on a large pull request it runs for
#: minutes on a slow runner, and counting it would drop the last files read).
READ_DEADLINE = 120.0


#: Blobs read from git at once (and held) while the taint engine walks the changed files.
WINDOW_BYTES = 1 << 20


class GitFiles:
    """A :class:`~pytest_secreview.analysis.session.FileSource` over two commits.

    The engine reads the changed files in the order it was given them (with a few jumps to
    a called module): each miss reads the requested file and the ones after it, up to
    ``window_bytes``, in one ``git cat-file --batch``, and only that window is held.
    """

    def __init__(self, repo: Path, base_sha: str, head_sha: str,
                 head_paths: Sequence[str], base_paths: Sequence[str], *,
                 window_bytes: int = WINDOW_BYTES, read_budget: float = READ_DEADLINE) -> None:
        self._window_bytes = window_bytes
        self._budget = read_budget
        self._trees = {"head": GitTree(repo, head_sha), "base": GitTree(repo, base_sha)}
        self._wanted = {"head": tuple(head_paths), "base": tuple(base_paths)}
        self._where = {side: {p: i for i, p in enumerate(paths)}
                       for side, paths in self._wanted.items()}
        self._window: dict[str, dict[str, bytes]] = {"head": {}, "base": {}}
        self._spent: dict[str, float] = {"head": 0.0, "base": 0.0}  # seconds in git
        self._lock = threading.Lock()

    def _read(self, side: str, path: str) -> bytes | None:
        with self._lock:
            window = self._window[side]
            if path in window:
                return window[path]
            start = self._where[side].get(path)
            if start is None:
                return None
            # One budget of git time per revision (as when it was read at once).
            began = time.monotonic()
            deadline = began + self._budget - self._spent[side]
            tree = self._trees[side]
            entries = []
            size = 0
            for wanted in self._wanted[side][start:]:
                entry = tree.entries.get(wanted)
                if entry is not None and entry.kind == "file":
                    entries.append(entry)
                    size += entry.size
                    if size >= self._window_bytes:
                        break
            window = {e.path: data for e, data in tree.iter_blobs(entries, deadline=deadline)}
            self._spent[side] += time.monotonic() - began
            self._window[side] = window
            return window.get(path)

    def head(self, path: str) -> bytes | None:
        """``path`` at the head revision, or None."""
        return self._read("head", path)

    def base(self, path: str) -> bytes | None:
        """``path`` at the base revision, or None."""
        return self._read("base", path)


def taint_session(repo: Path, diff: Diff, rules: Sequence[Rule]) -> TaintSession | None:
    """The taint session of a review, or None when no rule has a ``taint:`` section."""
    specs = [r.taint for r in rules if r.taint is not None]
    if not specs:
        return None
    changed: list[ChangedFile] = []
    base_paths: list[str] = []
    for f in diff.files:
        if not (f.reviewable and f.path.endswith(TAINT_SUFFIXES)):
            continue
        old = f.old_path if f.old_path and f.old_path != f.path else None
        changed.append(ChangedFile(f.path, old, LineRuns(f.added_numbers())))
        if f.kind is not ChangeKind.ADDED:
            base_paths.append(old or f.path)
    head_paths = [c.path for c in changed]
    files = GitFiles(repo, diff.base_sha, diff.head_sha, head_paths, base_paths)
    return TaintSession(files, specs, changed)

