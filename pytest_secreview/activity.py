"""Tool calls as they complete, for the progress comment (each completed tool call
updates it), in every process of the session.

Each process that reviews (the single process, or each xdist worker) appends one line per
completed repository tool call to a file of its own in the session directory's ``activity/``
folder: one ``write`` of two bytes to a file opened for appending, so no line is ever torn
and no lock is needed. The controller's progress comment (:mod:`.publish.live`) counts the
lines of all the files with an :class:`ActivityReader` (reading only what is new). In the
single process a listener is told at once, so the comment can follow the calls without
waiting for a poll.

Nothing here raises into a review: a file that cannot be written loses a progress tick, never
an item. Only counts are recorded, never a tool name or an argument (both are the model's).
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path

_LINE = b"t\n"


class ActivityLog:
    """This process's log of completed tool calls."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / f"{os.getpid()}-{secrets.token_hex(4)}.log"
        self.listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def tool_call(self) -> None:
        """Record one completed tool call and tell the listeners."""
        try:
            with self._lock:
                self.directory.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    os.write(fd, _LINE)
                finally:
                    os.close(fd)
        except OSError:
            return  # progress is best effort
        for listener in list(self.listeners):
            listener()


class ActivityReader:
    """Counts the tool calls every process recorded under ``directory`` so far."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._offsets: dict[str, int] = {}
        self._count = 0
        self._lock = threading.Lock()

    def tool_calls(self) -> int:
        """The total so far (reads only the bytes added since the last call)."""
        with self._lock:
            try:
                files = sorted(self.directory.glob("*.log"))
            except OSError:
                return self._count
            for path in files:
                offset = self._offsets.get(path.name, 0)
                try:
                    with path.open("rb") as handle:
                        handle.seek(offset)
                        data = handle.read()
                except OSError:
                    continue
                lines = data.count(b"\n")
                self._count += lines
                # Only whole lines count; a partial one is read again next time.
                self._offsets[path.name] = offset + (data.rfind(b"\n") + 1 if lines else 0)
            return self._count


_current: ActivityLog | None = None


def install(directory: Path) -> ActivityLog:
    """Record this process's tool calls under ``directory`` (until :func:`uninstall`)."""
    global _current
    _current = ActivityLog(directory)
    return _current


def uninstall() -> None:
    """Stop recording (the session ended)."""
    global _current
    _current = None


def current() -> ActivityLog | None:
    """The installed log, if any."""
    return _current


def tool_call_finished() -> None:
    """Called by the agent loop after each repository tool call; a no-op unless installed."""
    log = _current
    if log is not None:
        log.tool_call()
