"""Deterministic risk evidence of a change: which categories of change it makes, where, with
the matched text. Pure: a :class:`~pytest_secreview.diff.model.Diff` in, the same
:class:`RiskEvidence` out on every run (sorted, capped, redacted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..diff.model import ChangeKind, Diff, FileDiff, Line
from ..safe_regex import search_set
from ..tools.redaction import find_secrets, sanitize
from .signals import (
    INSTALL_SCRIPT,
    SIGNALS,
    Category,
    Side,
    Signal,
    file_category,
    is_lockfile,
    is_manifest,
    is_prose,
    looks_minified,
)

#: Characters of matched text kept per item: enough to recognise the call, never a file.
MAX_TEXT_CHARS = 160
#: Items kept per (file, category): a 10,000-line generated file is one signal, not 10,000.
MAX_PER_FILE_CATEGORY = 5
#: Items kept in all (the counts still cover everything that matched).
MAX_ITEMS = 300


@dataclass(frozen=True)
class EvidenceItem:
    """One signal at one place: ``line`` is in the head revision (for a removed line, where
    the removal is), ``text`` the matched text, redacted and cut to one short line."""

    category: Category
    signal: str
    path: str
    line: int
    side: Side | None  # None for a signal of the file as a whole
    text: str

    def sort_key(self) -> tuple[str, int, str, str, str]:
        """Files in path order, then lines; ties broken by category and signal."""
        return (self.path, self.line, self.category.value, self.signal, self.text)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (the report schema's ``EvidenceReport``)."""
        return {
            "category": self.category.value,
            "signal": self.signal,
            "path": self.path,
            "line": self.line,
            "side": self.side,
            "text": self.text,
        }

    def describe(self) -> str:
        """``path:line [category] signal: text`` for prompts and terminals."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        side = f" ({self.side} line)" if self.side == "removed" else ""
        return f"{where} [{self.category.value}] {self.signal}{side}: {self.text}"


@dataclass(frozen=True)
class RiskEvidence:
    """Every signal of a change: ``items`` (capped, sorted), ``counts`` per category over all
    matches (uncapped), and ``truncated``: how many matches were not kept as items."""

    items: tuple[EvidenceItem, ...]
    counts: tuple[tuple[str, int], ...]  # (category, matches), sorted by category
    truncated: int = 0

    @property
    def categories(self) -> tuple[str, ...]:
        """The categories that occur, sorted."""
        return tuple(name for name, _ in self.counts)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (``risk_evidence`` in the reports)."""
        return {
            "categories": list(self.categories),
            "counts": dict(self.counts),
            "items": [item.to_json() for item in self.items],
            "truncated": self.truncated,
        }

    def describe(self) -> str:
        """The evidence as plain lines (what the intent model is given)."""
        if not self.items:
            return "No risk signals in the diff."
        lines = [
            "Categories: " + ", ".join(f"{name} ({count})" for name, count in self.counts),
            *(item.describe() for item in self.items),
        ]
        if self.truncated:
            lines.append(f"[{self.truncated} more signal(s) not listed]")
        return "\n".join(lines)


def _clip(text: str) -> str:
    clean = sanitize(text).strip()
    if len(clean) > MAX_TEXT_CHARS:
        clean = clean[: MAX_TEXT_CHARS - 1] + "…"
    return clean


def _context(text: str, matched: str) -> str:
    """The matched text with a little of its line around it, so ``requests.get(`` shows
    what it fetches."""
    start = text.find(matched)
    if start < 0 or len(text) <= MAX_TEXT_CHARS:
        return text
    left = max(0, start - 40)
    return text[left : left + MAX_TEXT_CHARS]


def _applies(signal: Signal, path: str, side: Side) -> bool:
    if signal.side != side:
        return False
    if signal.manifest_only and not is_manifest(path):
        return False
    return not (signal.code_only and is_prose(path))


_ALL_SIGNALS = (*SIGNALS, INSTALL_SCRIPT)


@cache
def _signal_set() -> tuple[Any, dict[int, int]]:
    """Every signal's pattern in one RE2 Set, and each signal's index in it (by id)."""
    # (?m): ^ and $ still mean a line's ends in the joined text.
    found = search_set("(?m)" + signal.pattern.pattern for signal in _ALL_SIGNALS)
    return found, {id(signal): i for i, signal in enumerate(_ALL_SIGNALS)}


def _possible(signals: list[Signal], lines: tuple[Line, ...]) -> list[Signal]:
    """The ``signals`` whose pattern matches somewhere in ``lines`` (joined)."""
    if not signals or not lines:
        return []
    compiled, index = _signal_set()
    hits = set(compiled.Match("\n".join(line.text for line in lines)) or ())
    return [s for s in signals if index[id(s)] in hits]


def _line_signals(file: FileDiff) -> Iterator[EvidenceItem]:
    path = file.path
    added_lines = file.added_lines  # derived from the hunks' text on each use: once here
    added_texts = {line.text.strip() for line in added_lines}
    sides: tuple[tuple[Side, tuple[Line, ...]], ...] = (
        ("added", added_lines), ("removed", file.removed_lines),
    )
    code = not is_prose(path)
    for side, lines in sides:
        signals = [s for s in SIGNALS if _applies(s, path, side)]
        if side == "added" and (is_manifest(path) or path.endswith("package.json")):
            signals.append(INSTALL_SCRIPT)
        if side == "removed":
            lines = tuple(ln for ln in lines if ln.text.strip() not in added_texts)  # moved
        # One pass over the side's text says which signals can match; only those are then
        # searched line by line (a prefilter: the per-line search decides).
        signals = _possible(signals, lines)
        for line in lines:
            text = line.text
            number = line.number if side == "added" else line.anchor
            for signal in signals:
                matched = signal.find(text)
                if matched is not None:
                    yield EvidenceItem(signal.category, signal.name, path, number,
                                       side, _clip(_context(text, matched)))
            if side == "added":
                for secret in find_secrets(text)[:1]:
                    yield EvidenceItem(Category.ENVIRONMENT, f"hard-coded secret ({secret.kind})",
                                       path, number, "added", _clip(text))
            if side == "added" and code and looks_minified(text):
                yield EvidenceItem(Category.OBFUSCATION, "minified or packed code", path, number,
                                   "added", _clip(text))


def _file_signal(file: FileDiff) -> EvidenceItem | None:
    found = file_category(file.path)
    if found is None:
        if file.binary and file.kind is not ChangeKind.DELETED:
            return EvidenceItem(Category.OBFUSCATION, "binary file added or changed",
                                file.path, 0, None, "")
        return None
    category, name = found
    line = file.hunks[0].new_start if file.hunks else 0
    verb = "deleted" if file.kind is ChangeKind.DELETED else file.kind.value
    return EvidenceItem(category, name, file.path, line, None, f"{file.path} ({verb})")


def _scan(files: Iterable[FileDiff]) -> Iterator[EvidenceItem]:
    for file in sorted(files, key=lambda f: f.path):
        item = _file_signal(file)
        if item is not None:
            yield item
        if file.too_large:
            yield EvidenceItem(Category.OBFUSCATION, "diff too large to scan", file.path, 0,
                               None, "")
        elif not is_lockfile(file.path) and not file.binary:
            yield from _line_signals(file)


def collect_evidence(diff: Diff) -> RiskEvidence:
    """Every risk signal of ``diff``: the same result for the same diff, always."""
    everything = sorted(set(_scan(diff.files)), key=EvidenceItem.sort_key)
    counts: Counter[str] = Counter(item.category.value for item in everything)
    kept: list[EvidenceItem] = []
    per_file: Counter[tuple[str, str]] = Counter()
    for item in everything:
        key = (item.path, item.category.value)
        per_file[key] += 1
        if per_file[key] <= MAX_PER_FILE_CATEGORY and len(kept) < MAX_ITEMS:
            kept.append(item)
    return RiskEvidence(
        items=tuple(kept),
        counts=tuple(sorted(counts.items())),
        truncated=len(everything) - len(kept),
    )
