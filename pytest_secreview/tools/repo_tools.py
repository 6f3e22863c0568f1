"""File tools over the reviewed revision: ``read_file``, ``list_files``, ``search_files``, and
:func:`build_registry`, which assembles every tool of one review.

Reads come from git objects at ``head_sha`` (see :mod:`.gittree`), never from the working tree:
only files tracked at the reviewed revision exist for the model, and the file system's symlinks
are never followed. Every path goes through the sandbox and the gate, before and after symlinks
in the tree are resolved.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import re2
from pydantic import Field

from ..gitcmd import validate_ref
from ..safe_regex import compile_re2
from .errors import ToolError
from .filetypes import decode_text, guess_type
from .gate import Gate, withheld_note
from .git_tools import GitTools
from .github_tools import FetchPRFiles, GitHubPRContext
from .gittree import GitTree, TreeEntry
from .globs import compile_glob
from .limits import ToolLimits
from .registry import Tool, ToolRegistry
from .sandbox import MAX_PATH_CHARS, clean_relative
from .schema import ToolArgs

#: Characters of a matching line shown by ``search_files``.
_MATCH_LINE_CHARS = 300

_PATH_DOC = "path relative to the repository root, e.g. 'src/app.py'"


class ReadFileArgs(ToolArgs):
    """Arguments of ``read_file``."""

    path: str = Field(max_length=4 * MAX_PATH_CHARS, description=f"File {_PATH_DOC}.")
    offset: int | None = Field(
        default=None, ge=1, description="First line to return, 1-based. Default 1."
    )
    limit: int | None = Field(
        default=None, ge=1,
        description="Number of lines to return; more than the maximum returns the maximum.",
    )


class ListFilesArgs(ToolArgs):
    """Arguments of ``list_files``."""

    pattern: str = Field(max_length=4096, description="Gitignore-style glob.")
    path: str | None = Field(
        default=None, max_length=4 * MAX_PATH_CHARS,
        description=f"Directory to list, {_PATH_DOC}. Default: the root.",
    )


class SearchFilesArgs(ToolArgs):
    """Arguments of ``search_files``."""

    pattern: str = Field(min_length=1, max_length=2000, description="RE2 regular expression.")
    path: str | None = Field(
        default=None, max_length=4 * MAX_PATH_CHARS,
        description=f"Directory or file to search, {_PATH_DOC}.",
    )
    glob: str | None = Field(
        default=None, max_length=4096,
        description="Only files whose path (relative to `path`) matches this gitignore-style "
        "glob, e.g. '*.py'.",
    )
    ignore_case: bool = Field(
        default=False, description="Case-insensitive matching. Default false."
    )


class RepoTools:
    """``read_file``, ``list_files`` and ``search_files`` over the tree of ``head_sha``."""

    def __init__(
        self, root: Path, *, head_sha: str, gate: Gate, limits: ToolLimits | None = None,
        tree: GitTree | None = None,
    ) -> None:
        self.tree = tree if tree is not None else GitTree(root, validate_ref(head_sha))
        self.gate = gate
        self.limits = limits or ToolLimits()

    # -- shared -------------------------------------------------------------------------

    def _locate(self, raw: str | None, tool: str) -> tuple[str, str]:
        """``(requested, resolved)`` clean paths, both checked by the gate."""
        requested = clean_relative(raw or "", allow_root=True)
        self.gate.require(requested, tool=tool)
        resolved = self.tree.resolve(requested)
        if resolved != requested:
            self.gate.require(resolved, tool=tool)
        return requested, resolved

    def _not_found(self, shown: str, resolved: str) -> ToolError:
        if resolved in self.tree.dirs:
            return ToolError(
                f"{shown!r} is a directory; call list_files(pattern=\"*\", path=\"{shown}\")"
            )
        return ToolError(
            f"{shown!r} is not a tracked file at the reviewed revision {self.tree.sha[:12]} "
            "(untracked and ignored files are not part of the review); call list_files to "
            "find files"
        )

    def _under(self, base: str) -> list[TreeEntry]:
        """Tracked entries at or below ``base``, sorted by path."""
        entries = self.tree.entries
        if base in entries:
            return [entries[base]]
        if base not in self.tree.dirs:
            raise ToolError(f"{base!r} is not a tracked file or directory at the reviewed revision")
        prefix = f"{base}/" if base else ""
        return [entries[path] for path in sorted(entries) if path.startswith(prefix)]

    @staticmethod
    def _relative(entry: TreeEntry, base: str) -> str:
        if entry.path == base:
            return entry.path.rsplit("/", 1)[-1]
        return entry.path[len(base) + 1 :] if base else entry.path

    # -- read_file ----------------------------------------------------------------------

    def read_file(self, args: ReadFileArgs) -> str:
        """Numbered lines of one tracked file, or a description when it is binary."""
        shown, resolved = self._locate(args.path, "read_file")
        entry = self.tree.entries.get(resolved)
        if entry is None:
            raise self._not_found(shown, resolved)
        if entry.kind == "submodule":
            raise ToolError(
                f"{shown!r} is a git submodule (commit {entry.oid[:12]}); its files are not "
                "part of this repository"
            )
        name = shown if resolved == shown else f"{shown} (symlink to {resolved})"
        limits = self.limits
        if entry.size > limits.max_read_bytes:
            return (
                f"{name}: {entry.size:,} bytes, too large to read (limit "
                f"{limits.max_read_bytes:,}); use search_files(pattern=..., path=\"{shown}\") "
                "to find the lines you need"
            )
        data = self.tree.read_blob(entry, max_bytes=limits.max_read_bytes)
        text = decode_text(data)
        if text is None:
            return (
                f"{name}: binary file, {entry.size:,} bytes, {guess_type(resolved, data)}; "
                "contents not shown"
            )
        return self._render_lines(name, shown, text, entry.size, args)

    def _render_lines(
        self, name: str, shown: str, text: str, size: int, args: ReadFileArgs
    ) -> str:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        total = len(lines)
        if total == 0:
            return f"{name}: empty file"
        limits = self.limits
        offset = args.offset or 1
        count = min(args.limit or limits.read_default_lines, limits.read_max_lines)
        if offset > total:
            raise ToolError(f"offset {offset} is past the end of {shown!r} ({total} lines)")
        stop = min(total, offset + count - 1)
        width = len(str(stop))
        # Leave room for the header and the continuation note within the output limit.
        budget = limits.max_output_chars - 1000
        body: list[str] = []
        used = 0
        last = offset - 1
        for number in range(offset, stop + 1):
            line = lines[number - 1]
            if len(line) > limits.max_line_chars:
                more = len(line) - limits.max_line_chars
                line = (
                    f"{line[: limits.max_line_chars]} "
                    f"[... line truncated: {more} more characters ...]"
                )
            rendered = f"{number:>{width}}\t{line}"
            if body and used + len(rendered) + 1 > budget:
                break
            body.append(rendered)
            used += len(rendered) + 1
            last = number
        header = f"{name} (lines {offset}-{last} of {total}, {size:,} bytes)"
        parts = [header, *body]
        if last < total:
            parts.append(
                f"[... truncated: lines {last + 1}-{total} not shown; call "
                f"read_file(path=\"{shown}\", offset={last + 1}) to read more ...]"
            )
        return "\n".join(parts)

    # -- list_files ---------------------------------------------------------------------

    def list_files(self, args: ListFilesArgs) -> str:
        """Tracked paths under ``path`` whose path relative to it matches ``pattern``."""
        shown, base = self._locate(args.path, "list_files")
        matches = compile_glob(args.pattern)
        found = [entry for entry in self._under(base) if matches(self._relative(entry, base))]
        allowed, withheld = self.gate.filter([entry.path for entry in found], tool="list_files")
        kinds = {entry.path: entry.kind for entry in found}
        where = f" under {shown!r}" if shown else ""
        note = withheld_note(withheld)
        if not allowed:
            text = f"No tracked files match {args.pattern!r}{where}."
        else:
            # Room for the heading, the notes and the gate's list within the output limit.
            budget = self.limits.max_output_chars - 1000 - len(note)
            lines: list[str] = []
            used = 0
            for path in allowed[: self.limits.max_list_entries]:
                row = path if kinds[path] == "file" else f"{path} ({kinds[path]})"
                if lines and used + len(row) + 1 > budget:
                    break
                lines.append(row)
                used += len(row) + 1
            heading = f"{len(allowed)} tracked files match {args.pattern!r}{where}:"
            text = "\n".join([heading, *lines])
            if len(lines) < len(allowed):
                text += "\n" + self._rest_of_listing(allowed[len(lines):], args.pattern)
        return text + (f"\n{note}" if note else "")

    @staticmethod
    def _rest_of_listing(rest: list[str], pattern: str) -> str:
        """How to list the paths a cut listing left out: the directories they are in, each a
        ``list_files`` call away."""
        dirs = list(dict.fromkeys(path.rsplit("/", 1)[0] if "/" in path else "" for path in rest))
        calls = [f'list_files(pattern="{pattern}", path="{d}")' for d in dirs[:5] if d]
        more = f" (and {len(dirs) - 5} more directories)" if len(dirs) > 5 else ""
        how = (f"; list them with {', '.join(calls)}{more}" if calls
               else "; narrow the pattern")
        return (f"[... {len(rest)} more files not shown, from {rest[0]!r} on{how} ...]")

    # -- search_files -------------------------------------------------------------------

    def _compile_search(self, args: SearchFilesArgs) -> Any:
        try:
            # never_nl: matches never span lines, so each hit is one "path:line: text".
            return compile_re2(b"(?m)" + args.pattern.encode("utf-8", "replace"),
                               case_sensitive=not args.ignore_case, never_nl=True)
        except re2.error:
            raise ToolError(
                f"pattern {args.pattern!r} is not a valid RE2 regex (no look-around or "
                "back-references; escape literal characters like '(' as '\\(')"
            ) from None

    def search_files(self, args: SearchFilesArgs) -> str:
        """Lines of tracked text files matching an RE2 regex, as ``path:line: text``."""
        shown, base = self._locate(args.path, "search_files")
        regex = self._compile_search(args)
        in_glob = compile_glob(args.glob or "")
        limits = self.limits
        candidates = [
            entry
            for entry in self._under(base)
            if entry.kind == "file" and in_glob(self._relative(entry, base))
        ]
        allowed, withheld = self.gate.filter([e.path for e in candidates], tool="search_files")
        allowed_set = set(allowed)
        candidates = [entry for entry in candidates if entry.path in allowed_set]
        large = [entry for entry in candidates if entry.size > limits.max_search_file_bytes]
        readable = [entry for entry in candidates if entry.size <= limits.max_search_file_bytes]

        deadline = time.monotonic() + limits.search_seconds
        hits: list[str] = []
        files_hit = searched = binary = used = 0
        note = withheld_note(withheld)
        # Room for the notes and the gate's list within the output limit: hits past it are
        # not shown.
        budget = limits.max_output_chars - 2000 - len(note)
        full = False
        last_path = ""
        for entry, data in self.tree.iter_blobs(readable, deadline=deadline):
            searched += 1
            if data.startswith((b"\xff\xfe", b"\xfe\xff")):
                data = data.decode("utf-16", "replace").encode("utf-8")  # search the text
            elif b"\x00" in data[:8000]:
                binary += 1
                continue
            found = self._search_blob(entry.path, data, regex, limits.max_matches - len(hits))
            for hit in found:
                if used + len(hit) + 1 > budget:
                    full = True
                    break
                hits.append(hit)
                used += len(hit) + 1
            if found:
                files_hit += 1
                last_path = entry.path
            if full or len(hits) >= limits.max_matches or time.monotonic() >= deadline:
                break

        notes = [f"searched {searched} of {len(readable)} files"]
        if binary:
            notes.append(f"skipped {binary} binary")
        if large:
            notes.append(f"skipped {len(large)} larger than {limits.max_search_file_bytes:,} bytes")
        if withheld:
            notes.append(f"{len(withheld)} withheld by the security gate, listed below")
        where = f" under {shown!r}" if shown else ""
        summary = f"{len(hits)} matching lines in {files_hit} files{where} ({'; '.join(notes)})"
        lines = hits or [f"No matches for {args.pattern!r}{where}."]
        lines.append(summary)
        if full or len(hits) >= limits.max_matches:
            why = ("the output limit" if full else f"{limits.max_matches} matching lines")
            lines.append(
                f"[stopped early at {why}, in {last_path!r}; to see the rest search that file "
                f'alone (path="{last_path}") and then the files after it, or narrow the pattern '
                "or glob]"
            )
        elif searched < len(readable):
            lines.append(
                f"[stopped early at the {limits.search_seconds:g}s time limit after "
                f"{searched} files; {len(readable) - searched} were not searched, from "
                f"{readable[searched].path!r} on; search them with a narrower path or glob]"
            )
        if large:
            shown = ", ".join(repr(entry.path) for entry in large[:10])
            lines.append(
                f"[not searched, larger than {limits.max_search_file_bytes:,} bytes: {shown}"
                f"{' and more' if len(large) > 10 else ''}; read them with read_file offset/limit]"
            )
        if note:
            lines.append(note)
        return "\n".join(lines)

    @staticmethod
    def _search_blob(path: str, data: bytes, regex: Any, budget: int) -> list[str]:
        hits: list[str] = []
        pos = 0
        line_no = 1
        counted_to = 0
        while len(hits) < budget:
            match = regex.search(data, pos)
            if match is None:
                break
            start = match.start()
            line_start = data.rfind(b"\n", 0, start) + 1
            line_end = data.find(b"\n", start)
            if line_end < 0:
                line_end = len(data)
            line_no += data.count(b"\n", counted_to, line_start)
            counted_to = line_start
            text = data[line_start : min(line_end, line_start + 4 * _MATCH_LINE_CHARS)]
            shown = text.decode("utf-8", "replace")
            if len(shown) > _MATCH_LINE_CHARS:
                shown = shown[:_MATCH_LINE_CHARS] + " [...]"
            hits.append(f"{path}:{line_no}: {shown}")
            # One hit per line, like grep: resume at the next line.
            pos = line_end + 1
            if pos > len(data):
                break
        return hits

    # -- declaration --------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        """The three file tools, declared for the registry."""
        limits = self.limits
        return [
            Tool(
                name="read_file",
                description=(
                    "Read a file of the pull request's head revision (tracked files only). "
                    f"Returns numbered lines, {limits.read_default_lines} by default and at most "
                    f"{limits.read_max_lines} per call, lines over {limits.max_line_chars:,} "
                    f"characters cut, at most {limits.max_output_chars:,} characters per "
                    "result; when the file is longer the result says which offset to pass "
                    "next. Binary files are described, not shown."
                ),
                function=self.read_file,
                args_model=ReadFileArgs,
                path_params=("path",),
            ),
            Tool(
                name="list_files",
                description=(
                    "List files tracked at the pull request's head revision whose path "
                    "(relative to `path`) matches a gitignore-style glob: '*.py' matches at "
                    "any depth, 'src/**/*.ts' is anchored, '*.{py,js}' matches either, '*' "
                    f"lists everything. At most {limits.max_list_entries:,} paths and "
                    f"{limits.max_output_chars:,} characters per result: a longer listing names "
                    "the directories to list next. Secret-bearing files (keys, .env, "
                    "credentials) are withheld and named with the reason."
                ),
                function=self.list_files,
                args_model=ListFilesArgs,
                path_params=("path",),
            ),
            Tool(
                name="search_files",
                description=(
                    "Search tracked text files of the head revision for an RE2 regular "
                    "expression (no look-around or back-references); returns 'path:line: "
                    f"text' (lines cut at {_MATCH_LINE_CHARS} characters), at most "
                    f"{limits.max_matches} lines and {limits.max_output_chars:,} characters, "
                    f"within {limits.search_seconds:g}s; files over "
                    f"{limits.max_search_file_bytes:,} bytes are skipped and named. When it "
                    "stops early it says where and how to search the rest. Secret-bearing files "
                    "are withheld and named with the reason."
                ),
                function=self.search_files,
                args_model=SearchFilesArgs,
                path_params=("path",),
            ),
        ]


def build_registry(
    repo_root: Path,
    *,
    base_sha: str,
    head_sha: str,
    github: GitHubPRContext | None = None,
    gate: Gate | None = None,
    limits: ToolLimits | None = None,
    tree: GitTree | None = None,
) -> ToolRegistry:
    """Every read-only tool of one review, behind one gate, in one registry.

    ``tree`` (the head commit's tree, read once) may be shared by every review of a process:
    the reviewed commit does not change during a session.

    ``fetch_pr_files`` is registered only when ``github`` carries a token and a PR. Refs are
    validated here, so a bad SHA fails when the item is set up, not at the model's first call.
    Raises :class:`~pytest_secreview.errors.GitError` for a malformed ``base_sha``/``head_sha``.
    """
    limits = limits or ToolLimits()
    gate = gate if gate is not None else Gate()
    validate_ref(base_sha)
    repo = RepoTools(repo_root, head_sha=head_sha, gate=gate, limits=limits, tree=tree)
    git = GitTools(repo_root, base_sha=base_sha, tree=repo.tree, gate=gate, limits=limits)
    registry = ToolRegistry(
        [*repo.tools(), *git.tools()], gate=gate, max_output_chars=limits.max_output_chars
    )
    if github is not None and github.token and github.pr_number:
        registry.register(FetchPRFiles(github, gate=gate).tool())
    return registry
