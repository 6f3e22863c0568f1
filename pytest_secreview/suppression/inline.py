"""Inline suppressions: ``secreview: ignore[rule-id, other-rule] reason`` in a comment.

The comment must use the comment syntax of the file's language (``#`` in Python and YAML,
``//`` or ``/* */`` in JavaScript and Go, ``--`` in SQL, ``<!-- -->`` in HTML...), chosen from
the path by :func:`pytest_secreview.diff.kinds.classify`: the same words inside something
that is not a comment in that language (a ``--`` in Python) are not a suppression. A file of
a language we do not name accepts every common form.

Only a real comment counts: the opener must stand outside the line's string literals
(:func:`parse_line`), and a line that starts inside a string spanning lines is not read
(:func:`inside_strings`). In doubt, nothing is suppressed.

A suppression applies to findings of the named rules on its own line, or on the next line
when the comment stands alone on its line. The reason is required: one without a reason
(or without a rule id) suppresses nothing and is reported (see :mod:`.apply`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..diff.kinds import classify

__all__ = ["MARKER", "MAX_REASON_CHARS", "Suppression", "comment_styles", "inside_strings",
           "parse_line"]

#: The words every suppression starts with; a cheap substring test before any regex.
MARKER = "secreview:"
#: A reason is cut here: it is untrusted text shown in every report.
MAX_REASON_CHARS = 300

# (opener, closer) pairs; closer "" for a comment that runs to the end of the line.
_HASH = (("#", ""),)
_SLASHES = (("//", ""), ("/*", "*/"))
_DASHES = (("--", ""),)
_MARKUP = (("<!--", "-->"),)
_TEMPLATE = (("{#", "#}"), *_MARKUP)

_BY_LANGUAGE: dict[str, tuple[tuple[str, str], ...]] = {
    **dict.fromkeys(
        ("python", "ruby", "shell", "perl", "r", "julia", "nim", "elixir", "yaml", "toml",
         "conf", "dotenv", "dockerfile", "rego", "graphql", "apache", "powershell"), _HASH),
    **dict.fromkeys(
        ("javascript", "typescript", "go", "java", "kotlin", "scala", "groovy", "c", "cpp",
         "csharp", "rust", "swift", "dart", "objective-c", "zig", "solidity", "protobuf",
         "bicep", "cue", "json"), _SLASHES),
    "php": (*_SLASHES, *_HASH),
    "fsharp": (*_SLASHES, ("(*", "*)")),
    "terraform": (*_HASH, *_SLASHES),
    "hcl": (*_HASH, *_SLASHES),
    "nix": (*_HASH, ("/*", "*/")),
    "ini": (*_HASH, (";", "")),
    "properties": (*_HASH, ("!", "")),
    "sql": (*_DASHES, ("/*", "*/"), *_HASH),
    "lua": _DASHES,
    "haskell": (*_DASHES, ("{-", "-}")),
    "ocaml": (("(*", "*)"),),
    "erlang": (("%", ""),),
    "clojure": ((";", ""),),
    "batch": (("::", ""), ("REM", "")),
    "vb": (("'", ""),),
    "html": _MARKUP, "xml": _MARKUP,
    "vue": (*_MARKUP, *_SLASHES), "svelte": (*_MARKUP, *_SLASHES),
    "jinja": _TEMPLATE, "twig": _TEMPLATE,
    "handlebars": (("{{!--", "--}}"), ("{{!", "}}"), *_MARKUP),
    "mustache": (("{{!", "}}"), *_MARKUP),
    "ejs": (("<%#", "%>"), *_MARKUP),
    "jsp": (("<%--", "--%>"), *_MARKUP),
    "asp": (("'", ""), *_MARKUP),
}
#: A language we do not name (a Makefile, an extensionless script): every common form.
_ANY = (*_HASH, *_SLASHES, *_DASHES, *_MARKUP, (";", ""))


@dataclass(frozen=True)
class Suppression:
    """One ``secreview: ignore[...]`` comment found on ``line`` (head revision, 1-based).

    ``rules`` are the rule ids it names; ``reason`` its justification ("" when missing);
    ``alone`` is True when the comment is the only thing on its line (it then also covers
    the next line).
    """

    line: int
    rules: tuple[str, ...]
    reason: str
    alone: bool

    @property
    def valid(self) -> bool:
        """A suppression suppresses only with at least one rule id and a reason."""
        return bool(self.rules) and bool(self.reason)

    def at(self, line: int) -> bool:
        """True when it stands on ``line``, or alone on the line above it."""
        return line == self.line or (self.alone and line == self.line + 1)

    def covers(self, rule: str, line: int) -> bool:
        """True when it names ``rule`` and stands at ``line`` (see :meth:`at`)."""
        return rule in self.rules and self.at(line)

    def problem(self) -> str:
        """What is wrong with an invalid suppression, and how to fix it."""
        if not self.rules:
            return ("names no rule, so it suppresses nothing: name the rule ids in brackets, "
                    "then the reason, e.g. `secreview: ignore[sql-injection] the query is a "
                    "constant`")
        return (f"has no reason, so it suppresses nothing: write why after the brackets, e.g. "
                f"`secreview: ignore[{','.join(self.rules)}] input is validated by the caller`")


def comment_styles(path: str) -> tuple[tuple[str, str], ...]:
    """The (opener, closer) comment forms of ``path``'s language."""
    language = classify(path).language
    return _BY_LANGUAGE.get(language, _ANY) if language else _ANY


@lru_cache(maxsize=64)
def _pattern(styles: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    openers = "|".join(re.escape(opener) for opener, _ in sorted(styles, key=lambda s: -len(s[0])))
    # Decoration between the opener and the marker is allowed (``/** ``, ``#!``, ``---``).
    return re.compile(rf"(?P<opener>{openers})[ \t*!#/-]*secreview:[ \t]*ignore\b"
                      r"(?:[ \t]*\[(?P<rules>[^\]]*)\])?(?P<rest>.*)$")


_RULE_ID = re.compile(r"[^\s,]+")
_LEADING = re.compile(r"^[\s:;,.\-–—]+")


def parse_line(text: str, number: int, styles: tuple[tuple[str, str], ...]) -> Suppression | None:
    """The suppression on one line of code, or None. Only a marker in a real comment counts:
    its opener must stand outside the line's string literals (see :func:`_comment_starts`)."""
    if MARKER not in text:
        return None
    match = next((m for start in _comment_starts(text, styles)
                  if (m := _pattern(styles).match(text, start)) is not None), None)
    if match is None:
        return None
    closer = dict(styles).get(match.group("opener"), "")
    rest, after = match.group("rest"), ""
    if closer and closer in rest:
        rest, after = rest[: rest.index(closer)], rest[rest.index(closer) + len(closer):]
    reason = " ".join(_LEADING.sub("", rest).split())
    if not any(ch.isalnum() for ch in reason):
        reason = ""
    rules = tuple(dict.fromkeys(_RULE_ID.findall(match.group("rules") or "")))
    # Alone on its line (nothing before it, nothing after its closer): it covers the next.
    alone = not text[: match.start()].strip() and not after.strip()
    return Suppression(number, rules, reason[:MAX_REASON_CHARS], alone)


#: The quotes that open a string literal on one line; a backslash escapes the next character.
_QUOTES = frozenset("'\"`")


def _comment_starts(text: str, styles: tuple[tuple[str, str], ...]) -> Iterator[int]:
    """The positions where a comment opens on ``text``, outside string literals.

    One line is all we see, so strings are approximated: ``'``, ``"`` and `````` open a
    literal that the same quote closes (a backslash escapes), and a literal still open at
    the end of the line (a triple quote, a multi-line string) hides everything after it.
    In doubt this finds no comment, so a suppression is not honoured rather than smuggled in
    through a string. Inside a comment that runs to the end of the line, every later opener
    counts too (``# note # secreview: ...``)."""
    openers = sorted(styles, key=lambda s: -len(s[0]))
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
            i += 1
            continue
        opened = next(((o, c) for o, c in openers if text.startswith(o, i)), None)
        if opened is not None:
            opener, closer = opened
            yield i
            if not closer:
                # The rest of the line is comment: any later opener in it is one too.
                yield from (j for j in range(i + 1, len(text))
                            if any(text.startswith(o, j) for o, _ in openers))
                return
            end = text.find(closer, i + len(opener))
            if end < 0:
                return
            i = end + len(closer)
            continue
        if ch in _QUOTES:
            quote = ch
        i += 1


#: Delimiters of strings that span lines, by language (longest first).
_MULTILINE: dict[str, tuple[str, ...]] = {
    "python": ('"""', "'''"), "javascript": ("`",), "typescript": ("`",), "go": ("`",),
}


def inside_strings(lines: Sequence[str], path: str) -> frozenset[int]:
    """The 1-based numbers of ``lines`` that start inside a string spanning lines (Python's
    triple quotes, JavaScript's and Go's backticks): no suppression is read there, not even
    after the string closes on that line (in doubt, nothing is suppressed)."""
    language = classify(path).language
    delimiters = _MULTILINE.get(language or "", ())
    if not delimiters:
        return frozenset()
    openers = [o for o, c in comment_styles(path) if not c]  # comments to the end of the line
    inside: set[int] = set()
    state = ""
    for number, text in enumerate(lines, start=1):
        if state:
            inside.add(number)
        i = 0
        while i < len(text):
            if state:
                end = _closing(text, i, state)
                if end < 0:
                    break
                i, state = end, ""
                continue
            if any(text.startswith(o, i) for o in openers):
                break
            opened = next((d for d in delimiters if text.startswith(d, i)), None)
            if opened is not None:
                state, i = opened, i + len(opened)
                continue
            if text[i] in _QUOTES:  # a one-line string: skipped to its end
                end = _closing(text, i + 1, text[i])
                i = end if end >= 0 else len(text)
                continue
            i += 1
    return frozenset(inside)


def _closing(text: str, start: int, quote: str) -> int:
    """The index just past ``quote`` closing a string at or after ``start``, or -1."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i + len(quote)
        else:
            i += 1
    return -1
