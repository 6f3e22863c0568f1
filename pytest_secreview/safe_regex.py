"""Every regex the package runs from a rule, a tool argument or its own tables runs on RE2, a
linear-time engine: no pattern, however written, can be driven into catastrophic backtracking
by a long line in a hostile pull request. This module is the one place RE2 is set up (memory
budget, errors raised rather than logged) and the one place patterns are batched into sets.

It imports nothing of the package, so every layer (rules, tools, audit, evaluation) can use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import re2

#: Memory budget of one compiled pattern.
PATTERN_MEMORY = 8 << 20
#: Memory budget of a set of patterns searched in one pass (allocated only as its DFA grows).
SET_MEMORY = 64 << 20


def re2_options(*, max_mem: int = PATTERN_MEMORY, case_sensitive: bool = True,
                never_nl: bool = False) -> Any:
    """The RE2 options of every compilation: a bounded memory budget, and errors raised to the
    caller instead of written to the process's standard error."""
    options = re2.Options()
    options.max_mem = max_mem
    options.log_errors = False
    options.case_sensitive = case_sensitive
    options.never_nl = never_nl
    return options


def compile_re2(pattern: str | bytes, *, max_mem: int = PATTERN_MEMORY,
                case_sensitive: bool = True, never_nl: bool = False) -> Any:
    """``pattern`` compiled on RE2 with :func:`re2_options` (raises ``re2.error``)."""
    return re2.compile(pattern, re2_options(max_mem=max_mem, case_sensitive=case_sensitive,
                                            never_nl=never_nl))


def search_set(patterns: Iterable[str] | Iterable[bytes], *, max_mem: int = SET_MEMORY) -> Any:
    """``patterns`` in one compiled RE2 ``Set``: ``Match(text)`` names, by position, every
    pattern that matches somewhere in ``text`` in one pass. A ``Set`` never gives up on a long
    text (RE2 resets its DFA cache and goes on), so a pattern it does not name has no match."""
    found = re2.Set.SearchSet(re2_options(max_mem=max_mem))
    for pattern in patterns:
        found.Add(pattern)
    found.Compile()
    return found


class LineSet:
    """Distinct pattern sources in one RE2 ``Set``, searched over many lines joined at once.

    Each source is compiled in multi-line mode, so ``^`` and ``$`` still mean a line's ends in
    the joined text; ``index`` maps each source to its position in the set."""

    __slots__ = ("_set", "index")

    def __init__(self, sources: Iterable[str]) -> None:
        self.index: dict[str, int] = {}
        for source in sources:
            self.index.setdefault(source, len(self.index))
        self._set: Any = search_set("(?m)" + s for s in self.index) if self.index else None

    def hits(self, lines: Sequence[str]) -> frozenset[int]:
        """Indices of the sources that match somewhere in ``lines``."""
        if self._set is None or not lines:
            return frozenset()
        return frozenset(self._set.Match("\n".join(lines)) or ())


class SafePattern:
    """A compiled RE2 pattern that remembers its source text (a rule's ``grep`` or ``detect``
    pattern); a source RE2 cannot compile is a ``ValueError`` saying why and how to fix it."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        try:
            self._compiled: Any = compile_re2(source)
        except re2.error as exc:
            reason = exc.args[0] if exc.args else exc
            if isinstance(reason, bytes):
                reason = reason.decode("utf-8", "replace")
            raise ValueError(
                f"regex {source!r} does not compile under RE2 ({reason}); RE2 has no "
                "look-around or back-references, rewrite the pattern without them"
            ) from None

    def search(self, text: str) -> bool:
        """True when the pattern matches anywhere in ``text``. Whole lines are searched (RE2
        is linear in their length; a file too large to review is never searched): code after
        a long run of padding is not hidden."""
        return self._compiled.search(text) is not None

    def values(self, text: str, group: str = "value") -> list[str]:
        """The text of ``group`` in each non-overlapping match in ``text`` (the whole match
        when the pattern has no such group, or the group took no part in that match)."""
        named = group in self._compiled.groupindex
        found: list[str] = []
        for match in self._compiled.finditer(text):
            value = match.group(group) if named else None
            found.append(match.group(0) if value is None else value)
        return found

    def __repr__(self) -> str:
        return f"SafePattern({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SafePattern) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)
