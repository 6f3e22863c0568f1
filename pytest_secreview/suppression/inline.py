"""Inline suppressions: ``secreview: ignore[rule-id, other-rule] reason`` in a comment.

The comment must use the comment syntax of the file's language (``#`` in Python and YAML,
``//`` or ``/* */`` in JavaScript and Go, ``--`` in SQL, ``<!-- -->`` in HTML...), chosen from
the path by :func:`pytest_secreview.triage.kinds.classify`: the same words inside something
that is not a comment in that language (a ``--`` in Python) are not a suppression. A file of
a language we do not name accepts every common form.

A suppression applies to findings of the named rules on its own line, or on the next line
when the comment stands alone on its line. The reason is required: one without a reason
(or without a rule id) suppresses nothing and is reported (see :mod:`.apply`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..triage.kinds import classify

__all__ = ["MARKER", "MAX_REASON_CHARS", "Suppression", "comment_styles", "parse_line"]

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
    """The suppression on one line of code, or None."""
    if MARKER not in text:
        return None
    match = _pattern(styles).search(text)
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

