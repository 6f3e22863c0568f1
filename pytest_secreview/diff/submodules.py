"""The submodules a revision declares: ``.gitmodules`` read from the commit, never from the
working tree (which the pull request's checkout may have changed since, or never written)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..gitcmd import run_git
from .model import FileDiff
from .parser import SUBPROJECT

#: The tree mode of a submodule.
GITLINK_MODE = "160000"


def submodule_urls(repo: Path, commit: str) -> dict[str, str]:
    """Path -> URL of every submodule ``.gitmodules`` declares at ``commit`` (empty when the
    commit has no ``.gitmodules`` or it does not parse: the caller says "URL unknown")."""
    proc = run_git(repo, "config", "--null", "--blob", f"{commit}:.gitmodules",
                   "--get-regexp", r"^submodule\..*\.(path|url)$", check=False)
    if proc.returncode != 0:
        return {}
    paths: dict[str, str] = {}
    urls: dict[str, str] = {}
    for record in proc.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = record.partition("\n")
        name, _, field = key.removeprefix("submodule.").rpartition(".")
        if field == "path":
            paths[name] = value
        elif field == "url":
            urls[name] = value
    return {path: urls[name] for name, path in paths.items() if name in urls}


def gitlinks(repo: Path, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """Path -> commit of each of ``paths`` that is a submodule (a gitlink) at ``commit``. A
    pure rename of a submodule shows in the diff with no mode and no hunk: only the tree
    says what it is."""
    if not paths:
        return {}
    proc = run_git(repo, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--",
                   *paths)
    found = {}
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = record.partition("\t")
        mode, _, rest = meta.partition(" ")
        if mode == GITLINK_MODE:
            found[path] = rest.partition(" ")[2]
    return found


def submodule_commit(file: FileDiff) -> str | None:
    """The commit a changed submodule points at in the head revision, from its diff."""
    for hunk in file.hunks:
        for text in hunk.added_texts():
            if text.startswith(SUBPROJECT):
                return text[len(SUBPROJECT):].strip() or None
    return None
