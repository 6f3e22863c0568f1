"""The reviewed revision as git objects: tracked paths, symlinks and blob contents.

The tools read the commit under review from the object database, never from the working tree.
That makes untracked and ignored files invisible by construction, reads exactly the pinned
``head_sha`` even in a dirty or differently checked-out tree, never runs smudge filters or
textconv, and lets no file-system symlink be followed: a symlink is a blob whose content is
its target, resolved lexically by :func:`~pytest_secreview.tools.sandbox.resolve_in_tree`.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..errors import GitError
from ..gitcmd import popen_git, run_git, validate_ref
from .errors import ToolError
from .sandbox import resolve_in_tree

#: Time limit of one git command run by a tool, in seconds.
GIT_TIMEOUT = 30.0
#: Bytes of whole blobs one :class:`GitTree` keeps in memory (least recently read dropped
#: first); a blob over a quarter of it is never kept.
BLOB_CACHE_BYTES = 32 << 20


@dataclass(frozen=True)
class TreeEntry:
    """One tracked path. ``kind`` is ``file``, ``symlink`` or ``submodule``; ``size`` is in
    bytes (-1 for submodules)."""

    path: str
    kind: str
    mode: str
    oid: str
    size: int


def resolve_commit(root: Path, ref: str) -> str:
    """The full SHA of the commit ``ref`` names (tags are peeled).

    ``ref`` is validated with :func:`~pytest_secreview.gitcmd.validate_ref` and passed after
    ``--end-of-options``; trees and blobs are refused, so a blob id taken from a diff's
    ``index`` line cannot be used to read a file past the gate.
    """
    validate_ref(ref)
    proc = run_git(
        root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}",
        timeout=GIT_TIMEOUT, check=False,
    )
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or len(sha) not in (40, 64):
        raise ToolError(f"{ref!r} does not name a commit in this repository")
    return sha


def run_git_capped(
    root: Path, *args: str, max_bytes: int, timeout: float = GIT_TIMEOUT
) -> tuple[bytes, bool]:
    """Run git and keep at most ``max_bytes`` of its output; returns ``(output, truncated)``.

    A diff or log can be gigabytes; reading stops at the cap and git is killed, so neither
    memory nor time is spent on output nobody will see. Raises :class:`GitError` when git
    fails or runs past ``timeout``.
    """
    proc = popen_git(root, *args)
    timed_out = threading.Event()

    def _kill() -> None:
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, _kill)
    timer.start()
    try:
        assert proc.stdout is not None and proc.stderr is not None
        data = proc.stdout.read(max_bytes + 1)
        truncated = len(data) > max_bytes
        if truncated:
            proc.kill()
            proc.wait()
            return data[:max_bytes], True
        stderr = proc.stderr.read(64 * 1024)
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if timed_out.is_set():
        raise GitError(f"git {args[0]} did not finish within {timeout:.0f}s")
    if code != 0:
        msg = stderr.decode("utf-8", "replace").strip() or f"exit status {code}"
        raise GitError(f"git {args[0]} failed: {msg}")
    return data, False


class GitTree:
    """The tracked files of one commit, loaded lazily from ``git ls-tree``."""

    def __init__(self, root: Path, commit: str) -> None:
        self.root = root
        self.commit = commit
        self._links: dict[str, str] = {}
        # Blobs read whole, by id (content-addressed: never stale), most recent last. Every
        # item of a file needs its head text (the verifier, the line check, the model's
        # read_file calls): one process reads it from git once, within BLOB_CACHE_BYTES.
        self._blobs: OrderedDict[str, bytes] = OrderedDict()
        self._blob_bytes = 0
        self._blob_lock = threading.Lock()

    @cached_property
    def sha(self) -> str:
        """The full commit SHA."""
        return resolve_commit(self.root, self.commit)

    @cached_property
    def entries(self) -> dict[str, TreeEntry]:
        """Every tracked path of the commit."""
        out = run_git(
            self.root, "ls-tree", "-r", "-z", "-l", "--full-tree", "--end-of-options",
            self.sha, timeout=GIT_TIMEOUT,
        ).stdout
        entries: dict[str, TreeEntry] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, oid, size = meta.decode("ascii").split()
            path = os.fsdecode(raw_path)  # round-trips names that are not valid UTF-8
            if kind == "commit":
                entries[path] = TreeEntry(path, "submodule", mode, oid, -1)
            elif kind == "blob":
                entry_kind = "symlink" if mode == "120000" else "file"
                entries[path] = TreeEntry(path, entry_kind, mode, oid, int(size))
        return entries

    @cached_property
    def dirs(self) -> frozenset[str]:
        """Every directory that holds a tracked path (the root is ``""``)."""
        found = {""}
        for path in self.entries:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                found.add("/".join(parts[:i]))
        return frozenset(found)

    def link_target(self, path: str) -> str | None:
        """The target of the tracked symlink ``path``, or None when it is not one."""
        entry = self.entries.get(path)
        if entry is None or entry.kind != "symlink":
            return None
        if path not in self._links:
            # A symlink target is at most PATH_MAX; a bigger "link" blob is not one we follow.
            raw = self.read_blob(entry, max_bytes=4096)
            self._links[path] = raw.decode("utf-8", "replace")
        return self._links[path]

    def resolve(self, path: str) -> str:
        """``path`` with every tracked symlink on it followed (see ``resolve_in_tree``)."""
        return resolve_in_tree(path, self.link_target)

    def read_blob(self, entry: TreeEntry, *, max_bytes: int) -> bytes:
        """The raw content of a blob (no filters, no textconv), at most ``max_bytes``.
        A blob read whole is kept for the next call (see :data:`BLOB_CACHE_BYTES`)."""
        with self._blob_lock:
            cached = self._blobs.get(entry.oid)
            if cached is not None:
                self._blobs.move_to_end(entry.oid)
                return cached[:max_bytes]
        data, _ = run_git_capped(
            self.root, "cat-file", "blob", entry.oid, max_bytes=max_bytes
        )
        if len(data) == entry.size and entry.size <= BLOB_CACHE_BYTES // 4:
            self._keep(entry.oid, data)
        return data

    def _keep(self, oid: str, data: bytes) -> None:
        with self._blob_lock:
            if oid in self._blobs:
                return
            self._blobs[oid] = data
            self._blob_bytes += len(data)
            while self._blob_bytes > BLOB_CACHE_BYTES:
                _, dropped = self._blobs.popitem(last=False)
                self._blob_bytes -= len(dropped)

    def iter_blobs(
        self, entries: Iterable[TreeEntry], *, deadline: float, batch_bytes: int = 8 << 20
    ) -> Iterator[tuple[TreeEntry, bytes]]:
        """Contents of many blobs, read in batches through ``git cat-file --batch``.

        Stops quietly when ``deadline`` (a :func:`time.monotonic` value) passes; the caller
        sees how many entries it got.
        """
        batch: list[TreeEntry] = []
        size = 0
        for entry in entries:
            batch.append(entry)
            size += entry.size
            if size >= batch_bytes:
                yield from self._batch(batch, deadline)
                batch, size = [], 0
            if time.monotonic() >= deadline:
                return
        if batch:
            yield from self._batch(batch, deadline)

    def _batch(self, batch: list[TreeEntry], deadline: float) -> Iterator[tuple[TreeEntry, bytes]]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        request = "".join(f"{entry.oid}\n" for entry in batch).encode("ascii")
        try:
            out = run_git(
                self.root, "cat-file", "--batch", input_bytes=request, timeout=remaining
            ).stdout
        except GitError:
            if time.monotonic() >= deadline:
                return
            raise
        pos = 0
        for entry in batch:
            header_end = out.index(b"\n", pos)
            header = out[pos:header_end].split()
            if len(header) != 3:  # "<oid> missing": skip rather than misparse the rest
                pos = header_end + 1
                continue
            length = int(header[2])
            start = header_end + 1
            yield entry, out[start : start + length]
            pos = start + length + 1

