"""Stream the changed lines of one file out of git, in bounded memory.

The reviewed patch drops the hunks of a file too large to review, and git prints no lines at
all for a file it calls binary (a NUL byte in its first 8,000 bytes is enough). Neither may
hide a secret, so the deterministic rules read such a file from a second ``git diff`` of that
path alone, with ``--text``: git's own line split, every byte decoded with replacement. Lines
are yielded one at a time and a line longer than :data:`PIECE_BYTES` comes in overlapping
pieces, so memory stays bounded whatever the file holds (one 9 MiB line included).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO

from ..errors import GitError
from ..gitcmd import popen_git, validate_ref
from .git import _drain, _ensure_repo

__all__ = ["OVERLAP_BYTES", "PIECE_BYTES", "ChangedLine", "stream_changed_lines"]

#: Longest piece of one line handed to the rules at a time.
PIECE_BYTES = 64 * 1024
#: How much consecutive pieces of one long line overlap, so that a secret cut by a piece
#: boundary is whole in the next piece (every secret shape the rules know is shorter).
OVERLAP_BYTES = 4 * 1024
_READ_SIZE = 64 * 1024
_HUNK_RE = re.compile(rb"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_OPTIONS = (
    "--no-color", "--no-ext-diff", "--no-textconv", "--text", "--unified=0", "--no-renames",
    "--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
)


@dataclass(frozen=True)
class ChangedLine:
    """One added or removed line, or a piece of a long one. ``number`` is a head line: the
    added line's own, or for a removed line the head line where the removal sits."""

    added: bool
    number: int
    text: str
    continued: bool = False  # a later piece of the same long line


def _pieces(stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(piece, continues)`` for every line of ``stream``, newline removed; a line longer
    than :data:`PIECE_BYTES` comes as overlapping pieces, the later ones ``continues``."""
    buffer = b""
    continues = False
    for chunk in iter(lambda: stream.read(_READ_SIZE), b""):
        buffer += chunk
        pos = 0
        while True:
            newline = buffer.find(b"\n", pos)
            if newline < 0:
                break
            yield buffer[pos:newline], continues
            continues = False
            pos = newline + 1
        buffer = buffer[pos:]
        while len(buffer) > PIECE_BYTES:
            yield buffer[:PIECE_BYTES], continues
            continues = True
            buffer = buffer[PIECE_BYTES - OVERLAP_BYTES:]
    if buffer:
        yield buffer, continues


def _decode(raw: bytes) -> str:
    # Stray NUL bytes stay in the text (regexes see past them); invalid UTF-8 is replaced;
    # a CRLF line loses its CR, as in the parsed diff.
    return (raw[:-1] if raw.endswith(b"\r") else raw).decode("utf-8", "replace")


@lru_cache(maxsize=16)
def _git_dir(repo: Path) -> Path:
    """The git directory of ``repo``, asked of git once per process (a pull request may
    have a thousand files to stream, each one ``git diff``; a failure is not remembered)."""
    return _ensure_repo(repo)


def stream_changed_lines(
    repo: Path, base_sha: str, head_sha: str, path: str
) -> Iterator[ChangedLine]:
    """Every added and removed line of ``path`` between ``base_sha`` and ``head_sha``.

    Binary content is read as text (``git diff --text``). A rename is not followed: the file
    at ``path`` is compared with whatever the base held at that path, so a renamed file reads
    as wholly added (more lines scanned, never fewer). Raises :class:`GitError` when git
    fails.
    """
    validate_ref(base_sha)
    validate_ref(head_sha)
    git_dir = _git_dir(repo)
    # As for the reviewed patch: bare, so the pull request's .gitattributes cannot turn the
    # file's diff off; a literal pathspec, so a name like "*.py" is that one file.
    proc = popen_git(git_dir, "--bare", "diff", *_OPTIONS, "--end-of-options", base_sha,
                     head_sha, "--", f":(literal){path}")
    assert proc.stdout is not None and proc.stderr is not None
    # Drained aside, so git never blocks on a full stderr pipe while stdout is read.
    stderr = bytearray()
    reader = threading.Thread(target=_drain, args=(proc.stderr, stderr), daemon=True)
    reader.start()
    in_hunk = False
    added = False
    new_no = 0
    finished = False
    try:
        for raw, continues in _pieces(proc.stdout):
            if continues:
                if in_hunk:
                    yield ChangedLine(added, max(new_no - 1 if added else new_no, 1),
                                      _decode(raw), continued=True)
                continue
            first = raw[:1]
            if raw.startswith(b"@@"):
                found = _HUNK_RE.match(raw)
                if found is None:
                    raise GitError(f"git diff of {path!r}: malformed hunk header {raw[:80]!r}")
                new_no = int(found.group(1))
                in_hunk = True
            elif raw.startswith(b"diff --git "):
                in_hunk = False  # a type change (file to symlink) prints two sections
            elif in_hunk and first == b"+":
                added = True
                yield ChangedLine(True, new_no, _decode(raw[1:]))
                new_no += 1
            elif in_hunk and first == b"-":
                added = False
                yield ChangedLine(False, max(new_no, 1), _decode(raw[1:]))
        finished = True
    finally:
        if not finished:
            proc.kill()  # the consumer stopped early, or failed
        proc.stdout.close()
        returncode = proc.wait()
        reader.join()
        proc.stderr.close()
    if returncode != 0:
        message = stderr.decode("utf-8", "replace").strip() or f"exit status {returncode}"
        raise GitError(f"git diff of {path!r} failed: {message}")
