"""The two ends of some files of one commit, read from git objects in bounded memory.

A changed file git shows no text of is judged by its content (:mod:`.filetypes`): its first
bytes say what format it is, its last ones whether an archive is appended. Both come from one
``git cat-file --batch`` over the blobs, streamed, so a 100 MiB video costs its reading, not
its size in memory. The file mode comes with them (an executable image is not inert). Objects
are read, never the working tree: no filter, no textconv, no attribute of the pull request
applies.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import GitError
from ..gitcmd import popen_git, run_git, validate_ref
from .filetypes import HEAD_BYTES, TAIL_BYTES
from .git import _drain

__all__ = ["BlobEnds", "blob_ends"]

#: Paths named on one ``git ls-tree`` command line (well under any argument-length limit).
_PATHS_PER_LISTING = 500
_READ_SIZE = 64 * 1024
#: Seconds allowed for reading every blob asked for.
TIMEOUT = 120.0


@dataclass(frozen=True)
class BlobEnds:
    """A file's git mode, size and the two ends of its content (the whole of a small one)."""

    mode: str
    size: int
    head: bytes
    tail: bytes


def blob_ends(repo: Path, commit: str, paths: Sequence[str], *,
              head_bytes: int = HEAD_BYTES, tail_bytes: int = TAIL_BYTES,
              timeout: float = TIMEOUT) -> dict[str, BlobEnds]:
    """The first ``head_bytes`` and last ``tail_bytes`` of each of ``paths`` (regular files
    of ``commit``; a path that is not one is left out). Raises :class:`GitError`."""
    validate_ref(commit)
    entries: dict[str, tuple[str, str, int]] = {}  # path -> (mode, blob id, size)
    wanted = sorted(set(paths))
    for start in range(0, len(wanted), _PATHS_PER_LISTING):
        chunk = wanted[start:start + _PATHS_PER_LISTING]
        listed = run_git(
            repo, "ls-tree", "-z", "-l", "--full-tree", "--end-of-options", commit, "--",
            *(f":(literal){path}" for path in chunk)).stdout
        asked = set(chunk)
        for record in listed.split(b"\0"):
            meta, _, raw = record.partition(b"\t")
            fields = meta.decode("ascii", "replace").split()
            path = os.fsdecode(raw)
            if len(fields) == 4 and fields[1] == "blob" and path in asked:
                entries[path] = (fields[0], fields[2], int(fields[3]))
    if not entries:
        return {}
    ends = _read_ends(repo, list(dict.fromkeys(oid for _, oid, _ in entries.values())),
                      head_bytes, tail_bytes, timeout)
    return {path: BlobEnds(mode, size, *ends[oid])
            for path, (mode, oid, size) in sorted(entries.items()) if oid in ends}


def _feed(stream: IO[bytes], request: bytes) -> None:
    try:
        stream.write(request)
        stream.close()
    except (BrokenPipeError, OSError):
        pass  # git stopped early: its exit status and stderr say why


def _read_ends(repo: Path, oids: list[str], head_bytes: int, tail_bytes: int,
               timeout: float) -> dict[str, tuple[bytes, bytes]]:
    proc = popen_git(repo, "cat-file", "--batch", stdin=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdout = proc.stdout
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    stderr = bytearray()
    threads = [threading.Thread(target=_drain, args=(proc.stderr, stderr), daemon=True),
               threading.Thread(target=_feed, args=(proc.stdin, "".join(
                   f"{oid}\n" for oid in oids).encode("ascii")), daemon=True)]
    timer.start()
    for thread in threads:
        thread.start()
    found: dict[str, tuple[bytes, bytes]] = {}
    finished = False
    try:
        for oid in oids:
            header = stdout.readline().split()
            if len(header) != 3:  # "<oid> missing", or git stopped
                if not header:
                    break
                continue
            size = int(header[2])
            head = stdout.read(min(size, head_bytes))
            tail = bytearray(head)
            left = size - len(head)
            while left > 0:
                chunk = stdout.read(min(left, _READ_SIZE))
                if not chunk:
                    break
                left -= len(chunk)
                tail += chunk
                if len(tail) > 2 * tail_bytes:
                    del tail[:-tail_bytes]
            stdout.read(1)  # the newline after the content
            if left == 0:
                found[oid] = (bytes(head), bytes(tail[-tail_bytes:]))
        finished = True
    finally:
        timer.cancel()
        if not finished:
            proc.kill()
        stdout.close()
        returncode = proc.wait()
        for thread in threads:
            thread.join()
        proc.stderr.close()
    if timed_out.is_set():
        raise GitError(f"git cat-file did not finish within {timeout:.0f}s")
    if returncode != 0:
        message = stderr.decode("utf-8", "replace").strip() or f"exit status {returncode}"
        raise GitError(f"git cat-file failed: {message}")
    return found
