"""What the author says the change does: the pull request's title and description (from the
Actions event, see :mod:`pytest_secreview.github.context`) and the commit messages of
``base..head``. All of it is untrusted text; each piece is capped at 2,000 characters with a
visible ``[TRUNCATED]`` so the judge knows it was cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..gitcmd import run_git, validate_ref
from ..tools.redaction import sanitize

#: Characters kept of the title, the description and each commit message.
MAX_CHARS = 2000
TRUNCATED = "[TRUNCATED]"
#: Commit messages read; a longer history is summarised by a count.
MAX_COMMITS = 50


def cap(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` cleaned of control characters and secrets, cut at ``limit`` characters with
    ``[TRUNCATED]`` appended when it was longer."""
    clean = sanitize(text.replace("\r\n", "\n")).strip()
    return clean if len(clean) <= limit else clean[:limit] + TRUNCATED


@dataclass(frozen=True)
class Statement:
    """The author's account of the change, capped and redacted."""

    title: str = ""
    body: str = ""
    commits: tuple[str, ...] = ()
    omitted_commits: int = 0

    @classmethod
    def build(cls, title: str, body: str, commits: list[str], omitted: int = 0) -> Statement:
        """Cap and clean every piece."""
        return cls(cap(title), cap(body),
                   tuple(cap(message) for message in commits), omitted)

    @property
    def empty(self) -> bool:
        """Nothing was said about the change at all."""
        return not (self.title or self.body or any(self.commits))

    def describe(self) -> str:
        """The statement as text for the judge (to be wrapped as untrusted content)."""
        parts = [f"Pull request title: {self.title or '(none known)'}",
                 "Pull request description:", self.body or "(none known)", "",
                 f"Commit messages ({len(self.commits)}):"]
        for i, message in enumerate(self.commits, 1):
            parts += [f"--- commit {i} ---", message or "(empty)"]
        if self.omitted_commits:
            parts.append(f"[{self.omitted_commits} older commit message(s) not shown]")
        return "\n".join(parts)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form for reports."""
        return {"title": self.title, "body": self.body, "commits": list(self.commits),
                "omitted_commits": self.omitted_commits}


def commit_messages(repo: Path, base_sha: str, head_sha: str) -> tuple[list[str], int]:
    """The messages of the commits in ``base_sha..head_sha``, newest first (at most
    :data:`MAX_COMMITS`), and how many more there are."""
    validate_ref(base_sha)
    validate_ref(head_sha)
    count = run_git(repo, "rev-list", "--count", "--end-of-options",
                    f"{base_sha}..{head_sha}").stdout.decode("ascii", "replace").strip()
    out = run_git(repo, "log", f"--max-count={MAX_COMMITS}", "--format=%B%x00",
                  "--end-of-options", f"{base_sha}..{head_sha}").stdout
    # Each entry is "<message>\0\n"; the part after the last NUL is the final newline.
    parts = out.decode("utf-8", "replace").split("\x00")
    messages = [part.strip("\n") for part in parts[:-1]]
    total = int(count) if count.isdigit() else len(messages)
    return messages, max(0, total - len(messages))
