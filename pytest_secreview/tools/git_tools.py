"""History tools: ``git_diff``, ``git_log``, ``git_show``.

Refs from the model are validated (:func:`~pytest_secreview.gitcmd.validate_ref`), peeled to a
commit (a blob id seen in a diff's ``index`` line cannot be shown) and passed after
``--end-of-options``. git runs through :func:`~pytest_secreview.gitcmd.run_git`'s inert
configuration plus ``--no-ext-diff --no-textconv --no-color``; output is capped while it is
read. Files the gate denies are excluded from patches with literal exclude pathspecs, and the
result names them so the reviewer knows the change touched them.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from ..errors import GitError
from ..gitcmd import run_git, validate_ref
from .errors import GateDenied, ToolError
from .gate import Gate
from .gittree import GIT_TIMEOUT, GitTree, resolve_commit, run_git_capped
from .limits import ToolLimits
from .registry import Tool
from .schema import ToolArgs

_DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "-M")
# More exclusions than this would not fit a command line; the tool refuses instead.
_MAX_EXCLUDES = 2000


class GitDiffArgs(ToolArgs):
    """Arguments of ``git_diff``."""

    base: str | None = Field(
        default=None, max_length=255, description="Branch, tag or commit SHA to diff against."
    )


class GitLogArgs(ToolArgs):
    """Arguments of ``git_log``."""

    max_count: int | None = Field(
        default=None, ge=1,
        description="Commits to show; more than the maximum shows the maximum.",
    )


class GitShowArgs(ToolArgs):
    """Arguments of ``git_show``."""

    ref: str = Field(max_length=255, description="Commit SHA, branch or tag (not 'rev:path').")


class GitTools:
    """The history tools of one review; ``tree`` supplies the reviewed head commit."""

    def __init__(
        self,
        root: Path,
        *,
        base_sha: str,
        tree: GitTree,
        gate: Gate,
        limits: ToolLimits | None = None,
    ) -> None:
        self.root = root
        self.base_sha = validate_ref(base_sha)
        self.tree = tree
        self.gate = gate
        self.limits = limits or ToolLimits()

    def _commit(self, ref: str, tool: str) -> str:
        """The commit SHA ``ref`` names; option-like or malformed refs are denials."""
        try:
            validate_ref(ref)
        except GitError as exc:
            reason = "option-like or malformed revision (only branches, tags and SHAs)"
            self.gate.record(tool, ref, reason)
            hint = "Pass a branch, tag or commit SHA; use read_file for file contents."
            raise GateDenied(ref, reason, hint) from exc
        return resolve_commit(self.root, ref)

    def _exclusions(self, paths: list[str], tool: str) -> tuple[list[str], list[str]]:
        """Literal exclude pathspecs for denied paths, and notes naming them."""
        excludes: list[str] = []
        notes: list[str] = []
        for path in sorted(set(paths)):
            reason = self.gate.reason(path)
            if reason is not None:
                self.gate.record(tool, path, reason, stage="result")
                excludes.append(f":(exclude,literal){path}")
                notes.append(f"{path} ({reason})")
        if len(excludes) > _MAX_EXCLUDES:
            raise ToolError(
                f"this change touches {len(excludes)} files the security gate withholds; "
                "review the other files with read_file"
            )
        return excludes, notes

    def _names(self, *args: str) -> list[str]:
        out = run_git(self.root, *args, timeout=GIT_TIMEOUT).stdout
        # fsdecode round-trips bytes that are not UTF-8, so an exclude pathspec built from a
        # name reaches git as the exact bytes of the file it must hide.
        return [os.fsdecode(raw) for raw in out.split(b"\0") if raw]

    def _capped(self, *args: str) -> str:
        data, truncated = run_git_capped(
            self.root, *args, max_bytes=self.limits.git_output_bytes
        )
        text = data.decode("utf-8", "replace")
        if truncated:
            text += "\n[... truncated: git output exceeded the tool's limit ...]"
        return text

    @staticmethod
    def _withheld(notes: list[str]) -> str:
        if not notes:
            return ""
        listed = "\n".join(f"  {note}" for note in notes)
        return f"\n[changes to these files are withheld by the security gate:\n{listed}\n]"

    def git_diff(self, args: GitDiffArgs) -> str:
        """The pull request's diff: merge base of ``base`` and head, to head."""
        base_ref = args.base or self.base_sha
        base = self._commit(base_ref, "git_diff")
        head = self.tree.sha
        merge_base = run_git(
            self.root, "merge-base", "--end-of-options", base, head,
            timeout=GIT_TIMEOUT, check=False,
        ).stdout.decode("ascii", "replace").strip()
        start = merge_base or base  # unrelated histories: compare the two trees directly
        names = self._names("diff", "--name-only", "-z", "--no-renames", "--end-of-options",
                            start, head)
        excludes, notes = self._exclusions(names, "git_diff")
        diff = self._capped("diff", *_DIFF_FLAGS, "--end-of-options", start, head,
                            "--", *excludes)
        header = (
            f"git diff {start[:12]}..{head[:12]} (merge base of {base_ref} and the reviewed "
            f"head; {len(names)} files changed)\n"
        )
        return header + (diff or "(no changes)\n") + self._withheld(notes)

    def git_log(self, args: GitLogArgs) -> str:
        """Recent commits of the reviewed head, newest first, with file statistics."""
        limits = self.limits
        count = min(args.max_count or limits.log_default_count, limits.log_max_count)
        return self._capped(
            "log", "--no-color", "--no-decorate", "--no-mailmap", "--no-ext-diff",
            "--no-textconv", "--format=medium", "--date=iso-strict", "--stat=120",
            "--stat-count=50", f"--max-count={count}", "--end-of-options", self.tree.sha, "--",
        )

    def git_show(self, args: GitShowArgs) -> str:
        """One commit: message, statistics and patch."""
        sha = self._commit(args.ref, "git_show")
        names = self._names("diff-tree", "-r", "-z", "--name-only", "--no-commit-id", "--root",
                            "-m", "--end-of-options", sha)
        excludes, notes = self._exclusions(names, "git_show")
        shown = self._capped(
            "show", *_DIFF_FLAGS, "--no-decorate", "--no-mailmap", "--format=fuller",
            "--date=iso-strict", "--stat=120", "--patch", "--end-of-options", sha, "--",
            *excludes,
        )
        return shown + self._withheld(notes)

    def tools(self) -> list[Tool]:
        """The three history tools, declared for the registry."""
        limits = self.limits
        return [
            Tool(
                name="git_diff",
                description=(
                    "The pull request's diff (from the merge base of `base` and the reviewed "
                    "head, to the head). Default base: the PR's base commit."
                ),
                function=self.git_diff,
                args_model=GitDiffArgs,
            ),
            Tool(
                name="git_log",
                description=(
                    "Recent commits of the reviewed head, newest first, with changed files and "
                    f"line counts: {limits.log_default_count} by default, at most "
                    f"{limits.log_max_count}."
                ),
                function=self.git_log,
                args_model=GitLogArgs,
            ),
            Tool(
                name="git_show",
                description="One commit's message, changed files and patch.",
                function=self.git_show,
                args_model=GitShowArgs,
            ),
        ]
