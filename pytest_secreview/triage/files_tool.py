"""``fetch_pr_files`` without GitHub: the same list, in the same format, read from the diff
git produced for the range (no token, no network). Used by the model triage when the pull
request cannot be read through the API."""

from __future__ import annotations

from pydantic import BaseModel

from ..diff.model import ChangeKind, Diff
from ..tools.github_tools import FetchPRFilesArgs, PRFile, format_pr_files
from ..tools.registry import Tool

_LETTER = {ChangeKind.ADDED: "A", ChangeKind.MODIFIED: "M", ChangeKind.DELETED: "D",
           ChangeKind.RENAMED: "R", ChangeKind.COPIED: "C", ChangeKind.MODE_CHANGED: "T"}


class DiffPRFiles:
    """The changed files of ``diff`` as ``fetch_pr_files`` lists them."""

    def __init__(self, diff: Diff, title: str = "") -> None:
        self._diff = diff
        self._title = title

    def __call__(self, _args: BaseModel | None = None) -> str:
        entries = []
        for file in sorted(self._diff.files, key=lambda f: f.path):
            plus = minus = 0
            for hunk in file.hunks:
                plus += hunk.text.count("\n+")
                minus += hunk.text.count("\n-")
            previous = file.old_path if file.old_path and file.old_path != file.path else None
            entries.append(PRFile(file.path, _LETTER.get(file.kind, "?"), plus, minus,
                                  previous))
        header = (f"Changes {self._diff.base_sha[:12]}...{self._diff.head_sha[:12]} "
                  "(read from git)")
        return format_pr_files(header, entries, title=self._title)

    def tool(self) -> Tool:
        """Declaration for the registry, identical to the GitHub one's."""
        return Tool(
            name="fetch_pr_files",
            description=(
                "List the files changed by this pull request: status letter (A added, M "
                "modified, D removed, R renamed), path, +additions -deletions and language. "
                "Takes no arguments."
            ),
            function=self,
            args_model=FetchPRFilesArgs,
        )
