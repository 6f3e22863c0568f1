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
import re
from pathlib import Path

from pydantic import Field

from ..errors import GitError
from ..gitcmd import run_git, validate_ref
from .errors import GateDenied, ToolError
from .gate import Gate
from .gittree import GIT_TIMEOUT, GitTree, resolve_commit, run_git_capped
from .limits import ToolLimits
from .registry import Tool
from .sandbox import MAX_PATH_CHARS, clean_relative
from .schema import ToolArgs

_DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "-M")
# More exclusions than this would not fit a command line; the tool refuses instead.
_MAX_EXCLUDES = 2000
#: Paths one ``git_diff`` call may name.
MAX_DIFF_PATHS = 50
# Room left in a result for the header, the cut note and the gate's list.
_NOTE_ROOM = 3000

_FILE_HEADER = re.compile(r"^diff --git a/.* b/(?P<path>.*)$")
_HUNK_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")


class GitDiffArgs(ToolArgs):
    """Arguments of ``git_diff``."""

    base: str | None = Field(
        default=None, max_length=255, description="Branch, tag or commit SHA to diff against."
    )
    paths: list[str] | None = Field(
        default=None, max_length=MAX_DIFF_PATHS,
        description="Only the changes to these files or directories (repository-relative, "
        "e.g. ['src/app.py']). Default: every changed file.",
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
    paths: list[str] | None = Field(
        default=None, max_length=MAX_DIFF_PATHS,
        description="Only the changes to these files or directories. Default: all.",
    )


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

    def _patch(self, *args: str, again: str, at_head: bool) -> str:
        """git's patch output fitted to the result limit at a file boundary (or inside one
        file's diff), followed by a note naming what was not shown and the call that shows it:
        ``again`` is the tool call with ``{paths}`` left to fill in; ``at_head`` when the
        patch's new side is the reviewed head, so ``read_file`` shows the rest of a cut file."""
        data, _truncated = run_git_capped(
            self.root, *args, max_bytes=self.limits.git_output_bytes
        )
        text = data.decode("utf-8", "replace")
        budget = self.limits.max_output_chars - _NOTE_ROOM
        if len(text) <= budget:
            return text
        return _fit_patch(text, budget, again, at_head=at_head)

    def _pathspecs(self, paths: list[str] | None, tool: str) -> list[str]:
        """Literal pathspecs for the paths a model asked for, each checked by the sandbox and
        the gate (a denied path refuses the call, as for the file tools)."""
        specs: list[str] = []
        for raw in paths or ():
            if len(raw) > 4 * MAX_PATH_CHARS:
                raise ToolError(f"path longer than {4 * MAX_PATH_CHARS} characters")
            path = clean_relative(raw, allow_root=True)
            self.gate.require(path, tool=tool)
            specs.append(f":(literal){path}" if path else ".")
        return specs

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
        specs = self._pathspecs(args.paths, "git_diff")
        names = self._names("diff", "--name-only", "-z", "--no-renames", "--end-of-options",
                            start, head, "--", *specs)
        excludes, notes = self._exclusions(names, "git_diff")
        base_arg = f'base="{args.base}", ' if args.base else ""
        diff = self._patch("diff", *_DIFF_FLAGS, "--end-of-options", start, head,
                           "--", *(specs or ["."]), *excludes,
                           again=f"git_diff({base_arg}paths={{paths}})", at_head=True)
        limited = f", limited to {len(specs)} paths" if specs else ""
        header = (
            f"git diff {start[:12]}..{head[:12]} (merge base of {base_ref} and the reviewed "
            f"head; {len(names)} files changed{limited})\n"
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
        specs = self._pathspecs(args.paths, "git_show")
        names = self._names("diff-tree", "-r", "-z", "--name-only", "--no-commit-id", "--root",
                            "-m", "--end-of-options", sha, "--", *specs)
        excludes, notes = self._exclusions(names, "git_show")
        shown = self._patch(
            "show", *_DIFF_FLAGS, "--no-decorate", "--no-mailmap", "--format=fuller",
            "--date=iso-strict", "--stat=120", "--patch", "--end-of-options", sha, "--",
            *(specs or ["."]), *excludes, again=f'git_show(ref="{sha}", paths={{paths}})',
            at_head=sha == self.tree.sha,
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
                    "head, to the head), optionally limited to `paths`. Default base: the PR's "
                    f"base commit. At most {limits.max_output_chars:,} characters per result: a "
                    "longer diff is cut at a file boundary and the result names the files not "
                    "shown and the call that shows them."
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
                description=(
                    "One commit's message, changed files and patch; a patch over "
                    f"{limits.max_output_chars:,} characters is cut and the result names the "
                    "files not shown and how to read them."
                ),
                function=self.git_show,
                args_model=GitShowArgs,
            ),
        ]


def _fit_patch(text: str, budget: int, again: str, *, at_head: bool) -> str:
    """``text`` (git patch output) cut to ``budget`` characters, with a note naming the files
    whose diff is not shown (or shown in part) and the ``again`` call for them."""
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    current = ""  # the file whose diff is being kept
    head_line = 0  # the head line the kept part of that file's diff reached
    cut_inside = False
    rest: list[str] = []
    for number, line in enumerate(lines):
        header = _FILE_HEADER.match(line)
        if used + len(line) + 1 > budget:
            cut_inside = not header and bool(current)
            rest = [m.group("path") for m in map(_FILE_HEADER.match, lines[number:]) if m]
            break
        if header:
            current, head_line = header.group("path"), 0
        hunk = _HUNK_HEADER.match(line)
        if hunk:
            head_line = int(hunk.group("start")) - 1
        elif current and line[:1] in (" ", "+") and not line.startswith("+++ "):
            head_line += 1
        kept.append(line)
        used += len(line) + 1
    notes: list[str] = []
    if cut_inside:
        rest_of_file = (f'read the rest with read_file(path="{current}", '
                        f"offset={head_line + 1})" if at_head
                        else "it is too long for one result")
        notes.append(f"the diff of {current!r} is cut after its new line {head_line}: "
                     f"{rest_of_file}")
        rest = [path for path in rest if path != current]
    if rest:
        shown = rest[:20]
        listed = ", ".join(f'"{path}"' for path in shown)
        more = f" (and {len(rest) - 20} more files)" if len(rest) > 20 else ""
        notes.append(
            f"the diffs of {len(rest)} more files are not shown; read them with "
            f"{again.format(paths='[' + listed + ']')}{more}"
        )
    return "\n".join(kept) + (
        f"\n[... cut to fit the {budget + _NOTE_ROOM:,}-character result limit: "
        f"{'; '.join(notes) or 'the rest is not shown'} ...]\n"
    )
