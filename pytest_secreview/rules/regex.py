"""Rule regexes run on RE2, a linear-time engine: no pattern, however written, can be driven
into catastrophic backtracking by a long line in a hostile pull request."""

from __future__ import annotations

from typing import Any

import re2

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 8 << 20
_OPTIONS.log_errors = False


class SafePattern:
    """A compiled RE2 pattern that remembers its source text."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        try:
            self._compiled: Any = re2.compile(source, _OPTIONS)
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

    def __repr__(self) -> str:
        return f"SafePattern({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SafePattern) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)
