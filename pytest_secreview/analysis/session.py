"""One taint analysis of a pull request: the changed Python modules at head and at base,
analysed once per process for every taint rule, and the flows the change introduces.

A flow is new when one of its steps (source, propagation or sink) is on an added line, or
when the same flow (same rule, source and sink text) does not exist at the base revision: a
pull request that only deletes a sanitizer or a guard creates a flow without adding a line.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..core.severity import Severity
from . import ir
from .catalogue import PRESETS
from .parse import parse_module
from .project import Project
from .spec import Catalogue, TaintSpec, merge
from .values import Hit

#: Files larger than this are not analysed (listed as not reviewed for the taint part).
MAX_FILE_BYTES = 2 << 20
_WS = re.compile(r"\s+")


class FileSource(Protocol):
    """The contents of the pull request's files at its two revisions (None: no such file)."""

    def head(self, path: str) -> bytes | None:
        """The file at the head revision."""

    def base(self, path: str) -> bytes | None:
        """The file at the base revision (the merge base)."""


class LineRuns:
    """Line numbers held as runs of consecutive numbers: a new file's added lines are one
    run (a set of every number would grow with each line of every changed file)."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, numbers: Iterable[int]) -> None:
        self._starts = array("q")
        self._ends = array("q")
        for number in sorted(set(numbers)):
            if self._ends and number == self._ends[-1] + 1:
                self._ends[-1] = number
            else:
                self._starts.append(number)
                self._ends.append(number)

    def __contains__(self, number: object) -> bool:
        if not isinstance(number, int):
            return False
        i = bisect_right(self._starts, number) - 1
        return i >= 0 and number <= self._ends[i]


@dataclass(frozen=True)
class ChangedFile:
    """What the session needs to know of one changed file."""

    path: str
    old_path: str | None  # the base path (renames)
    added: Container[int]  # head line numbers added by the pull request (see LineRuns)


@dataclass(frozen=True)
class FlowStepText:
    path: str
    line: int
    kind: str
    text: str
    note: str


@dataclass(frozen=True)
class Flow:
    """A source-to-sink flow the pull request introduces, with the text of every step."""

    rule: str
    origin: str  # web or local
    severity: str
    cwe: str | None
    steps: tuple[FlowStepText, ...]
    sink_path: str
    sink_line: int
    why_new: str  # "added line" or "not at base" (a removed sanitizer or guard)


class TaintSession:
    """Lazily analyses every changed Python module (head and base) for all taint rules."""

    def __init__(self, files: FileSource, specs: Sequence[TaintSpec],
                 changed: Iterable[ChangedFile]) -> None:
        self.files = files
        self.specs = {s.rule_id: s for s in specs}
        self.catalogue: Catalogue = merge(tuple(specs), tuple(
            s for preset in PRESETS.values() for s in preset))
        self.changed = {c.path: c for c in changed if c.path.endswith((".py", ".pyw"))}
        self._flows: dict[str, list[Flow]] | None = None
        self.failed: dict[str, str] = {}  # path -> why the taint part did not run

    def covers(self, path: str) -> bool:
        """True when ``path`` is a changed file the engine analyses (Python)."""
        return path in self.changed

    def flows(self, rule: str, path: str) -> list[Flow]:
        """The new flows of ``rule`` whose sink is in ``path``."""
        if self._flows is None:
            self._flows = self._analyse()
        return [f for f in self._flows.get(path, []) if f.rule == rule]

    def not_reviewed(self, path: str) -> str | None:
        """Why the taint part of ``path`` was not analysed, or None."""
        if self._flows is None:
            self._flows = self._analyse()
        return self.failed.get(path)

    def _reader(self, head: bool) -> Callable[[str], bytes | None]:
        """A changed file's contents at head or at base (by its head path)."""
        if head:
            return self.files.head
        return lambda path: self.files.base(self.changed[path].old_path or path)

    def _parser(self, head: bool) -> Callable[[str], ir.Module | None]:
        """Parses one changed file when the analysis reaches it; a file that cannot be
        analysed at head is listed in ``failed``."""
        read = self._reader(head)

        def load(path: str) -> ir.Module | None:
            raw = read(path)
            if raw is None:
                return None
            if len(raw) > MAX_FILE_BYTES:
                if head:
                    self.failed[path] = (f"taint analysis skipped: the file is larger than "
                                         f"{MAX_FILE_BYTES >> 20} MiB")
                return None
            try:
                return parse_module(raw)
            except (RecursionError, ValueError, MemoryError) as exc:
                if head:
                    self.failed[path] = f"taint analysis could not parse the file ({exc!r})"
                return None
        return load

    def _lines(self, head: bool, wanted: set[tuple[str, int]]) -> _Lines:
        """The stripped text of the ``wanted`` lines: each file read once, in the order the
        files were given (the order the file source reads ahead in), and only those lines
        kept, not every line of every file a flow goes through."""
        read = self._reader(head)
        by_path: dict[str, set[int]] = {}
        for path, line in wanted:
            by_path.setdefault(path, set()).add(line)
        out: _Lines = {}
        for path in [p for p in self.changed if p in by_path]:
            raw = read(path)
            text = [] if raw is None else raw.decode("utf-8", "replace").splitlines()
            for line in by_path[path]:
                out[(path, line)] = text[line - 1].strip() if 0 < line <= len(text) else ""
        return out

    def _run(self, head: bool, paths: Iterable[str]) -> tuple[list[Hit], str | None]:
        try:
            return Project(self.catalogue, paths=paths, load=self._parser(head)).analyse(), None
        except RecursionError:
            return [], "taint analysis gave up: the code nests too deeply"
        except Exception as exc:
            return [], f"taint analysis failed ({type(exc).__name__}: {exc})"

    def _analyse(self) -> dict[str, list[Flow]]:
        if not self.changed or not self.specs:
            return {}
        hits, error = self._run(True, self.changed)
        if error is not None:
            # Every file the engine would have analysed (parsed without error) gets it.
            load = self._parser(True)
            for path in self.changed:
                if path not in self.failed and load(path) is not None:
                    self.failed.setdefault(path, error)
            return {}
        touched = [any(s.line in self.changed[s.path].added for s in hit.trace.steps
                       if s.path in self.changed) for hit in hits]
        # The base revision matters only for flows the change did not touch directly, and
        # only in the modules those flows go through (each step names its module).
        untouched = {s.path for hit, t in zip(hits, touched, strict=True) if not t
                     for s in hit.trace.steps}
        # The text of every line a flow's report or its comparison with the base shows.
        head_lines = self._lines(True, {(s.path, s.line) for hit in hits
                                        for s in hit.trace.steps}
                                 | {at for hit in hits for at in _key_lines(hit)})
        base_keys: set[tuple[str, str, str, str]] = set()
        if untouched:
            base_hits, _ = self._run(False, [p for p in self.changed if p in untouched])
            base_lines = self._lines(False, {at for h in base_hits for at in _key_lines(h)})
            base_keys = {_key(h, base_lines) for h in base_hits}
        out: dict[str, list[Flow]] = {}
        for hit, added in zip(hits, touched, strict=True):
            if not added and _key(hit, head_lines) in base_keys:
                continue  # the same flow exists before the change: not this PR's doing
            spec = self.specs[hit.rule]
            steps = tuple(
                FlowStepText(s.path, s.line, s.kind, _line_text(head_lines, s.path, s.line),
                             s.note) for s in hit.trace.steps)
            out.setdefault(hit.sink_path, []).append(Flow(
                rule=hit.rule, origin=hit.trace.origin,
                severity=_severity(spec, hit),
                cwe=spec.cwe, steps=steps, sink_path=hit.sink_path, sink_line=hit.sink_line,
                why_new="added line" if added else "not at base",
            ))
        for flows in out.values():
            flows.sort(key=lambda f: (f.sink_line, f.rule, len(f.steps)))
        return out


_Lines = dict[tuple[str, int], str]

#: The severity of a flow whose input is contained by its shape on POSIX only (a URL segment
#: as a file's last component, see ``values.SHAPES``): reported, below the gate's default.
CONTAINED = Severity.LOW


def _severity(spec: TaintSpec, hit: Hit) -> str:
    """A flow's severity: the rule's for a web source, the local cap for the operator's
    input, at most :data:`CONTAINED` for input a shape contains."""
    severity = Severity(spec.severity_web if hit.trace.origin == "web" else spec.severity_local)
    if hit.shape is not None and severity.rank > CONTAINED.rank:
        severity = CONTAINED
    return severity.value


def _line_text(lines: _Lines, path: str, line: int) -> str:
    return lines.get((path, line), "")


def _key_lines(hit: Hit) -> list[tuple[str, int]]:
    """The lines :func:`_key` reads."""
    source = [(hit.trace.steps[0].path, hit.trace.steps[0].line)] if hit.trace.steps else []
    return [*source, (hit.sink_path, hit.sink_line)]


def _key(hit: Hit, lines: _Lines) -> tuple[str, str, str, str]:
    source = hit.trace.steps[0] if hit.trace.steps else None
    src = _WS.sub(" ", _line_text(lines, source.path, source.line)) if source else ""
    sink = _WS.sub(" ", _line_text(lines, hit.sink_path, hit.sink_line))
    return (hit.rule, hit.sink_path, src, sink)
