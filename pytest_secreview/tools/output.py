"""Make a tool's text safe to hand to a model: no terminal escapes, no secrets, bounded size."""

from __future__ import annotations

from .redaction import sanitize

#: Hard limit on every tool result, in characters (docs/security.md, "Repository tools").
MAX_OUTPUT_CHARS = 50_000


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS, *, hidden: int = 0) -> str:
    """Cut ``text`` to ``limit`` characters with a visible marker saying how much is missing.

    ``hidden`` counts characters already dropped before ``text`` was built, so the marker stays
    honest when a caller pre-cut a huge output.
    """
    if len(text) <= limit and not hidden:
        return text
    kept = text[:limit]
    missing = len(text) - len(kept) + hidden
    return f"{kept}\n[... truncated: {missing} more characters ...]"


def for_model(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` sanitized (:func:`.redaction.sanitize`), then truncated to ``limit``.

    Redaction runs before truncation so a secret straddling the cut is still recognised whole.
    Only a prefix a few times the limit is redacted: the rest would be cut anyway, and a
    multi-megabyte output should not cost a full scan.
    """
    window = limit * 4
    hidden = max(0, len(text) - window)
    clean = sanitize(text[:window])
    return truncate(valid_utf8(clean), limit, hidden=hidden)


def valid_utf8(text: str) -> str:
    """``text`` without lone surrogates (U+FFFD instead), so any wire format can carry it.

    File names that are not UTF-8 are decoded with ``surrogateescape``; their raw bytes are
    turned back into bytes here and shown as replacement characters.
    """
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that did not come from undecodable bytes
        return text.encode("utf-8", "replace").decode("utf-8")
    return raw.decode("utf-8", "replace")
