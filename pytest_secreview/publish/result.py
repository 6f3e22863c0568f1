"""What one :func:`~.comments.publish` call did: the result it returns, and the bookkeeping
the summary and inline steps share while it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..github.client import GitHubError
from ..reporting.markdown_text import display_safe

#: Asked before each comment is posted: (where, body) -> post it? ``where`` is ``summary`` or
#: ``path:line``. ``secreview comment --interactive`` asks the person at the terminal.
Approve = Callable[[str, str], bool]

FORK_WARNING = (
    "GitHub refused to write to the pull request (403 Resource not accessible by "
    "integration): the token is read-only, as for pull requests from forks. Nothing was "
    "posted; the results are in the step summary and the report files."
)


@dataclass(frozen=True)
class PublishResult:
    """What :func:`publish` did. ``lines`` are for the terminal summary; ``warnings`` are
    problems (each also suitable for a terminal line or a ``::warning::``)."""

    mode: str
    #: "created", "updated", "written (dry run)", "skipped" or "failed".
    summary: str = "skipped"
    summary_comment_id: int | None = None
    summary_url: str | None = None
    inline_posted: int = 0
    inline_already_posted: int = 0
    inline_outside_diff: int = 0
    inline_rejected: tuple[str, ...] = ()
    resolved: int = 0
    declined: int = 0
    lines: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class PublishRun:
    """Mutable bookkeeping of one publish call."""

    mode: str
    summary: str = "skipped"
    summary_comment_id: int | None = None
    summary_url: str | None = None
    posted: int = 0
    already: int = 0
    outside: int = 0
    over_limit: int = 0
    rejected: list[str] = field(default_factory=list)
    resolved: int = 0
    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    write_forbidden: bool = False
    declined: int = 0  # comments the approver said no to

    def result(self) -> PublishResult:
        return PublishResult(
            mode=self.mode, summary=self.summary, summary_comment_id=self.summary_comment_id,
            summary_url=self.summary_url, inline_posted=self.posted,
            inline_already_posted=self.already, inline_outside_diff=self.outside,
            inline_rejected=tuple(display_safe(r) for r in self.rejected), resolved=self.resolved,
            declined=self.declined,
            # Paths come from the pull request: no terminal escapes in what is printed.
            lines=tuple(display_safe(line) for line in self.lines),
            warnings=tuple(display_safe(w) for w in self.warnings),
        )

    def failed(self, what: str, exc: GitHubError) -> None:
        if exc.integration_forbidden:
            if not self.write_forbidden:
                self.warnings.append(FORK_WARNING)
            self.write_forbidden = True
        else:
            self.warnings.append(f"{what}: {exc}")
