"""Abstract values of the taint engine: a taint is a small set of traces, each the path one
piece of attacker data took (source, propagation steps) and the sanitizers it went through."""

from __future__ import annotations

from dataclasses import dataclass

#: At most this many distinct traces are kept per value: enough to show different sources,
#: bounded so that a function with many branches cannot explode.
MAX_TRACES = 4
#: At most this many steps per trace (the first and last steps are kept).
MAX_STEPS = 24


@dataclass(frozen=True, slots=True)
class Step:
    """One place the data went through: ``kind`` is source, step, call, return or sink."""

    path: str
    line: int
    kind: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Trace:
    """One flow of data. ``origin`` is a source kind (``web``, ``local``) or ``param:N`` while
    a function is summarised (data from its N-th parameter)."""

    origin: str
    steps: tuple[Step, ...]
    cleared: frozenset[str] = frozenset()

    def then(self, step: Step) -> Trace:
        """This trace extended with ``step`` (a step on the same line and path is merged)."""
        last = self.steps[-1] if self.steps else None
        if last is not None and last.line == step.line and last.path == step.path and (
            step.kind == "step" or last.kind == step.kind
        ):
            return self
        steps = (*self.steps, step)
        if len(steps) > MAX_STEPS:
            steps = (*steps[:2], *steps[-(MAX_STEPS - 2):])
        return Trace(self.origin, steps, self.cleared)

    def clear(self, sanitizer: str) -> Trace:
        """This trace marked as passed through ``sanitizer``."""
        return Trace(self.origin, self.steps, self.cleared | {sanitizer})

    def key(self) -> tuple[str, Step | None, frozenset[str]]:
        return (self.origin, self.steps[0] if self.steps else None, self.cleared)


Taint = tuple[Trace, ...]
CLEAN: Taint = ()

#: Where the input sits in a value, as a mark on its trace (kept with the sanitizers in
#: ``cleared``). A sink that only input of another shape can misuse lists the shape as
#: ``harmless``:
#:
#: - ``query``: every input character lies after the first ``?`` or ``#`` of a URL whose text
#:   before it holds no input of this trace (a constant, an app route): the input is in the
#:   query or the fragment, the redirect's scheme, host and path are fixed.
#: - ``segment``: the input is one URL path segment (a route converter that excludes ``/``)
#:   and is at most the path's last component: on POSIX the path stays in its directory
#:   (``base/..`` is a directory, which a file sink cannot open as a file).
#:
#: Only the operations that keep a shape carry it (string building for ``query``, a path join
#: whose last component holds the input for ``segment``, ``str()``); any other call or
#: operation drops it. A function's parameter starts with a ``keeps`` mark per shape instead:
#: what survives of them says which shapes the function keeps, so a caller's shape survives
#: the call only if the function kept it (:func:`splice_shapes`).
SHAPES = ("query", "segment")
QUERY = "<query>"
SEGMENT = "<segment>"
_MARKS = {f"<{name}>": name for name in SHAPES}
_KEEPS = {f"<keeps {name}>": name for name in SHAPES}
#: The marks a parameter's trace starts with.
PARAM_MARKS: frozenset[str] = frozenset(_KEEPS)


def shape_of(trace: Trace) -> frozenset[str]:
    """The shapes (``query``, ``segment``) ``trace``'s input has."""
    return frozenset(_MARKS[m] for m in trace.cleared if m in _MARKS)


def reshape(taint: Taint, keep: frozenset[str] = frozenset()) -> Taint:
    """``taint`` after an operation that keeps only the shapes in ``keep``."""
    if not any(t.cleared for t in taint):
        return taint
    out = []
    for trace in taint:
        gone = {m for m in trace.cleared
                if (_MARKS.get(m) or _KEEPS.get(m, "")) not in keep and (
                    m in _MARKS or m in _KEEPS)}
        out.append(Trace(trace.origin, trace.steps, trace.cleared - gone) if gone else trace)
    return tuple(out)


def shaped(taint: Taint, name: str) -> Taint:
    """``taint`` now of shape ``name`` (its input is in a URL's query, ...)."""
    mark = f"<{name}>"
    return tuple(t if mark in t.cleared else Trace(t.origin, t.steps, t.cleared | {mark})
                 for t in taint)


def splice_shapes(caller: frozenset[str], callee: frozenset[str]) -> frozenset[str]:
    """The marks of a caller's trace through a function whose parameter trace ended with
    ``callee``: the caller's shapes the function kept, and the shapes it gave the value."""
    kept = {_KEEPS[m] for m in callee if m in _KEEPS}
    plain = {m for m in caller | callee if m not in _MARKS and m not in _KEEPS}
    marks = {m for m in caller if (_MARKS.get(m) or _KEEPS.get(m)) in kept}
    return frozenset(plain | marks | {m for m in callee if m in _MARKS})


def union(*taints: Taint) -> Taint:
    """The traces of every taint, deduplicated by (origin, first step, sanitizers)."""
    nonempty = [t for t in taints if t]
    if len(nonempty) <= 1:
        return nonempty[0] if nonempty else CLEAN
    seen: dict[tuple[str, Step | None, frozenset[str]], Trace] = {}
    for taint in nonempty:
        for trace in taint:
            seen.setdefault(trace.key(), trace)
    traces = tuple(seen.values())
    if len(traces) > MAX_TRACES:
        # Keep real sources before parameter labels, and input of any shape before input of
        # a harmless one, so a finding is never crowded out.
        traces = tuple(sorted(traces, key=lambda t: (t.origin.startswith("param:"),
                                                     bool(shape_of(t)))))[:MAX_TRACES]
    return traces


def extend(taint: Taint, step: Step) -> Taint:
    """Every trace of ``taint`` extended with ``step``."""
    return tuple(trace.then(step) for trace in taint) if taint else CLEAN


def clear(taint: Taint, sanitizer: str) -> Taint:
    """Every trace of ``taint`` marked as sanitized by ``sanitizer``."""
    return tuple(trace.clear(sanitizer) for trace in taint)


@dataclass(frozen=True, slots=True)
class Hit:
    """A trace that reached a sink of rule ``rule``: a flow (when its origin is a source) or a
    summary fact (when it is a parameter). ``harmless`` are the sink's harmless shapes (a
    fact's caller decides with them); ``shape`` is the contained shape of a flow's input
    (``segment``: reported at LOW), None for input of any shape."""

    rule: str
    trace: Trace
    sink_line: int
    sink_path: str
    note: str
    harmless: frozenset[str] = frozenset()
    shape: str | None = None
