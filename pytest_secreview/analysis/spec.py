"""The compiled ``taint:`` section of a rule: sources, sinks, sanitizers and propagators.

Every name pattern is a glob over the *import-resolved dotted name* of an expression:
``from subprocess import run as r; r(x)`` calls ``subprocess.run``; ``*`` matches any text,
dots included, so ``*.execute`` is any ``execute`` method and ``*request.args`` is Flask's
``request.args`` however ``request`` was imported.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4096)
def compiled(pattern: str) -> re.Pattern[str]:
    """The regex of one glob (anchored at both ends)."""
    # Brackets are literal (``*.headers[Location]``), not glob character sets.
    escaped = pattern.replace("[", "\0").replace("]", "\1")
    escaped = escaped.replace("\0", "[[]").replace("\1", "[]]")
    return re.compile(fnmatch.translate(escaped))


def glob_match(pattern: str, name: str) -> bool:
    """True when the dotted ``name`` matches the glob ``pattern`` (case-sensitive)."""
    return compiled(pattern).match(name) is not None


@dataclass(frozen=True)
class SourceSpec:
    """An expression whose value is attacker data: an attribute read or a call's result.

    ``inside`` restricts it to methods of classes with a base matching that glob (``self.path``
    is only a request path inside an ``http.server`` handler). ``kind`` is the class of the
    source: ``web`` (a request: full severity) or ``local`` (argv, stdin, environment: lower).
    """

    pattern: str
    kind: str = "web"
    inside: str | None = None


@dataclass(frozen=True)
class Condition:
    """An argument (keyword ``kw`` or position ``pos``) whose constant value or dotted name
    matches one of ``values`` (globs for names; ``True``/``False``/numbers compared exactly).

    ``header``: the argument is a headers literal (a dict, or a list of name/value pairs) and
    the value is that header's (named case-insensitively). ``computed``: a value the code
    computes (not a constant, and not read from request data in the argument itself) holds
    too. A sink's ``unless`` condition also holds when the call's result, a response object,
    gets that setting afterwards (``resp.mimetype = ...``, ``resp.headers[header] = ...``)."""

    kw: str
    pos: int | None
    values: tuple[object, ...]
    header: str | None = None
    computed: bool = False


@dataclass(frozen=True)
class SinkSpec:
    """A dangerous use: a call (``call``) or a store into a target (``store``), for example
    ``*.headers[Location]`` or ``*session[*]``."""

    pattern: str
    store: bool = False
    args: tuple[int, ...] = ()  # dangerous positions; with kwargs empty too: every argument
    kwargs: tuple[str, ...] = ()
    element: int | None = None  # only this element of a list argument (the program of argv)
    when: tuple[Condition, ...] = ()  # all must hold
    unless: tuple[Condition, ...] = ()  # any holding makes the call safe
    message: str = ""
    harmless: frozenset[str] = frozenset()  # input shapes that cannot misuse it (values.py)

    def dangerous(self, position: int | None, keyword: str | None) -> bool:
        """True when the argument at ``position`` or named ``keyword`` is a dangerous one."""
        if not self.args and not self.kwargs:
            return True
        if position is not None:
            return position in self.args
        return keyword is not None and keyword in self.kwargs


@dataclass(frozen=True)
class PropagatorSpec:
    """A call that moves taint the default (any argument or receiver to the result) does not
    describe: from argument positions ``frm`` (``-1`` is the receiver) ``to`` the result or the
    receiver."""

    pattern: str
    frm: tuple[int, ...] = (0,)
    to: str = "return"


@dataclass(frozen=True)
class TaintSpec:
    """One rule's taint section, compiled. ``source_kinds`` are the source classes it reports
    (``web``, ``local``); ``severity_web`` / ``severity_local`` are finding severities."""

    rule_id: str
    cwe: str | None
    sinks: tuple[SinkSpec, ...]
    source_kinds: frozenset[str] = frozenset({"web", "local"})
    sources: tuple[SourceSpec, ...] = ()  # the rule's own entries, beyond the presets
    sanitizers: tuple[str, ...] = ()
    propagators: tuple[PropagatorSpec, ...] = ()
    # A web view's returned body is a sink (XSS), and the rule's sinks are response bodies:
    # data already inside a response object is not reported again where it is passed on.
    view_return: bool = False
    severity_web: str = "CRITICAL"
    severity_local: str = "MEDIUM"
    message: str = ""


@dataclass(frozen=True)
class Catalogue:
    """Every taint rule of a run merged, so one pass over a file serves all of them."""

    specs: tuple[TaintSpec, ...]
    sources: tuple[SourceSpec, ...]
    sanitizers: tuple[str, ...] = ()
    propagators: tuple[PropagatorSpec, ...] = ()
    _cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    _sources: dict[tuple[str, str, tuple[str, ...]], str | None] = field(
        default_factory=dict, compare=False, repr=False)

    def sources_for(self, name: str, class_bases: tuple[str, ...]) -> str | None:
        """The kind of the first source matching ``name`` (None when it is not a source)."""
        key = ("O:", name, class_bases)
        if key in self._sources:
            return self._sources[key]
        found = None
        for source in _candidates(self._index("sources", self.sources), name):
            if glob_match(source.pattern, name) and (
                source.inside is None
                or any(glob_match(source.inside, base) for base in class_bases)
            ):
                found = source.kind
                break
        self._sources[key] = found
        return found

    def sinks_for(self, name: str, store: bool) -> list[tuple[TaintSpec, SinkSpec]]:
        """Every (rule, sink) whose pattern matches the callee or store target ``name``."""
        key = ("S:" if store else "C:") + name
        found = self._cache.get(key)
        if found is None:
            pairs = self._index("sinks", [(spec, sink) for spec in self.specs
                                          for sink in spec.sinks])
            found = [(spec, sink) for spec, sink in _candidates(pairs, name)
                     if sink.store == store and glob_match(sink.pattern, name)]
            self._cache[key] = found
        return found  # type: ignore[return-value]

    def sanitizer(self, name: str) -> str | None:
        """The sanitizer pattern ``name`` matches, if any."""
        key = "Z:" + name
        if key not in self._cache:
            self._cache[key] = next((p for p in self.sanitizers if glob_match(p, name)), None)
        return self._cache[key]  # type: ignore[return-value]

    def propagator(self, name: str) -> PropagatorSpec | None:
        """The propagator ``name`` matches, if any."""
        key = "P:" + name
        if key not in self._cache:
            self._cache[key] = next(
                (p for p in self.propagators if glob_match(p.pattern, name)), None)
        return self._cache[key]  # type: ignore[return-value]


    def _index(self, kind: str, entries: list[Any] | tuple[Any, ...]) -> _Index:
        """Entries by the last dotted segment of their pattern (a literal one), so a name is
        globbed only against the few patterns that can match it, plus the wildcard ones."""
        index = self._cache.get("I:" + kind)
        if index is None:
            literal: dict[str, list[Any]] = {}
            wild: list[Any] = []
            for entry in entries:
                pattern = entry[1].pattern if isinstance(entry, tuple) else entry.pattern
                last = pattern.rsplit(".", 1)[-1]
                if "*" in last or "?" in last:  # brackets are literal in our globs
                    wild.append(entry)
                else:
                    literal.setdefault(last, []).append(entry)
            index = (literal, wild)
            self._cache["I:" + kind] = index
        return index  # type: ignore[return-value]


_Index = tuple[dict[str, list[Any]], list[Any]]


def _candidates(index: _Index, name: str) -> list[Any]:
    literal, wild = index
    found = literal.get(name.rsplit(".", 1)[-1])
    return [*found, *wild] if found else wild


def merge(specs: tuple[TaintSpec, ...], presets: tuple[SourceSpec, ...]) -> Catalogue:
    """One catalogue from the rules' specs and the preset sources they use."""
    sources = list(presets)
    sanitizers: list[str] = []
    propagators: list[PropagatorSpec] = []
    for spec in specs:
        sources.extend(s for s in spec.sources if s not in sources)
        sanitizers.extend(s for s in spec.sanitizers if s not in sanitizers)
        propagators.extend(p for p in spec.propagators if p not in propagators)
    return Catalogue(specs, tuple(sources), tuple(sanitizers), tuple(propagators))
