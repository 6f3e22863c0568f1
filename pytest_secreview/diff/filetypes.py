"""Tell text from binary, describe a binary file from its magic bytes, and recognise binary
media that cannot carry code.

One table (:data:`_MAGIC`) serves the model's ``read_file`` tool (a binary file is described,
never dumped: :func:`guess_type`) and the review's gaps (:func:`media_type`: an image, a font,
a compiled catalogue, audio or video that git shows no text of is "not code" rather than "not
reviewed"). Media is decided by the content *and* the name together: a pull request chooses
file names, so ``payload.png`` that holds an ELF executable, a zip, bytecode or a script is not
media; nor is a real image with an archive appended (a jar or a Python zipapp is read from the
end of the file).
"""

from __future__ import annotations

import mimetypes
from enum import StrEnum

# Same heuristic as git: a NUL byte in the first 8000 bytes means binary.
_SNIFF_BYTES = 8000


class Media(StrEnum):
    """Families of binary media that hold no executable code."""

    IMAGE = "image"
    FONT = "font"
    TRANSLATIONS = "compiled translations"
    AUDIO_VIDEO = "audio or video"


#: The bytes of the start of a file that :func:`media_type` reads.
HEAD_BYTES = 64
#: The bytes of the end of a file that :func:`media_type` reads: a ZIP archive's end record
#: (22 bytes) and its longest comment, so an archive appended to an image is seen.
TAIL_BYTES = 22 + 0xFFFF

# (magic at offset 0, description, media family or None when the content can be code or an
# archive of code). First match wins: longer magics that share a prefix come first.
_MAGIC: tuple[tuple[bytes, str, Media | None], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image", Media.IMAGE),
    (b"\xff\xd8\xff", "JPEG image", Media.IMAGE),
    (b"GIF87a", "GIF image", Media.IMAGE),
    (b"GIF89a", "GIF image", Media.IMAGE),
    (b"II*\x00", "TIFF image", Media.IMAGE),
    (b"MM\x00*", "TIFF image", Media.IMAGE),
    (b"icns", "ICNS icon", Media.IMAGE),
    (b"%PDF-", "PDF document", None),  # may carry JavaScript
    (b"PK\x03\x04", "ZIP archive (also jar, wheel, docx, apk)", None),
    (b"\x1f\x8b", "gzip archive", None),
    (b"BZh", "bzip2 archive", None),
    (b"\xfd7zXZ\x00", "xz archive", None),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive", None),
    (b"\x7fELF", "ELF executable or library", None),
    (b"MZ", "Windows PE executable or DLL", None),
    (b"\xca\xfe\xba\xbe", "Java class file or Mach-O universal binary", None),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable", None),
    (b"\xfe\xed\xfa\xcf", "Mach-O executable", None),
    (b"\x00asm", "WebAssembly module", None),
    (b"SQLite format 3\x00", "SQLite database", None),
    (b"\x00\x00\x01\x00", "ICO image", Media.IMAGE),
    (b"\x00\x00\x02\x00", "CUR cursor", Media.IMAGE),
    (b"OggS", "Ogg media", Media.AUDIO_VIDEO),
    (b"ID3", "MP3 audio", Media.AUDIO_VIDEO),
    (b"fLaC", "FLAC audio", Media.AUDIO_VIDEO),
    (b"\x1a\x45\xdf\xa3", "WebM/Matroska media", Media.AUDIO_VIDEO),
    (b"wOFF", "WOFF font", Media.FONT),
    (b"wOF2", "WOFF2 font", Media.FONT),
    (b"\x00\x01\x00\x00", "TrueType font", Media.FONT),
    (b"true", "TrueType font", Media.FONT),
    (b"OTTO", "OpenType font", Media.FONT),
    (b"ttcf", "TrueType font collection", Media.FONT),
    # GNU gettext's magic 0x950412de, little- and big-endian.
    (b"\xde\x12\x04\x95", "GNU gettext catalogue (.mo)", Media.TRANSLATIONS),
    (b"\x95\x04\x12\xde", "GNU gettext catalogue (.mo)", Media.TRANSLATIONS),
    (b"#!", "script (#! line)", None),
)

#: ISO base media (``ftyp`` box) brands of still images; every other brand is audio or video.
_IMAGE_BRANDS = (b"avif", b"avis", b"heic", b"heix", b"hevc", b"mif1", b"msf1")
#: The sizes of a BMP file's DIB header, one per version of the format.
_DIB_SIZES = (12, 40, 52, 56, 64, 108, 124)
#: Embedded OpenType versions (little-endian, at offset 8), whose magic is at offset 34.
_EOT_VERSIONS = (0x00010000, 0x00020001, 0x00020002)
#: The first two bytes of an MPEG audio frame (no ID3 tag): the sync bits, layer III.
_MPEG_SYNC = (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2", b"\xff\xfa")


def _structured(data: bytes) -> tuple[str, Media | None] | None:
    """Formats told by more than a prefix (after every prefix of :data:`_MAGIC`): RIFF and
    ftyp containers, BMP, EOT, MPEG audio frames, Python bytecode and tar."""
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "WebP image", Media.IMAGE
    if data.startswith(b"RIFF") and data[8:12] == b"WAVE":
        return "WAV audio", Media.AUDIO_VIDEO
    if data[4:8] == b"ftyp":
        if data[8:12] in _IMAGE_BRANDS:
            return "AVIF/HEIF image", Media.IMAGE
        return "MP4 media", Media.AUDIO_VIDEO
    if (data.startswith(b"BM") and data[6:10] == b"\x00\x00\x00\x00"
            and int.from_bytes(data[14:18], "little") in _DIB_SIZES):
        return "BMP image", Media.IMAGE
    if (data[34:36] == b"LP"
            and int.from_bytes(data[8:12], "little") in _EOT_VERSIONS):
        return "Embedded OpenType font", Media.FONT
    if data[:2] in _MPEG_SYNC:
        return "MP3 audio", Media.AUDIO_VIDEO
    if len(data) >= 16 and data[2:4] == b"\r\n" and 3000 <= int.from_bytes(
            data[:2], "little") < 4000:
        return "Python bytecode", None  # CPython 3's magic numbers, then "\r\n"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "tar archive", None
    return None


def _identify(data: bytes) -> tuple[str, Media | None] | None:
    """(description, media family or None) of what ``data`` starts with, or None."""
    for magic, description, media in _MAGIC:
        if data.startswith(magic):
            return description, media
    return _structured(data)


#: The media a file's name says it is, by its last extension (lower case). SVG is missing on
#: purpose: it is text that can hold script, and is reviewed as text.
_EXTENSIONS: dict[str, Media] = {
    **dict.fromkeys(("png", "apng", "jpg", "jpeg", "jpe", "jfif", "gif", "webp", "bmp", "dib",
                     "ico", "cur", "icns", "tif", "tiff", "avif", "heic", "heif"), Media.IMAGE),
    **dict.fromkeys(("ttf", "otf", "ttc", "woff", "woff2", "eot"), Media.FONT),
    "mo": Media.TRANSLATIONS,
    **dict.fromkeys(("mp3", "ogg", "oga", "ogv", "opus", "wav", "flac", "mp4", "m4a", "m4v",
                     "mov", "webm", "mkv"), Media.AUDIO_VIDEO),
}


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


def content_type(data: bytes) -> str | None:
    """What the start of ``data`` says it is (magic bytes only), or None when unknown."""
    found = _identify(data)
    return found[0] if found else None


def guess_type(path: str, data: bytes) -> str:
    """A short human description of a binary file's type, from magic bytes or extension."""
    described = content_type(data)
    if described is not None:
        return described
    mime, _ = mimetypes.guess_type(path, strict=False)
    return mime or "unknown binary data"


def claimed_media(path: str) -> Media | None:
    """The media family ``path``'s extension names, or None."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return _EXTENSIONS.get(name.rsplit(".", 1)[-1].lower())


def appended_archive(tail: bytes) -> bool:
    """True when ``tail`` (the end of a file) holds a ZIP archive's end record: a zip reader
    (``java -jar``, ``python file``) loads the archive whatever comes before it."""
    return b"PK\x05\x06" in tail


def media_type(path: str, head: bytes, tail: bytes = b"") -> str | None:
    """The description of known binary media (``"PNG image"``) when ``path`` names a media
    family and its content (``head``: the first :data:`HEAD_BYTES` or more, ``tail``: the
    last :data:`TAIL_BYTES`) is media of that family with no archive appended; else None.

    An image in another image format (a PNG named ``.jpg``) is still an image; an image
    named like a font, an executable named like an image, are not media."""
    claimed = claimed_media(path)
    found = _identify(head)
    if claimed is None or found is None or found[1] is not claimed:
        return None
    if appended_archive(tail):
        return None
    return found[0]


def not_media_because(path: str, head: bytes, tail: bytes = b"") -> str | None:
    """For a file named like media that :func:`media_type` refuses, why, in words (for the
    reason it is not reviewed); None when it is media or not named like it."""
    claimed = claimed_media(path)
    if claimed is None or media_type(path, head, tail) is not None:
        return None
    found = _identify(head)
    if found is not None and found[1] is claimed and appended_archive(tail):
        return f"a {found[0]} with a ZIP archive appended (a zip reader runs it)"
    said = f"its content is {_a(found[0])}" if found else f"its content is not {_a(claimed)}"
    return f"named like {_a(claimed)}, {said}"


def _a(noun: str) -> str:
    if noun == Media.TRANSLATIONS:
        return "a compiled translation catalogue"
    if noun == Media.AUDIO_VIDEO:
        return "audio or video"
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun
