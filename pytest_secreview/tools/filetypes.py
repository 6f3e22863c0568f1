"""Tell text from binary and describe binary files without dumping them."""

from __future__ import annotations

import mimetypes

# Same heuristic as git: a NUL byte in the first 8000 bytes means binary.
_SNIFF_BYTES = 8000

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (also jar, wheel, docx, apk)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"MZ", "Windows PE executable or DLL"),
    (b"\xca\xfe\xba\xbe", "Java class file or Mach-O universal binary"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "Mach-O executable"),
    (b"\x00asm", "WebAssembly module"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00\x00\x01\x00", "ICO image"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
    (b"\x00\x01\x00\x00", "TrueType font"),
    (b"OTTO", "OpenType font"),
)


def decode_text(data: bytes) -> str | None:
    """The text of ``data``, or None when it is binary.

    UTF-16 files (with a byte-order mark) are text despite their NUL bytes; anything else
    is decoded as UTF-8 with invalid bytes replaced.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if b"\x00" in data[:_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


def guess_type(path: str, data: bytes) -> str:
    """A short human description of a binary file's type, from magic bytes or extension."""
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "WebP image"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "tar archive"
    for magic, description in _MAGIC:
        if data.startswith(magic):
            return description
    mime, _ = mimetypes.guess_type(path, strict=False)
    return mime or "unknown binary data"
