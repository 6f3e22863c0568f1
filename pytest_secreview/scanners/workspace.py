"""The changed files as they are at the head revision, written into a scratch directory.

Scanners read files from disk; the review reads the commit under review, never the working
tree (which may be dirty, checked out elsewhere, or hold untracked files). Only regular
files are written: a tracked symlink is not followed (its blob is a path), and configuration
files a scanner would pick up from its targets are not written at all.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ..tools.gittree import GitTree

#: Files bigger than this are not scanned (the item says so).
MAX_FILE_BYTES = 4 << 20
#: Time allowed to read every blob.
READ_SECONDS = 120.0
#: Names a scanner reads as its own configuration from the tree it scans.
CONFIG_NAMES = frozenset({".bandit", ".semgrepignore", ".semgrep.yml", ".semgrepconfig"})


def _safe_parts(path: str) -> tuple[str, ...] | None:
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or any(p in ("", ".", "..", ".git") for p in parts):
        return None
    return parts


def materialise(tree: GitTree, paths: Iterable[str], workdir: Path) -> tuple[
        list[str], dict[str, str]]:
    """Write the head blobs of ``paths`` under ``workdir``; return the paths written and,
    for the others, why they were not (symlink, too large, not a regular file)."""
    written: list[str] = []
    skipped: dict[str, str] = {}
    wanted = []
    for path in paths:
        entry = tree.entries.get(path)
        parts = _safe_parts(path)
        if entry is None or entry.kind != "file":
            skipped[path] = "not a regular file at the head revision (symlink or submodule)"
        elif parts is None or parts[-1] in CONFIG_NAMES:
            skipped[path] = "a scanner configuration file, not scanned as code"
        elif entry.size > MAX_FILE_BYTES:
            skipped[path] = f"larger than {MAX_FILE_BYTES >> 20} MiB, not scanned"
        else:
            wanted.append(entry)
    root = workdir.resolve()
    deadline = time.monotonic() + READ_SECONDS
    for entry, data in tree.iter_blobs(wanted, deadline=deadline):
        target = root.joinpath(*PurePosixPath(entry.path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(entry.path)
    done = set(written)
    for entry in wanted:
        if entry.path not in done:
            skipped[entry.path] = "its content could not be read in time"
    return written, skipped
