"""The ignore file, ``.secreviewignore``: paths (gitignore syntax) the review does not read.

It is read from the **base revision**, never from the pull request: a pull request cannot
add or widen its own exclusions (when it changes the file, a note says that the base's
version was used). Every exclusion goes through the one judgement of path-level exclusions,
:func:`pytest_secreview.core.decide.judge_exclusion`, with the origin ``base-ignore``: so
credential rules still run on ignored files. An ignored file is not reviewed by the other
rules and is not counted as unreviewed; the summary lists how many files were ignored and by
which patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pathspec

from ..core.decide import judge_exclusion
from ..core.record import Origin
from ..diff.model import Diff
from ..errors import ConfigError
from ..gitcmd import run_git
from ..rules.model import Rule

#: The ignore file's path, at the repository root.
IGNORE_FILE = ".secreviewignore"


@dataclass(frozen=True)
class IgnoreFile:
    """The base revision's ignore file (no patterns when it has none)."""

    patterns: tuple[str, ...] = ()  # without comments and blank lines
    revision: str = ""  # the commit it was read from

    @cached_property
    def _spec(self) -> pathspec.GitIgnoreSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.patterns)

    def pattern_of(self, path: str) -> str | None:
        """The pattern that ignores ``path`` (the last that matches, as git decides), or
        None when the path is reviewed."""
        if not self.patterns:
            return None
        result = self._spec.check_file(path)
        if not result.include or result.index is None:
            return None
        return self.patterns[result.index]

    def excludes(self, rule: Rule, path: str) -> bool:
        """True when ``rule`` does not see ``path``: the file is ignored and the judgement of
        exclusions accepts it for this rule (never for a credential rule)."""
        pattern = self.pattern_of(path)
        if pattern is None:
            return False
        return judge_exclusion(rule.category, Origin.BASE_IGNORE,
                               f"{IGNORE_FILE}: {pattern}").excluded

    def ignored(self, diff: Diff) -> dict[str, str]:
        """The changed (not deleted) paths of ``diff`` it ignores, with their pattern."""
        found = {}
        for file in diff.files:
            pattern = self.pattern_of(file.path) if file.kind.value != "deleted" else None
            if pattern is not None:
                found[file.path] = pattern
        return found

    def notes(self, diff: Diff) -> list[str]:
        """What the summary says: the files ignored (count and patterns), and that the pull
        request's own edit of the ignore file was not used."""
        out = []
        if any(f.path == IGNORE_FILE or f.old_path == IGNORE_FILE for f in diff.files):
            out.append(f"{IGNORE_FILE}: this pull request changes it; the base revision's "
                       f"version {self.revision[:12] or '(none)'} was used (a pull request "
                       "cannot change what the review skips)")
        ignored = self.ignored(diff)
        if ignored:
            patterns = ", ".join(dict.fromkeys(sorted(ignored.values())))
            out.append(f"{IGNORE_FILE}: {len(ignored)} changed file(s) not reviewed, by the "
                       f"base revision's patterns {patterns}; credential rules still ran on "
                       "them")
        return out


def read_ignore_file(repo: Path, base_sha: str) -> IgnoreFile:
    """The ignore file at the root of ``base_sha`` in ``repo`` (empty when there is none).

    Raises :class:`ConfigError` naming the file when it is not a regular file or not UTF-8.
    """
    listing = run_git(repo, "ls-tree", "-z", "--full-tree", "--end-of-options", base_sha,
                      "--", IGNORE_FILE).stdout
    if not listing:
        return IgnoreFile(revision=base_sha)
    meta = listing.split(b"\t", 1)[0].decode()
    mode, kind, sha = meta.split()
    if kind != "blob" or mode not in {"100644", "100755"}:
        raise ConfigError(f"{IGNORE_FILE} at the base revision {base_sha[:12]} is not a "
                          f"regular file (git mode {mode}); make it a plain text file of "
                          "gitignore patterns")
    raw = run_git(repo, "cat-file", "blob", sha).stdout
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{IGNORE_FILE} at the base revision {base_sha[:12]}: not UTF-8 "
                          f"text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    patterns = tuple(line.strip() for line in text.splitlines()
                     if line.strip() and not line.lstrip().startswith("#"))
    return IgnoreFile(patterns, base_sha)
