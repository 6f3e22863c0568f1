"""Paths in ``git diff`` headers: git's C-style quoting undone, the ``a/``/``b/`` prefixes
stripped, and the two paths of a ``diff --git`` line split when neither is quoted. Paths are
decoded as UTF-8 (``errors="replace"``)."""

from __future__ import annotations

from ..errors import DiffParseError

_ESCAPES = {
    ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11,
    ord("f"): 12, ord("r"): 13, ord('"'): 34, ord("\\"): 92,
}


def _read_quoted(data: bytes, start: int) -> tuple[bytes, int]:
    """Undo git's C quoting of the string opening at ``data[start] == '"'``.

    Returns the raw bytes and the index just past the closing quote.
    """
    out = bytearray()
    i = start + 1
    n = len(data)
    while i < n:
        c = data[i]
        if c == 0x22:
            return bytes(out), i + 1
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= n:
            break
        e = data[i]
        if 0x30 <= e <= 0x37:
            j = i
            value = 0
            while j < n and j < i + 3 and 0x30 <= data[j] <= 0x37:
                value = value * 8 + data[j] - 0x30
                j += 1
            out.append(value & 0xFF)
            i = j
        else:
            # Unknown escapes keep the escaped byte, as git's own unquote_c_style would refuse;
            # being lenient here loses nothing because the byte itself is kept.
            out.append(_ESCAPES.get(e, e))
            i += 1
    raise DiffParseError(f"unterminated quoted path in {data[:200]!r}")


def to_bytes(value: str | bytes) -> bytes:
    if isinstance(value, bytes):
        return value
    try:
        # Round-trips strings that came from bytes decoded with surrogateescape.
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace")


def decode_path(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def unquote_git_path(raw: str | bytes) -> str:
    """Return the path git printed as ``raw``, undoing C-style quoting if it is quoted.

    ``"a/caf\\303\\251 \\"x\\".txt"`` becomes ``a/café "x".txt``; octal escapes are bytes,
    decoded together as UTF-8. An unquoted value is returned unchanged.
    """
    data = to_bytes(raw)
    if not data.startswith(b'"'):
        return decode_path(data)
    value, end = _read_quoted(data, 0)
    if end != len(data):
        raise DiffParseError(f"trailing text after quoted path {data[:200]!r}")
    return decode_path(value)


def _strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix):] if path.startswith(prefix) else path


def header_path(value: bytes, prefix: str) -> str | None:
    """The path of a ``---``/``+++`` line's value; ``None`` for ``/dev/null``."""
    if value.startswith(b'"'):
        raw, _ = _read_quoted(value, 0)
        return _strip_prefix(decode_path(raw), prefix)
    # Unquoted names never contain a tab (git quotes them), so a tab starts git's marker for
    # names with spaces or a timestamp from other diff tools.
    tab = value.find(b"\t")
    if tab >= 0:
        value = value[:tab]
    if value == b"/dev/null":
        return None
    return _strip_prefix(decode_path(value), prefix)


def plain_path(value: bytes) -> str:
    """A ``rename from``/``copy to`` style value: quoted or not, with no prefix."""
    if value.startswith(b'"'):
        return decode_path(_read_quoted(value, 0)[0])
    return decode_path(value)


def split_git_line(rest: bytes) -> tuple[str, str]:
    """Split the ``a/X b/Y`` part of a ``diff --git`` line into ``(X, Y)``."""
    if rest.startswith(b'"'):
        first, end = _read_quoted(rest, 0)
        second = rest[end:].lstrip(b" ")
        b_raw = _read_quoted(second, 0)[0] if second.startswith(b'"') else second
        return _strip_prefix(decode_path(first), "a/"), _strip_prefix(decode_path(b_raw), "b/")
    if rest.endswith(b'"'):
        i = rest.find(b' "')
        while i >= 0:
            try:
                raw, end = _read_quoted(rest, i + 1)
            except DiffParseError:
                raw, end = b"", -1
            if end == len(rest):
                return (_strip_prefix(decode_path(rest[:i]), "a/"),
                        _strip_prefix(decode_path(raw), "b/"))
            i = rest.find(b' "', i + 1)
    # Unquoted and possibly with spaces: ambiguous in general, but git only relies on this
    # line for non-renames (renames carry "rename from/to"), whose two halves are equal.
    n = len(rest)
    if rest.startswith(b"a/") and n % 2 == 1:
        half = (n - 5) // 2
        if rest[2 + half:5 + half] == b" b/" and rest[2:2 + half] == rest[5 + half:]:
            name = decode_path(rest[2:2 + half])
            return name, name
    sep = rest.find(b" b/")
    if sep < 0:
        sep = rest.find(b" ")
    if sep < 0:
        raise DiffParseError(f"cannot read the paths of 'diff --git {decode_path(rest[:200])}'")
    return (_strip_prefix(decode_path(rest[:sep]), "a/"),
            _strip_prefix(decode_path(rest[sep + 1:]), "b/"))
