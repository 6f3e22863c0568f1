"""The baseline: known findings a team has accepted, kept outside the code.

``--secreview-baseline FILE`` is a JSON file::

    {"version": 1,
     "findings": [{"fingerprint": "3f1c...", "context": "9a07...", "rule": "sql-injection",
                   "path": "app/db.py", "note": "reviewed 2026-01: the table name is a
                   constant", "line": 12}]}

An entry accepts **the same finding in the same context**: ``context`` is the finding's
context fingerprint (:func:`~..core.findings.context_fingerprint`: the rule, the path, the
flagged line's normalised text and the headers of the function or route that encloses it,
never the line's number), so an entry survives line shifts and moves of its function, and a
copy of the line into another function or route is a new finding. Identical lines in one
context are told apart by occurrence (``<fingerprint>-2``...: see
:func:`~..core.findings.number_occurrences`), one entry each. A matching finding is muted:
kept in every report as suppressed (SARIF kind ``external``, the note as justification),
never failing an item.

An entry without ``context`` (written before contexts were recorded) names only the line's
text (its ``fingerprint``): it still mutes the line the base revision had, and applies to a
line this pull request writes only as a change to what the base saw
(:attr:`~..core.record.Target.CHANGED`), which :func:`~..core.decide.decide` refuses at the
fail threshold. ``--secreview-baseline-update`` rewrites such entries with their context,
keeping their notes.

The file carries no text of the code or of a finding's title (``verify=False``, a key's
shape): committed in the repository, it would be reported by the very rules it accepts.

Trust: a pull request must not mute its own findings. When FILE lies inside the repository
it is read from the **base** revision (like the rules); a baseline the pull request adds or
edits takes effect once merged. ``--secreview-baseline-update`` rewrites FILE on disk from
the current findings, keeping the notes already written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import write_text_atomic
from ..core.findings import Finding
from ..core.record import Target
from ..errors import ConfigError, GitError
from ..gitcmd import run_git

__all__ = ["NO_NOTE", "Baseline", "BaselineEntry", "BaselineMatch", "load_baseline",
           "muted_without_note", "parse_baseline", "update_baseline"]

#: The one format version this module reads and writes.
VERSION = 1
#: The reason of a finding an entry without a note mutes. It still mutes (a freshly written
#: baseline must round-trip quietly), but the summaries count these: see
#: :func:`muted_without_note`.
NO_NOTE = "known finding, listed in the baseline without a note (give the entry one)"
_EXAMPLE = ('{"version": 1, "findings": [{"fingerprint": "<from summary.json>", "context": '
            '"<its context_fingerprint>", "rule": "sql-injection", "path": "app/db.py", '
            '"note": "why this is accepted"}]}')


class BaselineEntry(BaseModel):
    """One accepted finding. ``line`` is for people; matching uses the context fingerprint,
    or for an entry without one the line's fingerprint (both already hash the rule and the
    path). ``title`` is read from older files and never written (it may quote the code the
    rules match)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    fingerprint: str = Field(min_length=1, description="The finding's fingerprint.")
    context: str | None = Field(None, min_length=1, description=(
        "The finding's context fingerprint: the entry accepts it in this context only."))
    rule: str = Field(min_length=1)
    path: str = Field(min_length=1)
    note: str = Field("", description="Why it is accepted: the SARIF justification.")
    line: int | None = Field(None, ge=0)
    title: str | None = None


class _BaselineFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Literal[1]
    findings: list[BaselineEntry]


@dataclass(frozen=True)
class BaselineMatch:
    """An entry that applies to a finding: its note (a default text for an empty one), and
    what it is applied to: :attr:`~..core.record.Target.BASE` for the same finding in the
    same context, :attr:`~..core.record.Target.CHANGED` for an entry without a context on a
    line this pull request wrote."""

    note: str
    target: Target


@dataclass(frozen=True)
class Baseline:
    """The entries in force for this review, and where they were read: ``contexts`` by
    context fingerprint, ``lines`` (the entries without a context) by fingerprint."""

    display: str
    contexts: dict[str, BaselineEntry] = field(default_factory=dict)
    lines: dict[str, BaselineEntry] = field(default_factory=dict)

    def match(self, finding: Finding, *, line_by_pr: bool) -> BaselineMatch | None:
        """The entry that applies to ``finding``, or None. ``line_by_pr``: the pull request
        wrote the finding's line (an entry without a context saw only the base's)."""
        entry = self.contexts.get(finding.context_fingerprint) \
            if finding.context_fingerprint else None
        if entry is not None and entry.rule == finding.rule:
            return BaselineMatch(entry.note or NO_NOTE, Target.BASE)
        entry = self.lines.get(finding.fingerprint) if finding.fingerprint else None
        if entry is None or entry.rule != finding.rule:
            return None
        return BaselineMatch(entry.note or NO_NOTE,
                             Target.CHANGED if line_by_pr else Target.BASE)

    def all_entries(self) -> list[BaselineEntry]:
        """Every entry, those with a context first."""
        return [*self.contexts.values(), *self.lines.values()]


def muted_without_note(suppression: str | None, reason: str) -> bool:
    """True for a finding muted by a baseline entry without a note (counted in the
    summaries, so an unexplained mute is visible)."""
    return suppression == "baseline" and reason == NO_NOTE


_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def _where(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc
                   ).lstrip(".") or "(top level)"


def parse_baseline(text: str, display: str) -> Baseline:
    """Validate a baseline's ``text``; raises :class:`ConfigError` naming the file, the key,
    the value and the fix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"baseline {display}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}). Fix the file, or delete it and run with --secreview-baseline-update "
            f"to write a new one. Expected: {_EXAMPLE}") from None
    if not isinstance(data, dict):
        # Named in words: pydantic would name our private model class instead.
        raise ConfigError(
            f"baseline {display}: the top level is a JSON {_JSON_TYPES.get(type(data), 'value')}, "
            f"not an "
            f'object {{"version": 1, "findings": [...]}}. Expected: {_EXAMPLE}')
    try:
        parsed = _BaselineFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        value = json.dumps(error.get("input"), ensure_ascii=False, default=str)[:120]
        raise ConfigError(
            f"baseline {display}: key {_where(error['loc'])}: {error['msg']} (value {value}). "
            f"Each entry needs a fingerprint, a rule and a path (strings) and may have a note; "
            f"expected: {_EXAMPLE}") from None
    contexts: dict[str, BaselineEntry] = {}
    lines: dict[str, BaselineEntry] = {}
    for entry in parsed.findings:
        if entry.context:
            contexts.setdefault(entry.context, entry)
        else:
            lines.setdefault(entry.fingerprint, entry)
    return Baseline(display, contexts, lines)


def load_baseline(path: Path, repo: Path, base_sha: str, notes: list[str],
                  updating: bool = False) -> Baseline:
    """The baseline in force. Inside the repository: the base revision's file (a note says
    so when the pull request changes it, or when the base has none). Outside: the file on
    disk, which must exist unless ``updating``."""
    display = str(path)
    relative = _in_repository(repo, path)
    if relative is not None:
        try:
            blob = run_git(repo, "cat-file", "blob", "--end-of-options",
                           f"{base_sha}:{relative}").stdout
        except GitError:
            if path.is_file():
                notes.append(f"baseline {relative} is not in the base revision: a pull request "
                             "cannot add a baseline for its own findings, nothing was muted")
            elif not updating:
                raise ConfigError(f"baseline {relative} exists neither in the base revision "
                                  "nor on disk. Create it with --secreview-baseline-update, or "
                                  "fix the path") from None
            return Baseline(relative)
        if path.is_file() and path.read_bytes() != blob:
            notes.append(f"baseline {relative}: this pull request changes it; the base "
                         "revision's was used (the change takes effect once merged)")
        return parse_baseline(blob.decode("utf-8", "replace"), f"{relative} (base revision)")
    if not path.is_file():
        if updating:
            return Baseline(display)
        raise ConfigError(f"baseline {display} does not exist. Create it with "
                          "--secreview-baseline-update, or fix the path")
    return parse_baseline(path.read_text("utf-8", "replace"), display)


def _in_repository(repo: Path, path: Path) -> str | None:
    """``path`` relative to ``repo`` when it lies inside, as written or once symlinks are
    resolved (a symlink the pull request adds must not carry the file outside), else None."""
    pairs = ((Path(os.path.abspath(path)), Path(os.path.abspath(repo))),
             (path.resolve(), repo.resolve()))
    for candidate, root in pairs:
        try:
            return candidate.relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def update_baseline(path: Path, findings: Iterable[Finding],
                    evaluated: set[tuple[str, str]]) -> tuple[int, int]:
    """Rewrite ``path`` from ``findings`` (atomically); returns the number of entries and how
    many of them have no note.

    Each entry records its finding's context. Notes already in the file are kept, those of
    entries without a context too (the entry is rewritten with its finding's context). An
    existing entry stays unless this review evaluated its (rule, path) and did not find it
    again: a review of a pull request sees its changed files only, and must not drop what
    other files' entries accept.
    """
    old = parse_baseline(path.read_text("utf-8", "replace"), str(path)) if path.is_file() \
        else Baseline(str(path))
    entries: dict[str, BaselineEntry] = {}
    for finding in findings:
        key = finding.context_fingerprint or finding.fingerprint
        if not finding.fingerprint or key in entries:
            continue
        kept = old.contexts.get(finding.context_fingerprint) or old.lines.get(finding.fingerprint)
        entries[key] = BaselineEntry(
            fingerprint=finding.fingerprint, context=finding.context_fingerprint or None,
            rule=finding.rule, path=finding.path, note=kept.note if kept else "",
            line=finding.line)
    for entry in old.all_entries():
        key = entry.context or entry.fingerprint
        if key not in entries and (entry.rule, entry.path) not in evaluated:
            entries[key] = entry
    ordered = sorted(entries.values(), key=lambda e: (e.path, e.rule, e.line or 0, e.fingerprint))
    data = {"version": VERSION,
            "findings": [e.model_dump(exclude_none=True, exclude={"title"}) for e in ordered]}
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return len(ordered), sum(1 for e in ordered if not e.note)

