"""The progress comment while the review runs: a pytest plugin on the controller that posts
"reviewing N of M" and edits it as items finish; the final summary replaces it."""

from __future__ import annotations

from typing import Any

import pytest

from .progress import ProgressComment


class ProgressPlugin:
    """Registered on the controller (or the single process) with ``--secreview-progress``."""

    def __init__(self, comment: ProgressComment) -> None:
        self.comment = comment
        self.done = 0
        self.started = False

    def _start(self, total: int) -> None:
        if self.started or total <= 0:
            return
        self.started = True
        self.comment.total = total
        self.comment.start()

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
            self.comment.update(self.done)
