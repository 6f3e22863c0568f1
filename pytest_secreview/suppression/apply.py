"""Find which suppressions name a finding: after evaluation, from the code and the baseline.

:class:`Quiet` runs on every process that evaluates items, on the findings of every source
(pattern, taint, scanner, model) once the item's evaluation is complete, so neither a model
nor anything cached can claim a suppression. It judges nothing: it returns a
:class:`~..core.record.Change` for each comment and baseline entry that names a finding, with
where it came from (its origin) and what it is applied to (its target), and
:func:`~..core.decide.decide` judges them (which one holds when several name one finding, and
whether it counts at the fail threshold: a suppression the pull request adds counts there only
when its author has write access, :mod:`.authority`).

- An inline ``secreview: ignore[rule] reason`` covering the finding (see :mod:`.inline`) is a
  ``suppress`` change with the reason: from ``base-comment`` over a statement the base had,
  from the pull request's author (``maintainer-comment`` with write access, else
  ``pr-comment``) when the pull request added the comment or changed any line of the statement
  it covers (a call spanning lines is one statement: the comment was written for all of it),
  and then with the target ``changed``.
- A baseline entry that matches the finding is a ``baseline`` change with the entry's note.
  Each finding first gets its context fingerprint (:mod:`.context`: the function or route its
  line stands in), which the entry must match (the target is then ``base``); an entry without
  one, matched by the line's text on a line this pull request wrote, has the target
  ``changed``: a lowering of what the base revision did not see, refused at the threshold.
- A suppression comment without a reason (or without a rule id) suppresses nothing and
  becomes a finding of its own (rule :data:`SUPPRESSION_RULE`), reported by the item of the
  rule it names when the pull request adds it, and by any item whose finding it sits on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.findings import Finding, context_fingerprint, fingerprint, number_occurrences
from ..core.record import Change, ChangeKind, Origin, Target
from ..core.severity import Severity
from ..diff.model import Diff, FileDiff
from ..errors import GitError
from .baseline import Baseline
from .context import Scopes, scopes
from .inline import MARKER, Suppression, comment_styles, inside_strings, parse_line

if TYPE_CHECKING:  # the tools layer (and its HTTP stack) loads when a file is read
    from ..tools.gittree import GitTree, TreeEntry

__all__ = ["SUPPRESSION_RULE", "Quiet", "Quieted"]

#: The rule id of the finding that reports a suppression comment which does not apply.
SUPPRESSION_RULE = "secreview-suppression"
#: A file larger than this is not read for suppressions (its findings stand).
MAX_FILE_BYTES = 8 * 1024 * 1024
#: Head files read for suppressions at once (one ``git cat-file --batch``), about.
WINDOW_BYTES = 1 << 20
#: Reading one window of head files stops after this many seconds.
READ_DEADLINE = 120.0


@dataclass(frozen=True)
class Quieted:
    """What the suppressions say of one item's findings (:meth:`Quiet.apply`)."""

    findings: tuple[Finding, ...]
    changes: tuple[Change, ...]


@dataclass
class Quiet:
    """The suppressions of one review: inline comments at ``head_sha`` and the baseline."""

    repo: Path
    diff: Diff
    baseline: Baseline | None = None
    # Per file: its number of lines and its lines that hold the marker outside a string
    # spanning lines (only those can suppress; every line of every file with a finding would
    # grow with the review).
    _lines: dict[str, _Marked | None] = field(default_factory=dict,
                                                                   repr=False)
    _added: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def apply(self, findings: Iterable[Finding], rule: str | None = None,
              files: Sequence[FileDiff] = (), inline: bool = True,
              *, writer: bool = False) -> Quieted:
        """What the code's suppression comments and the baseline say of ``findings``: the
        findings (identical lines told apart, each with its context fingerprint), a finding
        for each suppression comment that does not apply, and a change for each comment and
        baseline entry that names one of them, with its origin and target, for
        :func:`~..core.decide.decide` to judge (a credential's included: ``decide`` lets only
        the base revision's word quiet it). ``rule`` and ``files`` are the item's (its added
        lines are searched for suppressions of ``rule`` without a reason); ``inline=False``
        uses the baseline only (a file too large to read); ``writer``: the pull request's
        author has write access (a comment it adds is then a maintainer's)."""
        out: list[Finding] = []
        changes: list[Change] = []
        problems: dict[tuple[str, int], Finding] = {}
        # Identical lines get one fingerprint each, and each finding its context, before the
        # baseline looks them up.
        for finding in self._in_context(number_occurrences(findings)):
            out.append(finding)
            if finding.rule == SUPPRESSION_RULE:
                continue
            if inline:
                comment = self._inline(finding, problems)
                if comment is not None:
                    reason, by_pr = comment
                    origin = (Origin.BASE_COMMENT if not by_pr else
                              Origin.MAINTAINER_COMMENT if writer else Origin.PR_COMMENT)
                    changes.append(Change(finding.fingerprint, ChangeKind.SUPPRESS, origin,
                                          reason, target=Target.CHANGED if by_pr
                                          else Target.BASE))
            if self.baseline is not None:
                entry = self.baseline.match(
                    finding, line_by_pr=finding.line in self._added_lines(finding.path))
                if entry is not None:
                    changes.append(Change(finding.fingerprint, ChangeKind.BASELINE,
                                          Origin.BASELINE, entry.note, target=entry.target))
        if inline and rule is not None:
            for file in files:
                # One substring search per hunk: most hunks hold no suppression at all.
                added = (ln for hunk in file.hunks if MARKER in hunk.text for ln in hunk.added)
                for line in added:
                    if MARKER in line.text:
                        found = parse_line(line.text, line.number, comment_styles(file.path))
                        if found is not None and not found.valid and rule in found.rules:
                            self._problem(file.path, found, line.text, problems)
        known = {(f.path, f.line) for f in out if f.rule == SUPPRESSION_RULE}
        out += [p for key, p in problems.items() if key not in known]
        return Quieted(tuple(sorted(out, key=Finding.sort_key)), tuple(changes))

    def _in_context(self, findings: list[Finding]) -> list[Finding]:
        """``findings`` with their context fingerprints (identical lines in one context told
        apart by occurrence); a file that cannot be read gives the top level's."""
        stamped = []
        for finding in findings:
            head = self._head_lines(finding.path) if finding.fingerprint else None
            scope = head[3].of(finding.line) if head is not None else ""
            stamped.append(replace(finding, context_fingerprint=context_fingerprint(
                finding.fingerprint, scope)))
        return number_occurrences(stamped, key="context_fingerprint")

    def _inline(self, finding: Finding, problems: dict[tuple[str, int], Finding]
                ) -> tuple[str, bool] | None:
        """The reason of the suppression comment that covers ``finding``, and whether the
        pull request added it or changed the statement it covers; None when none does."""
        head = self._head_lines(finding.path)
        if head is None:
            return None
        count, marked, ends, _ = head
        styles = comment_styles(finding.path)
        for number in (finding.line, finding.line - 1):
            text = marked.get(number)
            if not 1 <= number <= count or text is None:
                continue
            found = parse_line(text, number, styles)
            if found is None:
                continue
            # A comment naming no rule is reported wherever it sits on a finding.
            if not found.at(finding.line) or (found.rules and finding.rule not in found.rules):
                continue
            if not found.valid:
                self._problem(finding.path, found, text, problems)
                continue
            # The comment was written for the whole statement it covers (a call spanning
            # lines): when the pull request changed any line of it, the comment is not the
            # base's word on what is there now.
            last = max(finding.line, finding.end_line or 0, ends.get(finding.line, 0))
            added_lines = self._added_lines(finding.path)
            added = number in added_lines or not added_lines.isdisjoint(
                range(finding.line, last + 1))
            return found.reason, added
        return None

    def _problem(self, path: str, found: Suppression, text: str,
                 problems: dict[tuple[str, int], Finding]) -> None:
        title = ("Suppression comment names no rule and suppresses nothing: write "
                 "ignore[rule-id] and a reason" if not found.rules else
                 "Suppression comment has no reason and suppresses nothing: write the reason "
                 "after ignore[...]")
        problems.setdefault((path, found.line), Finding(
            rule=SUPPRESSION_RULE, severity=Severity.LOW, title=title, path=path,
            line=found.line, source="suppression", category="configuration",
            explanation=f"This secreview suppression {found.problem()}.",
            recommendation="Add the reason a reviewer can check, or remove the comment.",
            fingerprint=fingerprint(SUPPRESSION_RULE, path, text),
        ))

    def _added_lines(self, path: str) -> frozenset[int]:
        with self._lock:
            if path not in self._added:
                file = next((f for f in self.diff.files if f.path == path), None)
                self._added[path] = frozenset(
                    ln.number for ln in file.added_lines) if file else frozenset()
            return self._added[path]

    def _head_lines(self, path: str) -> _Marked | None:
        """``path``'s number of lines at the head revision and its lines holding the marker
        (cached), or None when it cannot be read. A miss reads ``path`` and the changed
        files after it in the diff's order (items ask in that order), up to
        ``WINDOW_BYTES``, in one ``git cat-file --batch``; only the marked lines and the
        headers' digests (:class:`.context.Scopes`) are kept."""
        with self._lock:
            if path in self._lines:
                return self._lines[path]
            if not path or path.startswith(("/", "-")):
                return None
            entries = self._tree.entries
            order = self._order
            start = order.get(path)
            wanted = [path] if start is None else list(self._paths[start:])
            read: dict[str, _Marked | None] = {}
            batch: list[TreeEntry] = []
            size = 0
            for name in wanted:
                if size >= WINDOW_BYTES:
                    break
                entry = entries.get(name)
                if name in self._lines:
                    continue
                if entry is None or entry.kind not in ("file", "symlink"):
                    read[name] = _marked(name, b"")  # not a file at head: nothing to read
                elif entry.size > MAX_FILE_BYTES:
                    read[name] = None
                else:
                    batch.append(entry)
                    size += entry.size
            try:
                for entry, blob in self._tree.iter_blobs(
                        batch, deadline=time.monotonic() + READ_DEADLINE):
                    read[entry.path] = _marked(entry.path, blob)
            except GitError:  # the objects cannot be read: nothing to read in them
                read.update((entry.path, _marked(entry.path, b"")) for entry in batch)
            self._lines.update(read)
            return self._lines.setdefault(path, read.get(path))

    @cached_property
    def _tree(self) -> GitTree:
        from ..tools.gittree import GitTree

        return GitTree(self.repo, self.diff.head_sha)

    @cached_property
    def _paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.diff.files)

    @cached_property
    def _order(self) -> dict[str, int]:
        """Each changed path's place in the diff's order."""
        return {p: i for i, p in enumerate(self._paths)}


#: A file's number of lines at head, its lines holding the marker outside a string, the last
#: line of the statement that starts on each line a marker covers, and its block headers.
_Marked = tuple[int, dict[int, str], dict[int, int], Scopes]
#: How far a statement's brackets are followed (a bound on hostile input, not on real code).
_STATEMENT_LINES = 200
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")


def _marked(path: str, blob: bytes) -> _Marked:
    """A file's number of lines, its lines holding the marker outside a string, where the
    statements those comments cover end (:func:`_statement_end`), and its block headers
    (:func:`.context.scopes`)."""
    # git's lines: split on newlines only (not on the separators splitlines knows).
    split = blob.decode("utf-8", "replace").split("\n")
    marked = {number: text.removesuffix("\r")
              for number, text in enumerate(split, 1) if MARKER in text}
    if marked:  # the words in a string spanning lines are not a comment
        in_strings = inside_strings(split, path)
        marked = {n: text for n, text in marked.items() if n not in in_strings}
    ends = {start: _statement_end(split, start)
            for number in marked for start in (number, number + 1) if start <= len(split)}
    return len(split), marked, ends, scopes([text.removesuffix("\r") for text in split])


def _statement_end(lines: list[str], start: int) -> int:
    """The last line of the statement starting on line ``start`` (1-based): the line where
    the brackets opened from ``start`` on are closed again. Brackets in quotes count too: in
    doubt the statement is longer, and a comment covers less of what a pull request changed
    unnoticed."""
    depth = 0
    for number in range(start, min(len(lines), start + _STATEMENT_LINES) + 1):
        for char in lines[number - 1]:
            depth += (char in _OPEN) - (char in _CLOSE)
        if depth <= 0:
            return number
    return min(len(lines), start + _STATEMENT_LINES)
