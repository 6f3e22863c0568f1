"""Domain values for a parsed diff."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class ChangeKind(StrEnum):
    """What happened to a file between base and head."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    MODE_CHANGED = "mode_changed"


class Line(NamedTuple):
    """One added or removed line (a named tuple: a large diff has hundreds of thousands of
    them, and tuples are created several times faster than frozen dataclasses).

    ``number`` is the line number in the head file for added lines and in the base file for
    removed lines. ``anchor`` is always a head-file line number: the line itself when added,
    the head line at the place of the removal when removed (so a finding about a deleted
    safeguard can be reported, and commented on, in the head revision). ``text`` has no
    trailing newline and no trailing CR.
    """

    number: int
    text: str
    anchor: int


_ADDED_RE = re.compile(r"^\+([^\n]*)", re.MULTILINE)
_REMOVED_RE = re.compile(r"^-([^\n]*)", re.MULTILINE)


def _texts(pattern: re.Pattern[str], mark: str, text: str) -> list[str]:
    # Every line the pattern can match starts the text or follows a newline: a substring
    # test rules out, at C speed, the common hunk that only adds lines.
    if mark not in text and not text.startswith(mark[1:]):
        return []
    found: list[str] = pattern.findall(text)
    if "\r" in text:  # CRLF files: drop the line ending's CR, keep any other
        found = [line.removesuffix("\r") for line in found]
    return found


class Hunk:
    """One ``@@`` hunk. ``text`` is the hunk exactly as git printed it (header included).

    ``added`` and ``removed`` are derived from ``text`` on first use when not given: a large
    pull request has hundreds of thousands of lines, and matching rules needs only the
    joined texts (:meth:`added_texts`), not a value per line. Immutable.
    """

    __slots__ = ("_added", "_removed", "header", "new_count", "new_start", "old_count",
                 "old_start", "text")

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    header: str
    text: str
    _added: tuple[Line, ...] | None
    _removed: tuple[Line, ...] | None

    def __init__(
        self,
        old_start: int,
        old_count: int,
        new_start: int,
        new_count: int,
        header: str,
        added: tuple[Line, ...] | None = None,
        removed: tuple[Line, ...] | None = None,
        text: str = "",
    ) -> None:
        for name, value in (("old_start", old_start), ("old_count", old_count),
                            ("new_start", new_start), ("new_count", new_count),
                            ("header", header), ("text", text), ("_added", added),
                            ("_removed", removed)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Hunk is immutable; cannot set {name!r}")

    @property
    def added(self) -> tuple[Line, ...]:
        """The added lines, with head-file line numbers."""
        return self._added if self._added is not None else self._split()[0]

    @property
    def removed(self) -> tuple[Line, ...]:
        """The removed lines, with base-file numbers and head-file anchors."""
        return self._removed if self._removed is not None else self._split()[1]

    def added_texts(self) -> list[str]:
        """The text of every added line (no ``+``, no trailing CR)."""
        if self._added is not None:
            return [line.text for line in self._added]
        return _texts(_ADDED_RE, "\n+", self.text)

    def removed_texts(self) -> list[str]:
        """The text of every removed line (no ``-``, no trailing CR)."""
        if self._removed is not None:
            return [line.text for line in self._removed]
        return _texts(_REMOVED_RE, "\n-", self.text)

    def _split(self) -> tuple[tuple[Line, ...], tuple[Line, ...]]:
        """Derive (and keep) the added and removed lines from ``text``."""
        added: list[Line] = []
        removed: list[Line] = []
        old_no, new_no, rem_new = self.old_start, self.new_start, self.new_count
        # The body is every line after the header; the text ends with a newline.
        for line in self.text.split("\n")[1:-1]:
            mark = line[:1]
            if mark == "+":
                added.append(Line(new_no, line[1:].removesuffix("\r"), new_no))
                new_no += 1
                rem_new -= 1
            elif mark == "-":
                # Anchor on the head line at the removal; past the hunk's last head line
                # (a removal at the end of the file) anchor on that last line.
                anchor = new_no if rem_new else max(new_no - 1, 1)
                removed.append(Line(old_no, line[1:].removesuffix("\r"), anchor))
                old_no += 1
            elif mark != "\\":  # a context line (an empty one lost its space)
                old_no += 1
                new_no += 1
                rem_new -= 1
        lines = tuple(added), tuple(removed)
        object.__setattr__(self, "_added", lines[0])
        object.__setattr__(self, "_removed", lines[1])
        return lines

    def _key(self) -> tuple[object, ...]:
        return (self.old_start, self.old_count, self.new_start, self.new_count, self.header,
                self.text, self.added, self.removed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hunk) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Hunk({self.header!r}, +{len(self.added)} -{len(self.removed)} lines)")

    def __reduce__(self) -> tuple[type[Hunk], tuple[object, ...]]:
        # Pickled for xdist workers (see handoff.Handoff): rebuilt through __init__, since the
        # default for slots would call the __setattr__ that refuses every change.
        return (Hunk, (self.old_start, self.old_count, self.new_start, self.new_count,
                       self.header, self._added, self._removed, self.text))


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
    def unreviewed_reason(self) -> str | None:
        """Why the review cannot read this file's changes, or ``None`` when it can (or when
        there is nothing to read: a deleted binary file, a submodule bump)."""
        if self.too_large:
            return "the file's diff is too large to review"
        if self.binary and self.kind is not ChangeKind.DELETED:
            return "binary file (git shows no text diff)"
        return None

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
