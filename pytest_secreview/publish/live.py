"""The progress comment while the review runs: a pytest plugin on the controller that posts
"reviewing N of M" and edits it as items finish and as the model's tool calls complete
(throttled by the comment's ``min_interval``); the final summary replaces it.

Tool calls reach it through :mod:`pytest_secreview.activity`: in the single process a listener
ticks at each call; with xdist the workers append to files in the shared session directory,
which a daemon thread here reads every ``poll_seconds``. The thread stops at the start of the
session's finish, before the summary is published, so no late tick can overwrite the summary.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from .. import activity
from ..activity import ActivityReader
from .progress import ProgressComment


class ProgressPlugin:
    """Registered on the controller (or the single process) with ``--secreview-progress``."""

    def __init__(self, comment: ProgressComment, activity_dir: Path | None = None,
                 poll_seconds: float = 1.0) -> None:
        self.comment = comment
        self.done = 0
        self.started = False
        self.reader = ActivityReader(activity_dir) if activity_dir is not None else None
        self.poll_seconds = poll_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _start(self, total: int) -> None:
        if self.started or total <= 0:
            return
        self.started = True
        self.comment.total = total
        self.comment.start()
        if self.reader is None:
            return
        log = activity.current()
        if log is not None:
            log.listeners.append(self.tick)  # this process's own tool calls, as they happen
        self._thread = threading.Thread(target=self._poll, name="secreview-progress",
                                        daemon=True)
        self._thread.start()

    def tool_calls(self) -> int | None:
        """Tool calls completed so far in every process (None without an activity folder)."""
        return self.reader.tool_calls() if self.reader is not None else None

    def tick(self) -> None:
        """A tool call completed, or the poller woke: show it if the throttle allows; never
        waits for a write in flight (it runs on review threads)."""
        if self.started and not self._stop.is_set():
            self.comment.update(self.done, tool_calls=self.tool_calls(), wait=False)

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            self.tick()

    def stop(self) -> None:
        """Stop the poller and the listener (idempotent)."""
        self._stop.set()
        log = activity.current()
        if log is not None and self.tick in log.listeners:
            log.listeners.remove(self.tick)
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Without xdist: the items are known once collected."""
        self._start(len(session.items))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """With xdist: every worker collects the same items; the first one tells the total."""
        self._start(len(ids))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """One item is done when its teardown reports."""
        if self.started and report.when == "teardown":
            self.done += 1
            self.comment.update(self.done, tool_calls=self.tool_calls())

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Before the summary replaces the comment: no more progress writes."""
        self.stop()
