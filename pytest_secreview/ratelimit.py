"""Rate limits across every xdist worker: at most N model requests in flight, at most R per
minute, and a 429 (or Retry-After) from the provider pauses every process, not just the
one that received it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from .shared import SharedJSON, wall_clock


class Throttle:
    """Cross-process request throttle living in the session's shared directory."""

    def __init__(
        self,
        directory: Path,
        *,
        max_concurrency: int | None = None,
        rpm: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = wall_clock,
    ) -> None:
        self.directory = directory
        self.max_concurrency = max_concurrency
        self.rpm = rpm
        self.sleep = sleep
        self.clock = clock
        self._window = SharedJSON(directory / "rpm.json", {"calls": []})
        self._pause = SharedJSON(directory / "pause.json", {"until": 0.0})

    @contextmanager
    def request(self) -> Iterator[None]:
        """Hold a concurrency slot for one HTTP request, after any shared pause and once the
        per-minute window has room."""
        self._wait_for_pause()
        self._wait_for_window()
        with self._slot():
            yield

    def pause(self, seconds: float) -> None:
        """Tell every process to hold off for ``seconds`` (called on 429 / Retry-After)."""
        until = self.clock() + seconds

        def extend(data: dict[str, Any]) -> None:
            data["until"] = max(float(data.get("until", 0.0)), until)

        self._pause.update(extend)

    def _wait_for_pause(self) -> None:
        while True:
            remaining = float(self._pause.read().get("until", 0.0)) - self.clock()
            if remaining <= 0:
                return
            self.sleep(min(remaining, 5.0))

    def _wait_for_window(self) -> None:
        if not self.rpm:
            return
        while True:
            wait = self._window.update(partial(_admit, now=self.clock(), rpm=self.rpm))
            if wait <= 0:
                return
            self.sleep(min(wait, 5.0))

    @contextmanager
    def _slot(self) -> Iterator[None]:
        if not self.max_concurrency:
            yield
            return
        while True:
            for index in range(self.max_concurrency):
                lock = FileLock(str(self.directory / f"slot-{index}.lock"))
                try:
                    lock.acquire(timeout=0)
                except Timeout:
                    continue
                try:
                    yield
                finally:
                    lock.release()
                return
            self.sleep(0.02)


def _admit(data: dict[str, Any], *, now: float, rpm: int) -> float:
    """Record a call at ``now`` if the last minute has room; else the seconds to wait."""
    calls = [t for t in data.get("calls", []) if now - t < 60.0]
    data["calls"] = calls
    if len(calls) < rpm:
        calls.append(now)
        return 0.0
    return float(60.0 - (now - min(calls)))
