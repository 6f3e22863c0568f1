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
        # Keep real sources before parameter labels, so a finding is never crowded out.
        traces = tuple(sorted(traces, key=lambda t: t.origin.startswith("param:")))[:MAX_TRACES]
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
    summary fact (when it is a parameter)."""

    rule: str
    trace: Trace
    sink_line: int
    sink_path: str
    note: str
