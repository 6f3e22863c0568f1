"""Find the pull request's base and stream its diff out of git.

Every git call goes through :mod:`pytest_secreview.gitcmd`. Refs are validated, resolved to
full SHAs once, and only SHAs reach ``git diff``, so the reviewed range cannot move while the
session runs.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO

from ..errors import GitError
from ..gitcmd import popen_git, run_git, validate_ref
from .model import Diff, FileDiff
from .parser import DEFAULT_MAX_FILE_BYTES, DiffParseError, parse_diff

__all__ = ["DIFF_OPTIONS", "load_diff", "resolve_base"]

#: Options of the one ``git diff`` that produces the reviewed patch.
DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--find-renames",
    "--find-copies",
    "--unified=3",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
    "--no-relative",
    # A pull request can add "ignore = all" for a submodule in .gitmodules to hide its bump.
    "--ignore-submodules=none",
)

_READ_SIZE = 64 * 1024
_STDERR_LIMIT = 64 * 1024


def _ensure_repo(repo: Path) -> Path:
    """Return the repository's absolute git directory, or explain that there is none."""
    hint = "; run pytest --secreview inside a checkout of the repository under review"
    if not repo.is_dir():
        raise GitError(f"{repo} is not a git repository (no such directory){hint}")
    proc = run_git(repo, "rev-parse", "--absolute-git-dir", check=False)
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = f" ({why[0]})" if why else ""
        raise GitError(f"{repo} is not a git repository{detail}{hint}")
    return Path(proc.stdout.decode("utf-8", "surrogateescape").strip())


def _resolves(repo: Path, ref: str) -> str | None:
    proc = run_git(
        repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}",
        check=False,
    )
    sha = proc.stdout.decode("ascii", "replace").strip()
    return sha if proc.returncode == 0 and sha else None


def resolve_base(repo: Path, base: str | None, env: Mapping[str, str]) -> str:
    """Choose the base ref of the review.

    ``base`` when given (``--base``); else ``origin/$GITHUB_BASE_REF`` when that variable is
    set (GitHub Actions ``pull_request`` events); else ``origin/HEAD`` when it resolves.
    Raises :class:`GitError` asking for ``--base`` when none applies, or when the value is
    not a plausible revision.
    """
    if base:
        return validate_ref(base)
    github_base = env.get("GITHUB_BASE_REF", "").strip()
    if github_base:
        return validate_ref(f"origin/{github_base}")
    _ensure_repo(repo)
    if _resolves(repo, "origin/HEAD"):
        return "origin/HEAD"
    raise GitError(
        "cannot tell which branch this change is compared with: pass --base origin/main "
        "(or the branch your pull request targets); origin/HEAD does not resolve and "
        "GITHUB_BASE_REF is not set"
    )


#: The remedy for a clone without the history the review needs.
_UNSHALLOW = ("fetch the history, e.g. `fetch-depth: 0` in actions/checkout, or run "
              "`git fetch --unshallow` (or `git fetch --deepen=<n>`) before pytest --secreview")


def _is_shallow(repo: Path) -> bool:
    proc = run_git(repo, "rev-parse", "--is-shallow-repository", check=False)
    return proc.stdout.strip() == b"true"


def _resolve_sha(repo: Path, ref: str, role: str) -> str:
    sha = _resolves(repo, ref)
    if sha is None:
        if ref == "HEAD":
            hint = "the repository has no commits yet"
        elif _is_shallow(repo):
            # Both are missing: the branch (a single-branch clone has no origin/<base>) and
            # the history that meets it. One command brings both.
            branch = ref.removeprefix("origin/")
            hint = (f"this is a shallow clone without it: {_UNSHALLOW}; from the command "
                    f"line, one command fetches both the history and the branch: git fetch "
                    f"--unshallow origin {branch}:refs/remotes/origin/{branch}")
        else:
            branch = ref.removeprefix("origin/")
            hint = f"if it is a branch of the remote, fetch it first: git fetch origin {branch}"
        raise GitError(f"unknown {role} revision {ref!r}: no such commit in {repo}; {hint}")
    return sha


def _merge_base(repo: Path, base_sha: str, head_sha: str, base_ref: str) -> str:
    proc = run_git(repo, "merge-base", "--end-of-options", base_sha, head_sha, check=False)
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode == 0 and sha:
        return sha
    if proc.returncode != 1:
        msg = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git merge-base failed: {msg or f'exit status {proc.returncode}'}")
    if _is_shallow(repo):
        raise GitError(
            f"no common ancestor of {base_ref!r} and HEAD in this shallow clone: {_UNSHALLOW}")
    raise GitError(
        f"{base_ref!r} and the head share no history (unrelated histories): pass a --base "
        "that the reviewed branch was created from"
    )


def resolve_range(repo: Path, base_ref: str, head_ref: str = "HEAD") -> tuple[str, str]:
    """(merge base, head SHA) of the range :func:`load_diff` would diff, without diffing:
    how a later phase checks that a stored diff is still the repository's."""
    validate_ref(base_ref)
    validate_ref(head_ref)
    _ensure_repo(repo)
    head_sha = _resolve_sha(repo, head_ref, "head")
    return _merge_base(repo, _resolve_sha(repo, base_ref, "base"), head_sha, base_ref), head_sha


def _drain(stream: IO[bytes], sink: bytearray) -> None:
    # Keep reading so git never blocks on a full stderr pipe; keep only the start.
    for chunk in iter(lambda: stream.read(_READ_SIZE), b""):
        room = _STDERR_LIMIT - len(sink)
        if room > 0:
            sink += chunk[:room]


def _reap(proc: subprocess.Popen[bytes], reader: threading.Thread) -> int:
    """Wait for git and the stderr reader, closing both pipes; return git's exit status."""
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    returncode = proc.wait()
    reader.join()
    proc.stderr.close()
    return returncode


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    return iter(lambda: stream.read(_READ_SIZE), b"")


def load_diff(
    repo: Path,
    base_ref: str,
    head_ref: str = "HEAD",
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    paths: Collection[str] | None = None,
) -> Diff:
    """Parse the diff of ``merge-base(base_ref, head_ref)..head_ref`` in ``repo`` (``paths``:
    only those files, taken literally; git then pairs renames only among them).

    The patch is streamed from one ``git diff`` process and parsed as it arrives, so memory
    stays bounded by ``max_file_bytes`` per file (larger files come back with
    ``too_large=True``). Raises :class:`GitError` with an actionable message when ``repo`` is
    not a repository, a ref is unknown, there is no merge base (shallow clone or unrelated
    histories) or git fails.
    """
    validate_ref(base_ref)
    validate_ref(head_ref)
    git_dir = _ensure_repo(repo)
    base_sha = _resolve_sha(repo, base_ref, "base")
    head_sha = _resolve_sha(repo, head_ref, "head")
    merge_base = _merge_base(repo, base_sha, head_sha, base_ref)
    # Run from inside the git directory as a bare repository: git then ignores the working
    # tree's .gitattributes, which the pull request controls and could use to mark source
    # files "-diff" (shown as binary, so never reviewed).
    if paths is not None and not paths:
        return Diff(base_sha=merge_base, head_sha=head_sha, files=())  # no pathspec = all
    pathspecs = [f":(literal){path}" for path in sorted(paths)] if paths is not None else []
    proc = popen_git(
        git_dir, "--bare", "diff", *DIFF_OPTIONS, "--end-of-options", merge_base, head_sha, "--",
        *pathspecs,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr = bytearray()
    reader = threading.Thread(target=_drain, args=(proc.stderr, stderr), daemon=True)
    reader.start()
    parse_error: DiffParseError | None = None
    files: tuple[FileDiff, ...] = ()
    try:
        files = tuple(parse_diff(_chunks(proc.stdout), max_file_bytes=max_file_bytes))
    except DiffParseError as exc:
        parse_error = exc
    except BaseException:
        proc.kill()
        _reap(proc, reader)
        raise
    if parse_error is not None and proc.poll() is None:
        proc.kill()  # it may still be writing a diff nobody will read
    returncode = _reap(proc, reader)
    msg = stderr.decode("utf-8", "replace").strip()
    if parse_error is not None:
        said = f" (git said: {msg})" if msg else ""
        raise GitError(f"could not parse the output of git diff: {parse_error}{said}") from (
            parse_error
        )
    if returncode != 0:
        raise GitError(
            f"git diff {merge_base[:12]}..{head_sha[:12]} failed: "
            f"{msg or f'exit status {returncode}'}"
        )
    return Diff(base_sha=merge_base, head_sha=head_sha, files=files)
