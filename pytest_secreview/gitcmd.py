"""Run git safely: argument lists only (never a shell), no pager, no colour, no hooks,
no external diff drivers or textconv, bounded in time.

Every git invocation in the product goes through :func:`run_git` so that these guarantees
hold in one place. Untrusted values (refs, paths) must be passed after ``--end-of-options``
or ``--`` by the caller; :func:`validate_ref` refuses anything that looks like an option.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .errors import GitError

#: Options that make git deterministic and inert whatever the user's or the PR's config says.
SAFE_CONFIG = (
    "-c", "core.pager=cat",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "core.quotePath=true",
    "-c", "color.ui=false",
    "-c", "diff.external=",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "log.showSignature=false",
    "-c", "protocol.allow=never",
    # git >= 2.43 reads .gitattributes from HEAD in a bare invocation: a pull request's
    # attributes (e.g. "*.py -diff") must not hide its own changes; use the empty tree.
    "-c", "attr.tree=4b825dc642cb6eb9a060e54bf8d69288fbee4904",
)

_NO_GIT = "git is not installed or not on PATH; install git to use --secreview"
_REF_RE = re.compile(r"^[A-Za-z0-9._/@{}~^+-]{1,255}$")


def git_env() -> dict[str, str]:
    """A minimal environment for git: no prompts, no pager, no user config leaking in."""
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "TMPDIR", "SYSTEMROOT"}}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C",
    )
    return env


def run_git(
    repo: Path,
    *args: str,
    timeout: float = 60.0,
    check: bool = True,
    input_bytes: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <SAFE_CONFIG> <args>`` in ``repo`` and return the completed process.

    ``env`` adds variables to the minimal environment (a temporary ``GIT_INDEX_FILE``, a
    commit identity), never the caller's whole environment.

    Raises :class:`GitError` with git's own message when it fails and ``check`` is true,
    or when it does not finish within ``timeout`` seconds.
    """
    cmd = ["git", *SAFE_CONFIG, *args]
    try:
        proc = subprocess.run(
            cmd,
            cwd=repo,
            env={**git_env(), **(env or {})},
            input=input_bytes,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} did not finish within {timeout:.0f}s") from exc
    except FileNotFoundError as exc:
        if not Path(repo).is_dir():
            raise GitError(f"{repo} does not exist or is not a directory") from exc
        raise GitError(_NO_GIT) from exc
    except NotADirectoryError as exc:
        raise GitError(f"{repo} is not a directory") from exc
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
        raise GitError(f"git {args[0]} failed: {msg}")
    return proc


def popen_git(repo: Path, *args: str, stdin: bool = False) -> subprocess.Popen[bytes]:
    """Start ``git <SAFE_CONFIG> <args>`` streaming stdout (for diffs too large to buffer);
    ``stdin``: with a pipe to write git's input to (``cat-file --batch``)."""
    try:
        return subprocess.Popen(
            ["git", *SAFE_CONFIG, *args],
            cwd=repo,
            env=git_env(),
            stdin=subprocess.PIPE if stdin else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError as exc:
        raise GitError(_NO_GIT) from exc


def validate_ref(ref: str) -> str:
    """Return ``ref`` if it is a plausible revision, else raise :class:`GitError`.

    Refuses option-looking values (``--output=/tmp/x``, ``-c core.pager=...``), whitespace,
    control characters, ranges (``a..b``) and ``rev:path`` (which would read a file past the
    path gate).
    """
    if not ref or ref.startswith("-") or not _REF_RE.match(ref) or ".." in ref:
        raise GitError(f"refused revision {ref!r}: not a branch, tag, SHA or rev expression")
    return ref
