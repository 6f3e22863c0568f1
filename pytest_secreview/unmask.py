"""The plain form of a disguised line: what a dangerous call or a secret looks like once the
string tricks that hide it from a line pattern are undone.

A pull request can hide ``os.system(cmd)`` as ``getattr(__import__('o' + 's'), 'system')(cmd)``,
``pickle.loads`` as ``importlib.import_module('pickle').loads``, a shell as the argument vector
``['sh', '-c', cmd]``, and a cloud key as two adjacent literals, a base64 or hex string or a
reversed one. Python runs each exactly as the plain form; a pattern written for the plain form
sees none of them. :func:`unmask` rewrites one line into its plain form, so the rule pack's own
patterns (and matchers) read it as well as the raw and NFKC-normalised text
(:func:`pytest_secreview.textnorm.readings`), and every rule keeps its id and severities.

Only constant expressions are folded: what the line computes from data stays as written, so a
safe twin (``getattr(obj, 'name')``, ``['ls', '-l', path]``, a base64 string that decodes to
prose) reads the same plain or raw. The rewrite is line-local and bounded: a few passes over a
line of at most :data:`MAX_LINE` characters, each linear in it. The taint engine does the same
folding on the parsed code, across lines (``analysis/exprs.py``).
"""

from __future__ import annotations

import base64
import binascii
import re

#: A one-line string literal (not an f-string: its parts are code, not constants). An opening
#: quote without its closing one matches too, to the end of the line, with no ``end``: so every
#: quote starts at most one scan and a line of unclosed quotes costs linear time, not
#: quadratic (:func:`_closed` tells the two apart).
_LITERAL = re.compile(
    r"""(?<![\w'"])(?P<prefix>[rRbBuU]{0,2})(?P<quote>'|")"""
    r"""(?P<body>(?:[^'"\\\n]|\\.|(?!(?P=quote))['"])*)(?P<end>(?P=quote))?"""
)
#: Between two literals Python joins: nothing but blanks, or a ``+``.
_JOINER = re.compile(r"\s*(\+\s*)?")
#: Constant-named imports and attribute look-ups, once their names are plain literals.
_IMPORT = re.compile(
    r"""\b(?:__import__|(?:importlib\.)?import_module)\(\s*(['"])(?P<name>[A-Za-z_][\w.]*)\1\s*\)"""
)
_GETATTR = re.compile(
    r"""\bgetattr\(\s*(?P<obj>[A-Za-z_][\w.]*)\s*,\s*(['"])(?P<name>[A-Za-z_]\w*)\2\s*\)"""
)
#: ``''.join(reversed('...'))`` and ``'...'[::-1]``: a literal reversed at run time.
_REVERSED = re.compile(
    r"""(?:(['"])\1\.join\(\s*reversed\(\s*(?P<a>(['"])[^'"\\\n]*\3)\s*\)\s*\)"""
    r"""|(?P<b>(['"])[^'"\\\n]*\5)\[\s*:\s*:\s*-1\s*\])"""
)
#: A shell started through an argument vector: ``['sh', '-c', cmd]``, ``['cmd', '/c', cmd]``.
_SHELL_ARGV = re.compile(
    r"""\[\s*(['"])(?:(?:/usr)?/bin/)?(?:ba|z|da|k|a)?sh\1\s*,\s*(['"])-c\2\s*,\s*(?P<cmd>(?:[^\[\]]|\[[^\[\]]*\])+?)\s*,?\s*\]"""
    r"""|\[\s*(['"])(?i:cmd|cmd\.exe)\4\s*,\s*(['"])(?i:/c)\5\s*,\s*(?P<wcmd>(?:[^\[\]]|\[[^\[\]]*\])+?)\s*,?\s*\]"""
)
#: ``builtins.eval(...)`` (``__builtins__`` in a module run as a script) is ``eval(...)``.
_BUILTINS = re.compile(r"(?<![\w.])(?:builtins|__builtins__)\.(?=[A-Za-z_]\w*\s*\()")
#: ``name = dotted.name; ... name(``: a callable renamed on the line that calls it.
_ALIAS = re.compile(r"(?:^|;)\s*(?P<alias>[A-Za-z_]\w*)\s*=\s*(?P<target>[A-Za-z_][\w.]*)\s*;")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){12,}")
#: A decoded literal replaces the encoded one only when it reads as one token (a key, an id):
#: prose, binary digests and random bytes stay as written.
_TOKEN = re.compile(r"[\x21-\x7e]{12,}")
#: What any literal :func:`_decoded` can decode holds: 16 characters of the base64 (or
#: URL-safe base64) alphabet in a row; hex is a subset.
_ENCODED = re.compile(r"[A-Za-z0-9+/_-]{16}")
#: Every disguise folded here has a string literal, or (a same-line alias) a semicolon: a
#: line with neither is left alone (most lines, at the cost of one scan).
_CUES = ("'", '"', ";")
_PASSES = 4
#: Longer lines (minified bundles, data) are read as written: the folding is linear but not
#: free, and the raw and NFKC readings still apply to them. A disguise in such a line is left
#: to the model and the scanners.
MAX_LINE = 8192
_MAX_ALIASES = 4


def unmask(text: str) -> str:
    """``text`` with its constant disguises undone (the same object when there are none).

    Adjacent and ``+``-joined literals are folded, literals reversed at run time reversed,
    ``__import__``/``import_module`` of a constant name replaced by the name, ``getattr`` of a
    constant attribute by the attribute, ``builtins.eval`` by ``eval``, ``['sh', '-c', cmd]``
    by ``cmd, shell=True``, a callable renamed on the line by its name where the line calls
    it, and base64 and hex literals that decode to one printable token by the token."""
    if len(text) > MAX_LINE or not any(cue in text for cue in _CUES):
        return text
    # Each rewrite runs only when the line holds what its pattern cannot match without (a
    # substring test at C speed): it is read on every changed line, most of which hold none.
    plain = text
    for _ in range(_PASSES):
        before = plain
        if plain.count("'") + plain.count('"') >= 4:  # two literals, each with two quotes
            plain = _fold(plain)
        if "reversed" in plain or "-1" in plain:
            plain = _REVERSED.sub(_reverse, plain)
        if "import" in plain:
            plain = _IMPORT.sub(lambda m: m.group("name"), plain)
        if "getattr" in plain:
            plain = _GETATTR.sub(lambda m: f"{m.group('obj')}.{m.group('name')}", plain)
        if "[" in plain:
            plain = _SHELL_ARGV.sub(
                lambda m: f"{m.group('cmd') or m.group('wcmd')}, shell=True", plain)
        if "builtins." in plain:
            plain = _BUILTINS.sub("", plain)
        if ";" in plain:
            plain = _aliases(plain)
        if plain == before:
            break
    if _ENCODED.search(plain):
        plain = _LITERAL.sub(_decode, plain)
    return text if plain == text else plain


def _fold(text: str) -> str:
    """Adjacent (``'AK' 'IA'``) and ``+``-joined (``'AK' + 'IA'``) literals as one."""
    out: list[str] = []
    pos = 0
    run: list[re.Match[str]] = []
    for match in _LITERAL.finditer(text):
        if not _closed(match):
            pos = _flush(text, run, out, pos)
            run = []
            continue
        if run and _JOINER.fullmatch(text, run[-1].end(), match.start()) and _joinable(
                run[-1], match):
            run.append(match)
            continue
        pos = _flush(text, run, out, pos)
        run = [match]
    pos = _flush(text, run, out, pos)
    out.append(text[pos:])
    return "".join(out)


def _closed(match: re.Match[str]) -> bool:
    return match.group("end") is not None


def _joinable(left: re.Match[str], right: re.Match[str]) -> bool:
    # bytes join bytes and text joins text; an r-prefix changes no character we compare.
    return ("b" in left.group("prefix").lower()) == ("b" in right.group("prefix").lower())


def _flush(text: str, run: list[re.Match[str]], out: list[str], pos: int) -> int:
    if len(run) < 2:
        return pos
    body = "".join(m.group("body") for m in run)
    quote = "'" if "'" not in body else '"'
    out.append(text[pos:run[0].start()])
    out.append(f"{run[0].group('prefix')}{quote}{body}{quote}")
    return run[-1].end()


def _reverse(match: re.Match[str]) -> str:
    literal = match.group("a") or match.group("b")
    return literal[0] + literal[1:-1][::-1] + literal[-1]


def _aliases(text: str) -> str:
    # A few per line: a disguise needs one, and minified code (``;a=b;c=d;...``) must not
    # make each of thousands rewrite the rest of a long line.
    for found in list(_ALIAS.finditer(text))[:_MAX_ALIASES]:
        alias, target = found.group("alias"), found.group("target")
        if alias == target:
            continue
        rest = re.sub(rf"(?<![\w.]){re.escape(alias)}\s*\(", f"{target}(", text[found.end():])
        text = text[:found.end()] + rest
    return text


def _decode(match: re.Match[str]) -> str:
    decoded = _decoded(match.group("body")) if _closed(match) else None
    if decoded is None:
        return match.group(0)
    return f"{match.group('prefix')}{match.group('quote')}{decoded}{match.group('quote')}"


def _decoded(body: str) -> str | None:
    """The one printable token ``body`` encodes in hex or base64, or None."""
    raw: bytes | None = None
    if _HEX.fullmatch(body):
        raw = bytes.fromhex(body)
    elif _BASE64.fullmatch(body):
        padded = body + "=" * (-len(body) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            return None
    if raw is None:
        return None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    return text if _TOKEN.fullmatch(text) and "'" not in text and '"' not in text else None
