"""Domain values for a parsed diff."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ChangeKind(StrEnum):
    """What happened to a file between base and head."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    MODE_CHANGED = "mode_changed"


@dataclass(frozen=True)
class Line:
    """One added or removed line.

    ``number`` is the line number in the head file for added lines and in the base file for
    removed lines. ``anchor`` is always a head-file line number: the line itself when added,
    the head line at the place of the removal when removed (so a finding about a deleted
    safeguard can be reported, and commented on, in the head revision). ``text`` has no
    trailing newline and no trailing CR.
    """

    number: int
    text: str
    anchor: int


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` hunk. ``text`` is the hunk exactly as git printed it (header included)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    header: str
    added: tuple[Line, ...]
    removed: tuple[Line, ...]
    text: str


@dataclass(frozen=True)
class FileDiff:
    """All changes to one file. ``path`` is the head path (the base path for deletions)."""

    path: str
    old_path: str | None
    kind: ChangeKind
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    similarity: int | None = None
    too_large: bool = False
    submodule: bool = False

    @property
    def added_lines(self) -> tuple[Line, ...]:
        """Every added line of every hunk, in order."""
        return tuple(line for hunk in self.hunks for line in hunk.added)

    @property
    def removed_lines(self) -> tuple[Line, ...]:
        """Every removed line of every hunk, in order."""
        return tuple(line for hunk in self.hunks for line in hunk.removed)

    @property
    def reviewable(self) -> bool:
        """False for deletions, binary files, submodules and files too large to parse."""
        return not (
            self.kind is ChangeKind.DELETED or self.binary or self.submodule or self.too_large
        )


@dataclass(frozen=True)
class Diff:
    """The parsed diff of ``base_sha...head_sha`` (``base_sha`` is the merge base)."""

    base_sha: str
    head_sha: str
    files: tuple[FileDiff, ...] = field(default=())
