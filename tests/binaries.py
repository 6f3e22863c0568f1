"""Real binary files, built in the test (never committed): media that cannot carry code and
the executables, archives and bytecode a pull request might dress up as media."""

from __future__ import annotations

import importlib.util
import io
import struct
import zipfile
import zlib


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(text: str = "") -> bytes:
    """A valid 16x16 RGB PNG; ``text`` goes into a ``tEXt`` chunk (a comment)."""
    rows = b"".join(b"\x00" + bytes((x * 16 + y) % 256 for x in range(48)) for y in range(16))
    comment = _png_chunk(b"tEXt", b"Comment\x00" + text.encode()) if text else b""
    return (b"\x89PNG\r\n\x1a\n"
            + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + comment + _png_chunk(b"IDAT", zlib.compress(rows)) + _png_chunk(b"IEND", b""))


def jpeg() -> bytes:
    """A JFIF JPEG header (APP0) and end marker."""
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return b"\xff\xd8\xff\xe0" + struct.pack(">H", len(app0) + 2) + app0 + b"\xff\xd9"


def gif() -> bytes:
    """A valid 1x1 GIF89a."""
    return (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
            b"!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


def webp() -> bytes:
    """A RIFF/WEBP container with a lossless (VP8L) chunk header."""
    body = b"WEBPVP8L" + struct.pack("<I", 6) + b"\x2f\x00\x00\x00\x00\x00"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def ico() -> bytes:
    """An ICO directory of one 16x16 image holding a PNG."""
    image = png()
    return (b"\x00\x00\x01\x00\x01\x00"
            + struct.pack("<BBBBHHII", 16, 16, 0, 0, 1, 32, len(image), 22) + image)


def woff2() -> bytes:
    """A WOFF2 header (flavor TrueType)."""
    return b"wOF2" + struct.pack(">IIHHIHHIIIII", 0x00010000, 48, 0, 0, 0, 1, 0, 0, 0, 0,
                                 0, 0)


def ttf() -> bytes:
    """A TrueType offset table with no tables."""
    return struct.pack(">IHHHH", 0x00010000, 0, 0, 0, 0) + bytes(16)


def mo(little_endian: bool = True) -> bytes:
    """A GNU gettext catalogue (.mo) holding only its header entry, with the GNU magic."""
    header = b"Content-Type: text/plain; charset=UTF-8\n"
    order = "<" if little_endian else ">"
    originals, translations = 28, 36
    strings = translations + 8
    return (struct.pack(f"{order}7I", 0x950412DE, 0, 1, originals, translations, 0, 0)
            + struct.pack(f"{order}2I", 0, strings)
            + struct.pack(f"{order}2I", len(header), strings + 1)
            + b"\x00" + header + b"\x00")


def elf() -> bytes:
    """The header of an x86-64 ELF executable."""
    return (b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHI", 2, 62, 1)
            + struct.pack("<QQQ", 0x401000, 64, 0) + bytes(16))


def zip_archive(name: str = "__main__.py", text: str = "print('hello')\n") -> bytes:
    """A zip archive holding one file (a jar, a wheel and a Python zipapp are zips)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


def pyc() -> bytes:
    """The header of this interpreter's Python bytecode (magic, flags, mtime, size)."""
    return importlib.util.MAGIC_NUMBER + bytes(12) + b"\xe3" + bytes(40)


def shell_script() -> bytes:
    """A shell script with a NUL byte, so that git calls it binary."""
    return b"#!/bin/sh\necho installed > /tmp/secreview-test-marker\n\x00\n"
