"""State shared by every process of one session (the xdist controller and its workers):
a directory made by the controller and handed to workers, holding lock files for the rate
limits and the budget ledger, plus a per-session random secret."""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock

from .atomic import write_text_atomic

WORKERINPUT_KEY = "secreview_session_dir"
#: The ``workerinput`` key of the controller's start-up hand-off (``handoff.Handoff``).
HANDOFF_KEY = "secreview_handoff"


def create_session_dir() -> Path:
    """A new private directory for this session, with its secret."""
    path = Path(tempfile.mkdtemp(prefix="secreview-session-"))
    (path / "secret").write_text(secrets.token_hex(16))
    return path


def remove_session_dir(path: Path) -> None:
    """Remove the directory at the end of the session (controller only)."""
    shutil.rmtree(path, ignore_errors=True)


def session_secret(path: Path) -> str:
    """The session's random secret (identical in every worker)."""
    return (path / "secret").read_text().strip()


class SharedJSON:
    """A small JSON document updated under a cross-process file lock."""

    def __init__(self, path: Path, default: dict[str, Any]) -> None:
        self.path = path
        self.default = default
        self.lock = FileLock(str(path) + ".lock")

    def update(self, change: Callable[[dict[str, Any]], Any]) -> Any:
        """Apply ``change`` to the document atomically; return what ``change`` returns."""
        with self.lock:
            try:
                data = json.loads(self.path.read_text())
            except (FileNotFoundError, ValueError):
                data = dict(self.default)
            result = change(data)
            write_text_atomic(self.path, json.dumps(data))
            return result

    def read(self) -> dict[str, Any]:
        """The current document."""
        with self.lock:
            try:
                loaded = json.loads(self.path.read_text())
            except (FileNotFoundError, ValueError):
                return dict(self.default)
        return loaded if isinstance(loaded, dict) else dict(self.default)


def wall_clock() -> float:
    """Seconds since the epoch: comparable across processes, unlike monotonic clocks."""
    return time.time()
