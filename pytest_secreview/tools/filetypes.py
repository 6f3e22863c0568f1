"""Tell text from binary and describe binary files without dumping them: the one table of
magic bytes lives in :mod:`pytest_secreview.diff.filetypes` (the review's gaps need it at
collection, below this package)."""

from __future__ import annotations

from ..diff.filetypes import claimed_media, content_type, decode_text, guess_type, media_type

__all__ = ["claimed_media", "content_type", "decode_text", "guess_type", "media_type"]
