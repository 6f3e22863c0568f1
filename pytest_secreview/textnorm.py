"""Text as Python reads it: NFKC normalisation of what the patterns and the parser see.

Python applies NFKC to identifiers (PEP 3131), so ``𝗽𝗶𝗰𝗸𝗹𝗲.𝗹𝗼𝗮𝗱𝘀(data)`` runs as
``pickle.loads(data)``. A pattern or a parser that reads the raw text sees neither name. The
matcher, the detect patterns and the taint engine's parser therefore read the normalised text
as well as the raw one; normalising never adds or removes a line break, so line numbers stay
those of the file. The identifiers that only normalisation makes ASCII are an evasion signal
of their own (the bundled ``unicode-identifier-evasion`` rule reports them). The same readers
also see the plain form of a line's constant disguises (``unmask.py``).
"""

from __future__ import annotations

import unicodedata

from .unmask import unmask


def nfkc(text: str) -> str:
    """``text`` normalised to NFKC (the same object when it is ASCII: the common case costs
    one C-speed test)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text)


def nfkc_bytes(source: bytes) -> bytes:
    """UTF-8 ``source`` normalised to NFKC (undecodable bytes kept as they are)."""
    if source.isascii():
        return source
    text = source.decode("utf-8", "surrogateescape")
    return unicodedata.normalize("NFKC", text).encode("utf-8", "surrogateescape")


def readings(text: str) -> tuple[str, ...]:
    """Every form of ``text`` a pattern reads: raw, NFKC-normalised, and the plain form of
    its constant disguises (:func:`~pytest_secreview.unmask.unmask`), each once."""
    normal = nfkc(text)
    plain = unmask(normal)
    return tuple(dict.fromkeys((text, normal, plain)))


def variants(texts: list[str]) -> list[str]:
    """``texts`` plus every other reading (:func:`readings`) of each one."""
    extra = [r for t in texts for r in readings(t)[1:]]
    return [*texts, *extra] if extra else texts
