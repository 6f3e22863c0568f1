"""Gitignore-style globs for ``list_files`` and ``search_files``, matched with RE2.

pathspec translates a glob to a regex; running that regex with Python's backtracking engine
would let a pattern such as ``*a*a*a*a*a*a*a*b`` take exponential time on a long file name, so
the translated regex is compiled with RE2 instead (same syntax, linear time).

Gitignore syntax has no braces, but models write ``src/{auth,api}/*.py`` as they would in a
shell; such a glob would otherwise match nothing and the tool would silently search 0 files.
Braces are expanded first (bracex, bounded to :data:`MAX_BRACE_EXPANSIONS` alternatives) and a
path matches when any alternative matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bracex
import pathspec

from ..safe_regex import compile_re2
from .errors import ToolError

MAX_GLOB_CHARS = 500
#: Alternatives a brace glob may expand to (``{a,b}{c,d}`` is four).
MAX_BRACE_EXPANSIONS = 64

def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A predicate telling whether a relative path matches the gitignore-style ``pattern``.

    ``*.py`` matches at any depth, ``src/**/*.ts`` is anchored, ``docs/`` matches everything
    under ``docs``; ``""``, ``*`` and ``**`` match everything; ``*.{py,js}`` matches either
    (shell-style braces, at most :data:`MAX_BRACE_EXPANSIONS` alternatives). Negation (``!x``)
    is refused: a single pattern cannot be negated meaningfully. Raises :class:`ToolError`
    with a hint.
    """
    text = pattern.strip()
    if len(text) > MAX_GLOB_CHARS:
        raise ToolError(f"glob pattern longer than {MAX_GLOB_CHARS} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise ToolError("control character in glob pattern")
    if text in ("", "*", "**", "**/*"):
        return lambda _path: True
    if text.startswith("!"):
        raise ToolError("negated glob patterns ('!x') are not supported; pass a positive pattern")
    regexes = [_compile_one(alternative) for alternative in _expand_braces(text)]
    if len(regexes) == 1:
        only = regexes[0]
        return lambda path: only.search(path) is not None
    return lambda path: any(regex.search(path) is not None for regex in regexes)


def _expand_braces(text: str) -> list[str]:
    """The alternatives of ``text``'s shell-style braces (``text`` itself when it has none);
    backslash escapes are kept for gitignore syntax (``\\{`` stays a literal brace)."""
    if "{" not in text:
        return [text]
    try:
        expanded = bracex.expand(text, keep_escapes=True, limit=MAX_BRACE_EXPANSIONS)
    except bracex.ExpansionLimitException:
        raise ToolError(
            f"glob {text!r} expands to more than {MAX_BRACE_EXPANSIONS} alternatives; use "
            "fewer braces or a wider pattern such as '*.py'"
        ) from None
    alternatives = [alt.strip() for alt in dict.fromkeys(expanded) if alt.strip()]
    return alternatives or [text]


def _compile_one(text: str) -> Any:
    """The RE2 regex of one brace-free gitignore pattern."""
    if text.startswith("!"):
        raise ToolError("negated glob patterns ('!x') are not supported; pass a positive pattern")
    try:
        spec_pattern: Any = pathspec.GitIgnoreSpec.from_lines([text]).patterns[0]
        source = spec_pattern.regex.pattern if spec_pattern.include is not None else None
        if source is None:
            raise ToolError(f"glob {text!r} is a comment; escape a leading '#' as '\\#'")
        return compile_re2(source)
    except ToolError:
        raise
    except Exception:
        raise ToolError(
            f"invalid glob pattern {text!r}: use gitignore syntax such as '*.py' or 'src/**/*.ts'"
        ) from None
