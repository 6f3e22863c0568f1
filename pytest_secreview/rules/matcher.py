"""Match rules against the diff: path globs first, then regexes on the hunks.

A hunk matches a rule when its added lines satisfy ``grep.all`` (every pattern) and
``grep.any`` (at least one pattern), or when its removed lines match one of ``grep.removed``
(a pull request that deletes a safeguard). A rule without any grep matches every hunk of the
files its globs select. Only reviewable files (not deleted, binary or too large) match.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath

import pathspec

from ..diff.model import FileDiff, Hunk, Line
from .model import Rule
from .regex import MAX_LINE_CHARS, SafePattern


@dataclass(frozen=True)
class Target:
    """One (rule, changed file) pair that becomes a pytest item, with the hunks that matched."""

    rule: Rule
    file: FileDiff
    hunks: tuple[Hunk, ...]


class PathFilter:
    """A rule's ``applies_to`` compiled once: gitignore-style globs and extensions."""

    def __init__(self, rule: Rule) -> None:
        self._include = pathspec.GitIgnoreSpec.from_lines(rule.paths) if rule.paths else None
        self._exclude = pathspec.GitIgnoreSpec.from_lines(rule.exclude) if rule.exclude else None
        self._extensions = rule.file_extensions

    def selects(self, path: str) -> bool:
        """True when the rule applies to a file at ``path`` (repository-relative, POSIX)."""
        if self._extensions and PurePosixPath(path).suffix.lower() not in self._extensions:
            return False
        if self._include is not None and not self._include.match_file(path):
            return False
        return not (self._exclude is not None and self._exclude.match_file(path))


def _joined(lines: tuple[Line, ...]) -> str:
    # One search per hunk over the joined lines instead of one per line: with thousands of
    # hunks and a few dozen rules this is what keeps collection cheap.
    return "\n".join(line.text[:MAX_LINE_CHARS] for line in lines)


class HunkText:
    """Added and removed text of a hunk, joined lazily and at most once."""

    def __init__(self, hunk: Hunk) -> None:
        self.hunk = hunk

    @cached_property
    def added(self) -> str:
        return _joined(self.hunk.added)

    @cached_property
    def removed(self) -> str:
        return _joined(self.hunk.removed)


def _search(pattern: SafePattern, text: str) -> bool:
    return bool(text) and pattern.search_multiline(text)


class RuleMatcher:
    """Matches one rule against files; build once per rule, reuse for every file."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.paths = PathFilter(rule)
        self._has_added_grep = bool(rule.grep_all or rule.grep_any)

    def _hunk_matches(self, text: HunkText) -> bool:
        rule = self.rule
        if not self._has_added_grep and not rule.grep_removed:
            return bool(text.hunk.added or text.hunk.removed)
        if self._has_added_grep and text.hunk.added:
            added = text.added
            if all(_search(p, added) for p in rule.grep_all) and (
                not rule.grep_any or any(_search(p, added) for p in rule.grep_any)
            ):
                return True
        return bool(rule.grep_removed and text.hunk.removed) and any(
            _search(p, text.removed) for p in rule.grep_removed
        )

    def match(self, file: FileDiff, texts: list[HunkText] | None = None) -> Target | None:
        """The target for ``file``, or None when the rule does not apply to it."""
        if not file.reviewable or not self.paths.selects(file.path):
            return None
        texts = texts if texts is not None else [HunkText(h) for h in file.hunks]
        hunks = tuple(t.hunk for t in texts if self._hunk_matches(t))
        return Target(self.rule, file, hunks) if hunks else None


class PreparedDiff:
    """The reviewable files of a diff with their hunk texts, shared by every rule so each
    hunk is joined once per process however many rules look at it."""

    def __init__(self, files: tuple[FileDiff, ...] | list[FileDiff]) -> None:
        self.files = [
            (f, [HunkText(h) for h in f.hunks])
            for f in sorted(files, key=lambda f: f.path)
            if f.reviewable
        ]

    def targets(self, rule: Rule) -> list[Target]:
        """Every target of ``rule``, sorted by path."""
        matcher = RuleMatcher(rule)
        found = (matcher.match(file, texts) for file, texts in self.files)
        return [t for t in found if t is not None]
