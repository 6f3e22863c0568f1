"""Deterministic checks: a rule's ``detect`` patterns over a file's added or removed lines.
They need no model and produce findings on the exact head-file line.

:func:`run_detect` works on a parsed file's hunks. :func:`scan_changed_lines` does the same on
a stream of lines in bounded memory, for the files whose hunks the review never holds (too
large to review, or binary to git): :func:`scan_unreviewed` reads them from git.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.findings import Finding
from ..core.severity import Severity
from ..diff.model import FileDiff, Hunk, Line
from ..diff.stream import ChangedLine, stream_changed_lines
from ..errors import GitError
from ..rules.matcher import PathFilter
from ..rules.model import Detect, Rule
from ..safe_regex import LineSet
from ..textnorm import readings, variants
from .credentials import is_secret

#: Findings kept per file by the streamed scan: a padded file cannot grow memory or reports
#: without bound (the item fails on the first one at the threshold anyway).
MAX_STREAMED_FINDINGS = 200
# Lines searched together by the streamed scan (an RE2 Set tells which patterns hit, and
# only those are run line by line).
_BATCH_LINES = 512
_BATCH_BYTES = 256 * 1024
#: The files a pattern's ``opt_out_parameters`` reads (the Python the taint engine parses).
PYTHON_SUFFIXES = (".py", ".pyw")


def _finding(rule: Rule, detect: Detect, path: str, line: int, text: str) -> Finding:
    removed = detect.on == "removed"
    finding = Finding(
        rule=rule.id,
        severity=detect.severity,
        title=detect.message,
        path=path,
        line=line,
        source="pattern",
        category=rule.category,
        cwe=rule.cwe,
        # In words, the rule's own message: the regular expression says nothing to a reader.
        explanation=(
            f"{detect.message}: this pull request removes a line that had it ({rule.title})."
            if removed
            else f"{detect.message}, on a line this pull request adds ({rule.title})."
        ),
        recommendation=detect.recommendation or rule.description,
        confidence=1.0,
    )
    # An added line's own text is the anchor (as for a model finding on that line, so the
    # two are one finding); a removed line's is marked as such.
    return finding.with_fingerprint(("-" + text) if removed else text)


def run_detect(rule: Rule, file: FileDiff, *, dataflow: bool = False,
               head: Callable[[], bytes | None] | None = None) -> list[Finding]:
    """Every finding ``rule``'s detect patterns produce on ``file``, one per (pattern, line).

    The caller passes only files the rule's ``applies_to`` selected (the matcher's targets).
    A pattern on removed lines that also matches an added line of the same file reports
    nothing: the safeguard was moved or rewritten, not deleted, and the model (which sees
    both sides) judges whether the new form still protects.

    ``dataflow`` says the rule's ``taint:`` section analysed this file: its added-line
    patterns below CRITICAL are then superseded (a line pattern cannot tell request data from
    a constant; the flow analysis can). CRITICAL ones (request data on the sink's own line),
    settings (``setting: true``: dangerous whatever the data) and removed-line patterns (a
    deleted safeguard) still run.

    ``head`` reads the file at the head revision (None: not available): a pattern with
    ``opt_out_parameters`` needs it to see the function around a Python line
    (:func:`~pytest_secreview.analysis.optout.parameter_guarded`); without it, every match
    is reported.
    """
    findings: list[Finding] = []
    added = file.added_lines
    removed = file.removed_lines
    patterns = _DetectSet.of(rule)
    # Which patterns can match anything, from one pass over each side's text: only those are
    # then searched line by line (the per-line search decides; this only skips).
    hit_added = patterns.hits(added)
    hit_removed = patterns.hits(removed) if any(d.on == "removed" for d in rule.detect) else ()
    for detect in rule.detect:
        if dataflow and detect.on == "added" and detect.severity is not Severity.CRITICAL \
                and not detect.setting:
            continue
        index = patterns.index[detect.pattern.source]
        lines = added if detect.on == "added" else removed
        if index not in (hit_added if detect.on == "added" else hit_removed):
            continue
        if detect.on == "removed" and index in hit_added and any(
                any(detect.pattern.search(r) for r in readings(a.text)) for a in added):
            continue
        pieces = _pieces(file, detect.within) if detect.within is not None else None
        for line in lines:
            if pieces is None:
                found = _detected(detect, line.text, file.path)
            else:
                found = any(any(detect.pattern.search(r) for r in readings(piece))
                            and _detected(detect, unit, file.path)
                            for piece, unit in pieces.get(line.number, ((line.text,) * 2,)))
            if found and not (detect.opt_out_parameters and detect.on == "added"
                              and _opted_out(detect, file.path, line.number, head)):
                findings.append(_finding(rule, detect, file.path, line.anchor, line.text))
    return findings


def _close(text: str, at: int, closer: str) -> int:
    """The end of the span whose content starts at ``at``: after the first ``closer`` outside
    a quoted string (the end of ``text`` when there is none)."""
    quote = ""
    while at < len(text):
        char = text[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif text.startswith(closer, at):
            return at + len(closer)
        at += 1
    return len(text)


def _head_lines(hunk: Hunk) -> list[tuple[int, str, bool]]:
    """The hunk's head-side lines in order: (head line number, text, added)."""
    if not hunk.text:  # built from its added lines only (a new file's)
        return [(line.number, line.text, True) for line in hunk.added]
    out: list[tuple[int, str, bool]] = []
    number = hunk.new_start
    for raw in hunk.text.split("\n")[1:]:
        mark = raw[:1]
        if mark in ("+", " "):
            out.append((number, raw[1:].removesuffix("\r"), mark == "+"))
            number += 1
    return out


def _pieces(file: FileDiff, within: tuple[str, str]) -> dict[int, tuple[tuple[str, str], ...]]:
    """For each added line of ``file``: its pieces, each with the unit it is judged in.

    A piece inside a span between the ``within`` delimiters (a template's ``{{ … }}``) is
    judged in the whole span, joined over the lines of the hunk it covers; the rest of the
    line is one more piece, judged alone. The closing delimiter inside a quoted string does
    not end a span (``{{ _('Use %(d)s', d='{{diff}}') | safe }}``). A span whose opening
    delimiter is before the hunk starts at the hunk (so it lacks the opener); one not closed
    in the hunk ends with it.
    """
    opener, closer = within
    out: dict[int, tuple[tuple[str, str], ...]] = {}
    for hunk in file.hunks:
        lines = _head_lines(hunk)
        text = "\n".join(t for _, t, _ in lines)
        spans: list[tuple[int, int]] = []
        at = 0
        while at < len(text):
            start, end = text.find(opener, at), text.find(closer, at)
            if end != -1 and (start == -1 or end < start):  # opened before the hunk
                spans.append((at, end + len(closer)))
                at = end + len(closer)
                continue
            if start == -1:
                break
            stop = _close(text, start + len(opener), closer)
            spans.append((start, stop))
            at = stop
        offset = 0
        for number, line, added in lines:
            first, last = offset, offset + len(line)
            offset = last + 1
            if not added:
                continue
            pieces: list[tuple[str, str]] = []
            rest = list(line)
            for start, stop in spans:
                if stop <= first or start >= last:
                    continue
                low, high = max(start, first), min(stop, last)
                pieces.append((text[low:high], text[start:stop].replace("\n", " ")))
                rest[low - first:high - first] = " " * (high - low)
            outside = "".join(rest)
            if outside.strip():
                pieces.append((outside, outside))
            out[number] = tuple(pieces)
    return out


def _opted_out(detect: Detect, path: str, number: int,
               head: Callable[[], bytes | None] | None) -> bool:
    """True when head line ``number`` of the Python file ``path`` runs only when the caller
    asks for it through one of ``detect``'s ``opt_out_parameters``."""
    if head is None or not path.endswith(PYTHON_SUFFIXES):
        return False
    source = head()
    if source is None:
        return False
    from ..analysis.optout import parameter_guarded  # tree-sitter: only when a line needs it

    return parameter_guarded(source, number, detect.opt_out_parameters)


def _detected(detect: Detect, text: str, path: str) -> bool:
    """True when ``detect`` reports ``text`` (a line of ``path``), read raw, NFKC-normalised
    (as Python reads identifiers) or with its constant disguises undone (as Python runs
    them): any form matching the pattern and not its ``unless``; for a ``credential``
    pattern, with a matched value that is a secret (:func:`.credentials.is_secret`)."""
    for form in readings(text):
        if not detect.pattern.search(form) or (
                detect.unless is not None and detect.unless.search(form)):
            continue
        if detect.credential is None or any(
                is_secret(value, detect.credential, path)
                for value in detect.pattern.values(form)):
            return True
    return False


#: Anchors that mean the ends of the whole text: a pattern using one may match a line alone
#: and not the lines joined, so the joined pass cannot rule it out.
_TEXT_ANCHORS = ("\\A", "\\z", "\\Z")


class _DetectSet:
    """A rule's distinct detect patterns in one RE2 Set, compiled once per rule."""

    def __init__(self, sources: tuple[str, ...]) -> None:
        self._set = LineSet(sources)
        self.index = self._set.index
        self._always = frozenset(i for i, source in enumerate(sources)
                                 if any(a in source for a in _TEXT_ANCHORS))

    @classmethod
    def of(cls, rule: Rule) -> _DetectSet:
        sources = tuple(dict.fromkeys(d.pattern.source for d in rule.detect))
        found = _DETECT_SETS.get(sources)
        if found is None:
            found = _DETECT_SETS[sources] = cls(sources)
        return found

    def hits(self, lines: Sequence[Line]) -> frozenset[int]:
        """Indices of the patterns that may match one of ``lines`` (raw or NFKC)."""
        if not lines:
            return frozenset()
        return self._set.hits(variants([line.text for line in lines])) | self._always


#: One compiled set per distinct tuple of detect patterns (a rule pack holds a few dozen).
_DETECT_SETS: dict[tuple[str, ...], _DetectSet] = {}


@dataclass
class _RuleScan:
    """What the stream showed one rule so far."""

    rule: Rule
    grep_hits: set[str] = field(default_factory=set)
    has_added: bool = False
    has_removed: bool = False
    moved: set[int] = field(default_factory=set)  # removed detects seen on an added line
    findings: dict[tuple[int, int], Finding] = field(default_factory=dict)

    def applies(self) -> bool:
        """The rule's grep verdict over the whole file (the matcher's, per file)."""
        rule = self.rule
        if not (rule.grep_all or rule.grep_any or rule.grep_removed):
            return self.has_added or self.has_removed
        if (rule.grep_all or rule.grep_any) and self.has_added and all(
            p.source in self.grep_hits for p in rule.grep_all
        ) and (not rule.grep_any or any(p.source in self.grep_hits for p in rule.grep_any)):
            return True
        return any("-" + p.source in self.grep_hits for p in rule.grep_removed)


def scan_changed_lines(
    rules: Sequence[Rule], path: str, lines: Iterable[ChangedLine]
) -> tuple[list[Finding], bool]:
    """The findings ``rules``' detect patterns produce on a stream of changed lines of
    ``path``, and whether :data:`MAX_STREAMED_FINDINGS` cut the list short.

    Same semantics as :func:`run_detect` on the file's hunks (``applies_to``, grep, ``unless``,
    removed safeguards that reappear on an added line report nothing), judged over the whole
    file; memory is bounded by one batch of lines and the findings kept.
    """
    scans = [_RuleScan(rule) for rule in rules if PathFilter.of(rule).selects(path)]
    if not scans:
        return [], False
    detects = [(i, j, d) for i, s in enumerate(scans) for j, d in enumerate(s.rule.detect)]
    plus = _line_set((*(d.pattern.source for _, _, d in detects),
                      *(p.source for s in scans for p in (*s.rule.grep_all, *s.rule.grep_any))))
    minus = _line_set((*(d.pattern.source for _, _, d in detects if d.on == "removed"),
                       *(p.source for s in scans for p in s.rule.grep_removed)))
    state = {"kept": 0, "cut": False}

    def judge(batch: list[tuple[int, ChangedLine]]) -> None:
        added = [line for _, line in batch if line.added]
        removed = [line for _, line in batch if not line.added]
        seqs = {id(line): seq for seq, line in batch}
        hit_plus = plus.hits(variants([line.text for line in added]))
        hit_minus = minus.hits(variants([line.text for line in removed]))
        for scan in scans:
            scan.has_added |= bool(added)
            scan.has_removed |= bool(removed)
            rule = scan.rule
            scan.grep_hits.update(p.source for p in (*rule.grep_all, *rule.grep_any)
                                  if plus.index[p.source] in hit_plus)
            scan.grep_hits.update("-" + p.source for p in rule.grep_removed
                                  if minus.index[p.source] in hit_minus)
        for i, j, detect in detects:
            scan = scans[i]
            source = detect.pattern.source
            if (detect.on == "removed" and plus.index[source] in hit_plus
                    and any(detect.pattern.search(r) for line in added
                            for r in readings(line.text))):
                scan.moved.add(j)  # the safeguard reappears on an added line
            side, hits, index = ((added, hit_plus, plus.index) if detect.on == "added"
                                 else (removed, hit_minus, minus.index))
            if index[source] not in hits:
                continue
            for line in side:
                if state["kept"] >= MAX_STREAMED_FINDINGS:
                    state["cut"] = True
                    return
                # One finding per pattern and line, also when pieces of a long line overlap.
                key = (j, seqs[id(line)])
                if key in scan.findings or not _detected(detect, line.text, path):
                    continue
                scan.findings[key] = _finding(scan.rule, detect, path, line.number, line.text)
                state["kept"] += 1

    for batch in _batches(lines):
        judge(batch)
    findings: list[Finding] = []
    for scan in scans:
        if scan.applies():
            findings.extend(f for (j, _), f in scan.findings.items() if j not in scan.moved
                            or scan.rule.detect[j].on == "added")
    return sorted(findings, key=Finding.sort_key), bool(state["cut"])


def _line_set(sources: tuple[str, ...]) -> LineSet:
    """The one compiled set of ``sources`` in this process: every file the streamed scan
    reads (a pull request may add a thousand binary files) asks for the set of the rules
    that select it, and compiling it again cost more than the scan."""
    found = _LINE_SETS.get(sources)
    if found is None:
        if len(_LINE_SETS) >= _MAX_LINE_SETS:
            _LINE_SETS.clear()
        found = _LINE_SETS[sources] = LineSet(sources)
    return found


#: The streamed scan's sets, by their sources (a few distinct rule selections per review).
_LINE_SETS: dict[tuple[str, ...], LineSet] = {}
_MAX_LINE_SETS = 256


def _batches(lines: Iterable[ChangedLine]) -> Iterator[list[tuple[int, ChangedLine]]]:
    """Batches of ``(physical line ordinal, line)``: pieces of one line share the ordinal."""
    batch: list[tuple[int, ChangedLine]] = []
    size = 0
    seq = -1
    for line in lines:
        if not line.continued:
            seq += 1
        batch.append((seq, line))
        size += len(line.text)
        if len(batch) >= _BATCH_LINES or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def scan_unreviewed(
    repo: Path, base_sha: str, head_sha: str, file: FileDiff, rules: Sequence[Rule]
) -> tuple[list[Finding], bool]:
    """:func:`scan_changed_lines` over ``file``'s changes read from git (see
    :func:`~pytest_secreview.diff.stream.stream_changed_lines`); raises ``GitError``."""
    seen = 0

    def counted() -> Iterator[ChangedLine]:
        nonlocal seen
        for line in stream_changed_lines(repo, base_sha, head_sha, file.path):
            seen += 1
            yield line

    result = scan_changed_lines(rules, file.path, counted())
    if not seen and any(PathFilter.of(rule).selects(file.path) for rule in rules):
        # A changed file always has lines to read: none means git could not match the path
        # (a name that is not valid UTF-8, say). Say so rather than report a clean scan.
        raise GitError(f"git diff of {file.path!r} printed no changed line to scan")
    return result
