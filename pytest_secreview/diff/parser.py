"""Parse ``git diff`` patch output into :class:`FileDiff` values, streaming and bounded.

The parser is a push parser fed with byte chunks of any size (whole lines, 64 KiB reads, or
the whole text). It keeps at most one file's hunks in memory, drops the hunks of a file whose
patch exceeds ``max_file_bytes`` (the file is still reported, with ``too_large=True``) and
never buffers a physical line beyond ``max(max_file_bytes, 64 KiB)`` bytes.

Conventions of the values it produces:

* ``FileDiff.path`` is the head path (the base path for deletions); ``old_path`` is the base
  path for renames and copies and ``None`` otherwise.
* ``Hunk.header`` is the whole ``@@ ... @@ section`` line without its line ending;
  ``Hunk.text`` is the hunk as git printed it (header, context, ``\\ No newline`` markers and
  any CR characters included).
* Paths are decoded as UTF-8 (``errors="replace"``) after undoing git's C-style quoting.
* ``binary`` is known only when git prints content changes: a pure rename or copy of a
  binary file (similarity 100%, no hunks) reports ``binary=False``.

Input that git would never print (a malformed ``@@`` header, a hunk body that does not match
its header's line counts, a truncated stream, an unterminated quoted path) raises
:class:`DiffParseError`, a :class:`ValueError`: losing part of a diff silently would let a
change go unreviewed. Anything else that is not part of a ``diff --git`` section (a commit
message before the first file, for instance) is ignored.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator

from ..errors import DiffParseError
from .model import ChangeKind, FileDiff, Hunk
from .paths import decode_path, header_path, plain_path, split_git_line, to_bytes, unquote_git_path

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DiffParseError",
    "iter_file_diffs",
    "parse_diff",
    "parse_diff_text",
    "unquote_git_path",
]

DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024

# Never buffer less than this per line, so that header lines (long quoted paths) always parse
# even with a tiny max_file_bytes.
_MIN_LINE_LIMIT = 64 * 1024
# What an over-long line is cut to: enough to classify it (its first byte) and to read a header.
_OVERLONG_PREFIX = 16 * 1024

_BATCH_BYTES = 64 * 1024

_HUNK_RE = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: How ``--submodule=short`` shows the commit a submodule points at.
SUBPROJECT = "Subproject commit "
_SUBMODULE_MODE = "160000"
# Extended header lines that carry one value: (prefix, _FileState attribute, decoder).
_VALUE_HEADERS: tuple[tuple[bytes, str, Callable[[bytes], str]], ...] = (
    (b"old mode ", "old_mode", decode_path),
    (b"new mode ", "new_mode", decode_path),
    (b"rename from ", "rename_from", plain_path),
    (b"rename to ", "rename_to", plain_path),
    (b"copy from ", "copy_from", plain_path),
    (b"copy to ", "copy_to", plain_path),
)


class _FileState:
    """What has been read so far of one ``diff --git`` section."""

    __slots__ = (
        "binary", "copy_from", "copy_to", "deleted", "git_line", "hunks", "index_mode",
        "minus", "nbytes", "new_file", "new_mode", "old_mode", "plus", "rename_from",
        "rename_to", "similarity", "too_large",
    )

    def __init__(self, git_line: bytes) -> None:
        self.git_line = git_line
        self.hunks: list[Hunk] = []
        self.nbytes = 0
        self.too_large = False
        self.binary = False
        self.new_file = False
        self.deleted = False
        # "" means the ---/+++ line was absent; None means /dev/null.
        self.minus: str | None = ""
        self.plus: str | None = ""
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.copy_from: str | None = None
        self.copy_to: str | None = None
        self.old_mode: str | None = None
        self.new_mode: str | None = None
        self.index_mode: str | None = None
        self.similarity: int | None = None


class _Parser:
    """The push parser behind :func:`iter_file_diffs`."""

    def __init__(self, max_file_bytes: int) -> None:
        if max_file_bytes <= 0:
            raise ValueError("max_file_bytes must be positive")
        self.max_file_bytes = max_file_bytes
        self.line_limit = max(max_file_bytes, _MIN_LINE_LIMIT)
        self.done: list[FileDiff] = []
        self.file: _FileState | None = None
        self.in_binary_patch = False
        # True while the current file is too large: lines are counted, not stored.
        self.dropping = False
        # Open hunk: header values, remaining counts, position counters, collected lines.
        self.hunk_open = False
        self.h_old_start = self.h_old_count = self.h_new_start = self.h_new_count = 0
        self.rem_old = self.rem_new = 0
        self.old_no = self.new_no = 0
        self.h_header = ""
        self.h_raw: list[bytes] = []
        # Line assembly across chunks.
        self.pending: list[bytes] = []
        self.pending_len = 0
        self.skip_rest_of_line = False

    # -- line assembly -------------------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self.skip_rest_of_line:
            nl = chunk.find(b"\n")
            if nl < 0:
                return
            self.skip_rest_of_line = False
            chunk = chunk[nl + 1:]
        if self.pending:
            nl = chunk.find(b"\n")
            if nl < 0:
                self._hold(chunk)
                return
            self.pending.append(chunk[:nl])
            line = b"".join(self.pending)
            self.pending = []
            self.pending_len = 0
            self._checked_line(line)
            chunk = chunk[nl + 1:]
        lines = chunk.split(b"\n")
        tail = lines.pop()
        limit = self.line_limit
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if len(line) > limit:
                self._overlong(line[:_OVERLONG_PREFIX], len(line))
                i += 1
            elif self.rem_old or self.rem_new:
                i = self._body_run(lines, i)
            else:
                self._line(line)
                i += 1
        if tail:
            self._hold(tail)

    def _hold(self, part: bytes) -> None:
        self.pending.append(part)
        self.pending_len += len(part)
        if self.pending_len > self.line_limit:
            first = self.pending[0]
            head = (first if len(first) >= _OVERLONG_PREFIX else b"".join(self.pending))[
                :_OVERLONG_PREFIX
            ]
            size = self.pending_len
            self.pending = []
            self.pending_len = 0
            self.skip_rest_of_line = True
            self._overlong(head, size)

    def _checked_line(self, line: bytes) -> None:
        if len(line) > self.line_limit:
            self._overlong(line[:_OVERLONG_PREFIX], len(line))
        else:
            self._line(line)

    def _overlong(self, head: bytes, size: int) -> None:
        # A line longer than the limit cannot fit in one file's budget: account for its full
        # size so the file is marked too large, and classify it by its first bytes.
        self._line(head)
        if self.file is not None:
            self._account(self.file, size - len(head))

    def close(self) -> None:
        if self.pending:
            line = b"".join(self.pending)
            self.pending = []
            self.pending_len = 0
            self._checked_line(line)
        self.skip_rest_of_line = False
        self._finish_file()

    # -- one line ------------------------------------------------------------------------

    def _line(self, line: bytes) -> None:
        if self.rem_old or self.rem_new:
            self._body_run([line], 0)
            return
        if line.startswith(b"diff --git "):
            self._finish_file()
            self.dropping = False
            self.file = _FileState(line[11:].rstrip(b"\r"))
            self._account(self.file, len(line) + 1)
            return
        f = self.file
        if f is None:
            return
        self._account(f, len(line) + 1)
        if line.startswith(b"\\") and self.hunk_open:
            if not self.dropping:
                self.h_raw.append(line)
            return
        if line.startswith(b"@@"):
            self._start_hunk(line, f)
            return
        if self.in_binary_patch or self.hunk_open:
            return
        self._header_line(line.rstrip(b"\r"), f)

    def _body_run(self, lines: list[bytes], i: int) -> int:
        """Consume hunk body lines from ``lines[i]`` on; return the index of the next line.

        This is the hot loop (nearly every line of a diff is a body line), so the hunk state
        lives in local variables and is written back once.
        """
        f = self.file
        assert f is not None
        rem_old, rem_new = self.rem_old, self.rem_new
        old_no, new_no = self.old_no, self.new_no
        nbytes, max_bytes, limit = f.nbytes, self.max_file_bytes, self.line_limit
        dropping = self.dropping
        raw = self.h_raw.append
        n = len(lines)
        while i < n and (rem_old or rem_new):
            line = lines[i]
            size = len(line)
            if size > limit:
                break
            nbytes += size + 1
            if nbytes > max_bytes and not dropping:
                f.nbytes = nbytes
                self._mark_too_large(f)
                dropping = True
            c = line[0] if size else 32
            # Lines are only counted and kept here; Hunk derives Line values from its text
            # on first use (most hunks are only ever matched, never walked line by line).
            if c == 43 and rem_new:  # "+"
                if not dropping:
                    raw(line)
                rem_new -= 1
                new_no += 1
            elif c == 45 and rem_old:  # "-"
                if not dropping:
                    raw(line)
                rem_old -= 1
                old_no += 1
            elif c == 32 and rem_old and rem_new:
                # An empty line is a context line whose lone space was stripped (by an
                # editor, or by git's diff.suppressBlankEmpty).
                if not dropping:
                    raw(line)
                rem_old -= 1
                rem_new -= 1
                old_no += 1
                new_no += 1
            elif c == 92:  # "\ No newline at end of file"
                if not dropping:
                    raw(line)
            else:
                raise DiffParseError(
                    f"hunk {self.h_header!r} ended early: expected {rem_old} more old and "
                    f"{rem_new} more new lines, got {decode_path(line[:80])!r}"
                )
            i += 1
        f.nbytes = nbytes
        self.rem_old, self.rem_new = rem_old, rem_new
        self.old_no, self.new_no = old_no, new_no
        return i

    def _account(self, f: _FileState, size: int) -> None:
        f.nbytes += size
        if not f.too_large and f.nbytes > self.max_file_bytes:
            self._mark_too_large(f)

    def _mark_too_large(self, f: _FileState) -> None:
        f.too_large = True
        self.dropping = True
        f.hunks = []
        self.h_raw = []

    def _start_hunk(self, line: bytes, f: _FileState) -> None:
        self._close_hunk()
        m = _HUNK_RE.match(line)
        if m is None:
            raise DiffParseError(f"malformed hunk header {decode_path(line[:200])!r}")
        old_start, old_count, new_start, new_count = m.groups()
        self.h_old_start = int(old_start)
        self.h_old_count = 1 if old_count is None else int(old_count)
        self.h_new_start = int(new_start)
        self.h_new_count = 1 if new_count is None else int(new_count)
        self.rem_old, self.rem_new = self.h_old_count, self.h_new_count
        self.old_no, self.new_no = self.h_old_start, self.h_new_start
        self.h_header = decode_path(line.rstrip(b"\r"))
        self.h_raw = [] if f.too_large else [line]
        self.hunk_open = True

    def _close_hunk(self) -> None:
        if not self.hunk_open:
            return
        self.hunk_open = False
        f = self.file
        if f is None or f.too_large:
            return
        raw = self.h_raw
        raw.append(b"")
        f.hunks.append(Hunk(
            old_start=self.h_old_start,
            old_count=self.h_old_count,
            new_start=self.h_new_start,
            new_count=self.h_new_count,
            header=self.h_header,
            text=b"\n".join(raw).decode("utf-8", "replace"),
        ))
        self.h_raw = []

    def _header_line(self, line: bytes, f: _FileState) -> None:
        if line.startswith(b"--- "):
            f.minus = header_path(line[4:], "a/")
        elif line.startswith(b"+++ "):
            f.plus = header_path(line[4:], "b/")
        elif line.startswith(b"index "):
            parts = line.split(b" ")
            if len(parts) >= 3:
                f.index_mode = decode_path(parts[2])
        elif line.startswith(b"new file mode "):
            f.new_file = True
            f.new_mode = decode_path(line[14:])
        elif line.startswith(b"deleted file mode "):
            f.deleted = True
            f.old_mode = decode_path(line[18:])
        elif line.startswith(b"similarity index "):
            digits = line[17:].rstrip(b"%")
            f.similarity = int(digits) if digits.isdigit() else None
        elif line.startswith(b"Binary files ") and line.endswith(b" differ"):
            f.binary = True
        elif line == b"GIT binary patch":
            f.binary = True
            self.in_binary_patch = True
        else:
            for prefix, attribute, decode in _VALUE_HEADERS:
                if line.startswith(prefix):
                    setattr(f, attribute, decode(line[len(prefix):]))
                    break

    # -- one file ------------------------------------------------------------------------

    def _finish_file(self) -> None:
        if self.rem_old or self.rem_new:
            raise DiffParseError(
                f"diff ended inside hunk {self.h_header!r}: {self.rem_old} old and "
                f"{self.rem_new} new lines missing"
            )
        self._close_hunk()
        self.in_binary_patch = False
        f = self.file
        if f is None:
            return
        self.file = None
        self.done.append(_build(f))


def _build(f: _FileState) -> FileDiff:
    git_paths: tuple[str, str] | None = None

    def from_git_line(side: int) -> str:
        nonlocal git_paths
        if git_paths is None:
            git_paths = split_git_line(f.git_line)
        return git_paths[side]

    old = f.rename_from or f.copy_from
    if old is None:
        old = f.minus if f.minus != "" else from_git_line(0)
    new = f.rename_to or f.copy_to
    if new is None:
        new = f.plus if f.plus != "" else from_git_line(1)

    if f.rename_from is not None or f.rename_to is not None:
        kind = ChangeKind.RENAMED
    elif f.copy_from is not None or f.copy_to is not None:
        kind = ChangeKind.COPIED
    elif f.new_file or old is None:
        kind = ChangeKind.ADDED
    elif f.deleted or new is None:
        kind = ChangeKind.DELETED
    elif f.old_mode and f.new_mode and not f.hunks and not f.binary and not f.too_large:
        kind = ChangeKind.MODE_CHANGED
    else:
        kind = ChangeKind.MODIFIED

    path = (old if kind is ChangeKind.DELETED else new) or old or new
    if not path:
        raise DiffParseError(f"no path for 'diff --git {decode_path(f.git_line[:200])}'")
    hunks = tuple(f.hunks)
    return FileDiff(
        path=path,
        old_path=old if kind in (ChangeKind.RENAMED, ChangeKind.COPIED) else None,
        kind=kind,
        hunks=hunks,
        binary=f.binary,
        old_mode=f.old_mode,
        new_mode=f.new_mode,
        similarity=f.similarity,
        too_large=f.too_large,
        submodule=_is_submodule(f, hunks),
    )


def _is_submodule(f: _FileState, hunks: tuple[Hunk, ...]) -> bool:
    if _SUBMODULE_MODE in (f.old_mode, f.new_mode, f.index_mode):
        return True
    # Without mode information (a hand-made patch), --submodule=short output still has one
    # shape: a single hunk of "Subproject commit <sha>" lines.
    if len(hunks) != 1 or hunks[0].old_count + hunks[0].new_count > 2:
        return False  # cheap test first: this runs for every file of the diff
    texts = hunks[0].added_texts() + hunks[0].removed_texts()
    return 0 < len(texts) <= 2 and all(text.startswith(SUBPROJECT) for text in texts)


def iter_file_diffs(
    chunks: Iterable[bytes], *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Iterator[FileDiff]:
    """Yield each file of the patch in ``chunks`` as soon as its section is complete.

    ``chunks`` are bytes of any size: lines, fixed-size reads of a pipe, or the whole text.
    Raises :class:`DiffParseError` on malformed input.
    """
    parser = _Parser(max_file_bytes)
    done = parser.done
    # Feeding line by line costs a call per line; joining small chunks first is far cheaper
    # and keeps memory bounded by the batch size.
    batch: list[bytes] = []
    batched = 0
    for chunk in chunks:
        if len(chunk) < _BATCH_BYTES:
            batch.append(chunk)
            batched += len(chunk)
            if batched < _BATCH_BYTES:
                continue
            chunk = b"".join(batch)
        elif batch:
            parser.feed(b"".join(batch))
        batch.clear()
        batched = 0
        parser.feed(chunk)
        if done:
            yield from done
            done.clear()
    parser.feed(b"".join(batch))
    parser.close()
    yield from done
    done.clear()


def parse_diff(
    chunks: Iterable[bytes], *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> list[FileDiff]:
    """Parse ``git diff`` output streamed as byte chunks (typically lines) into files.

    A file whose patch exceeds ``max_file_bytes`` is returned with ``too_large=True`` and no
    hunks. Raises :class:`DiffParseError` (a ``ValueError``) on malformed input.
    """
    # Parsing allocates hundreds of thousands of small, acyclic objects; pausing the cyclic
    # garbage collector meanwhile saves about a third of the time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(iter_file_diffs(chunks, max_file_bytes=max_file_bytes))
    finally:
        if enabled:
            gc.enable()


def parse_diff_text(
    text: str | bytes, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> list[FileDiff]:
    """Parse a whole patch held in memory; see :func:`parse_diff`."""
    data = to_bytes(text)
    return parse_diff((data,), max_file_bytes=max_file_bytes)
