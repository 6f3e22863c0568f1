"""Where a line stands in its file: the block headers that enclose it, as one digest.

A baseline entry accepts a finding *in its context*: the same rule, the same normalised line
and the same enclosing function or route. A line's text alone is not enough: copied into a
new, unauthenticated route of the same file, it would hash alike and be muted by an entry the
base revision wrote for the admin-only one. :func:`scopes` reads a file once and keeps, for
each line that opens a block (a ``def``, a ``class``, a route handler's ``app.get(...) {``,
an ``if``), a digest of its header: the line itself, the decorators or annotations above it,
and for a header that spans lines (``def f(`` ... ``):``) its first line too.
:meth:`Scopes.of` gives a line's context: the digest of the headers that enclose it, from
the outermost in, found by indentation (language-neutral: real code of every language this
review reads is indented by its blocks). Moving a function keeps its lines' context;
renaming it, or changing its route or its decorators (removing ``@admin_required``), gives
them a new one.

Kept small on purpose (a review may read thousands of files): per line its indentation, per
header its line number, indentation and an 8-byte digest; never the text.
"""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left
from dataclasses import dataclass

__all__ = ["Scopes", "scopes"]

#: The indentation recorded for a blank or comment-only line (it encloses nothing).
_BLANK = 0xFFFF
#: Comment openers of the languages reviewed: a comment line is no header and no body.
_COMMENTS = ("#", "//", "/*", "*", "--", ";", "<!--")
_CLOSING = (")", "]", "}")
#: How far a header spanning lines, or the decorators above one, are followed upwards.
_HEADER_LINES = 50
#: Headers passed over, at most, finding one line's context (a bound on hostile input).
_WALK = 20_000


def _indent(text: str) -> int:
    stripped = text.lstrip(" \t")
    if not stripped or stripped.startswith(_COMMENTS):
        return _BLANK
    return min(len(text[: len(text) - len(stripped)].expandtabs(8)), _BLANK - 1)


def _normal(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Scopes:
    """One file's block headers: enough to name any line's context (:meth:`of`)."""

    indents: array[int]  # per line, 0-based; _BLANK for a blank or comment line
    numbers: array[int]  # the header lines (1-based), ascending
    levels: array[int]  # their indentation
    digests: bytes  # 8 bytes per header

    def of(self, line: int) -> str:
        """The digest of the headers enclosing ``line`` (1-based), outermost first; '' for a
        line at the top level (or outside the file)."""
        if not 1 <= line <= len(self.indents):
            return ""
        current = self.indents[line - 1]
        chain: list[bytes] = []
        index = bisect_left(self.numbers, line) - 1
        walked = 0
        while index >= 0 and current > 0 and walked < _WALK:
            if self.levels[index] < current:
                chain.append(self.digests[index * 8:index * 8 + 8])
                current = self.levels[index]
            index -= 1
            walked += 1
        if not chain:
            return ""
        return hashlib.sha256(b"".join(reversed(chain))).hexdigest()[:32]


def scopes(lines: list[str]) -> Scopes:
    """The block headers of a file given as its lines (without line ends)."""
    indents = array("H", (_indent(text) for text in lines))
    numbers, levels = array("I"), array("H")
    digests = bytearray()
    following = _BLANK  # the indentation of the next line that is not blank or a comment
    for index in range(len(lines) - 1, -1, -1):
        level = indents[index]
        if level == _BLANK:
            continue
        if following != _BLANK and following > level:
            numbers.append(index + 1)
            levels.append(level)
            digests += hashlib.blake2b(_header(lines, indents, index).encode(),
                                       digest_size=8).digest()
        following = level
    numbers.reverse()
    levels.reverse()
    ordered = b"".join(digests[i:i + 8] for i in range(len(digests) - 8, -1, -8))
    return Scopes(indents, numbers, levels, ordered)


def _header(lines: list[str], indents: array[int], index: int) -> str:
    """The normalised text of the header on line ``index`` (0-based): a header that starts
    with a closing bracket (``):`` ending ``def f(``..., ``} else {``) from the line at its
    indentation that opened it, with the decorators or annotations above its first line."""
    level = indents[index]
    first = index
    parts = [lines[index]]
    if lines[index].lstrip().startswith(_CLOSING):
        for number in range(index - 1, max(-1, index - 1 - _HEADER_LINES), -1):
            if indents[number] < level:
                break
            if indents[number] == level:
                parts.append(lines[number])
                first = number
                if not lines[number].lstrip().startswith(_CLOSING):
                    break
    # Decorators and annotations: the lines above the first at its indentation that start
    # with "@", with what their brackets span, up to a blank line or another statement.
    above: list[str] = []
    top = first
    for number in range(first - 1, max(-1, first - 1 - _HEADER_LINES), -1):
        text = lines[number].strip()
        if not text or indents[number] < level:
            break
        if indents[number] == level and not text.startswith(("@", *_CLOSING)):
            break
        above.append(lines[number])
        if indents[number] == level and text.startswith("@"):
            top = number
    decorators = above[:first - top]
    return "\n".join(_normal(text) for text in [*reversed(decorators), *reversed(parts)])
