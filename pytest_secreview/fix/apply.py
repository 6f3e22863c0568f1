"""Apply a proposed patch to the head revision without touching the user's checkout.

The patch goes through ``git apply --cached --check`` and ``git apply --cached`` on a
temporary index file read from the head commit, then ``git write-tree`` and ``git
commit-tree``: the result is an unreferenced commit whose parent is the head. The working
tree, the real index, the refs and HEAD are never touched; the only trace is loose objects
in the repository's object database, which ``git gc`` prunes like any unreachable object.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import GitError
from ..gitcmd import run_git

#: The identity of the throw-away commit (never pushed, never on a branch); fixed, with a
#: fixed date, so the same patch gives the same commit.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "pytest-secreview", "GIT_AUTHOR_EMAIL": "secreview@localhost",
    "GIT_COMMITTER_NAME": "pytest-secreview", "GIT_COMMITTER_EMAIL": "secreview@localhost",
    "GIT_AUTHOR_DATE": "1970-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "1970-01-01T00:00:00Z",
}
#: ``--recount``: models miscount hunk lengths; the context lines must still match exactly.
_APPLY = ("apply", "--cached", "--recount", "--whitespace=nowarn", "-p1")


class PatchRejected(Exception):
    """The patch does not apply to the head revision; the message says why (git's words)."""


@dataclass(frozen=True)
class AppliedPatch:
    """A patch applied to a private copy of the head revision."""

    commit: str  # unreferenced commit: head + the patch
    diff: str  # the patch as git writes it (recounted, canonical headers)


def apply_to_head(repo: Path, head_sha: str, patch: str, paths: tuple[str, ...]
                  ) -> AppliedPatch:
    """Apply ``patch`` (already checked by :func:`~.tool.clean_patch`) to ``head_sha``.

    Raises :class:`PatchRejected` when git refuses it, :class:`GitError` when git itself
    fails."""
    data = patch.encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="secreview-fix-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **_IDENTITY}
        run_git(repo, "read-tree", head_sha, env=env)
        check = run_git(repo, *_APPLY, "--check", "-", input_bytes=data, check=False, env=env)
        if check.returncode != 0:
            raise PatchRejected(_git_words(check.stderr) or "git apply --check refused it")
        run_git(repo, *_APPLY, "-", input_bytes=data, env=env)
        tree = run_git(repo, "write-tree", env=env).stdout.decode().strip()
    commit = run_git(repo, "commit-tree", tree, "-p", head_sha, "-m",
                     "pytest-secreview proposed fix (never pushed)", env=_IDENTITY
                     ).stdout.decode().strip()
    diff = run_git(repo, "diff", "--text", "--no-ext-diff", "--no-textconv", "--no-color", head_sha,
                   commit, "--", *paths).stdout.decode("utf-8", "replace")
    if not diff.strip():
        raise PatchRejected("the patch changes nothing")
    return AppliedPatch(commit=commit, diff=diff)


def combine(repo: Path, head_sha: str, patches: Sequence[str]) -> tuple[str, list[int]]:
    """One patch with every one of ``patches`` that still applies after those before it
    (each was made against the head revision alone, so two may touch the same lines), and
    the indexes of those left out. Same temporary-index discipline as :func:`apply_to_head`.
    """
    skipped: list[int] = []
    with tempfile.TemporaryDirectory(prefix="secreview-fix-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        run_git(repo, "read-tree", head_sha, env=env)
        for index, patch in enumerate(patches):
            data = patch.encode("utf-8")
            check = run_git(repo, *_APPLY, "--check", "-", input_bytes=data, check=False,
                            env=env)
            if check.returncode != 0:
                skipped.append(index)
                continue
            run_git(repo, *_APPLY, "-", input_bytes=data, env=env)
        tree = run_git(repo, "write-tree", env=env).stdout.decode().strip()
    diff = run_git(repo, "diff", "--text", "--no-ext-diff", "--no-textconv", "--no-color",
                   head_sha, tree).stdout.decode("utf-8", "replace")
    return diff, skipped


def read_blob(repo: Path, commit: str, path: str) -> str | None:
    """``path`` at ``commit`` as text (None when it is not there or not UTF-8)."""
    try:
        data = run_git(repo, "cat-file", "blob", f"{commit}:{path}").stdout
    except GitError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _git_words(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    return "; ".join(line for line in lines if line)[:400]
