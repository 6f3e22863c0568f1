"""A "reviewing N of M" comment while the session runs: the progress tracker.

The progress comment *is* the summary comment: it carries :data:`.comments.SUMMARY_MARKER`,
so :func:`.comments.publish` finds it at the end and replaces its body with the summary. On its
first write it also keeps the hidden state of the previous run's summary, so findings fixed
since then are still shown as resolved.

Usage on the controller::

    progress = ProgressComment(client, pr, total=len(items))
    progress.start()
    ...                      # as each item finishes, and as tool calls complete
    progress.update(done, tool_calls=n)
    ...
    result = publish(report, pr, mode="all", client=client)

Updates are throttled to one per ``min_interval`` seconds, and safe from several threads
(the controller's activity poller, the single process's tool calls, item reports): one writes
at a time, and a caller that passes ``wait=False`` skips its tick rather than queue behind a
write in flight. Nothing here raises: failures are collected in
:attr:`ProgressComment.warnings`, and a read-only token (a fork's PR) or repeated failures
switch the comment off for the rest of the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..github.client import GitHubClient, GitHubError
from ..github.context import PullRequest
from ..reporting.markdown_text import display_safe
from .comment_state import (
    SUMMARY_MARKER,
    ExistingComment,
    decode_state,
    encode_state,
    find_summary_comment,
    upsert_summary,
)

_MAX_FAILURES = 3


class ProgressComment:
    """Create, then edit, the PR's summary comment with the review's progress."""

    def __init__(
        self,
        client: GitHubClient,
        pr: PullRequest,
        total: int,
        min_interval: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._pr = pr
        self.total = max(0, total)
        self.min_interval = min_interval
        self._clock = clock
        self._last: float | None = None
        self._existing: ExistingComment | None = None
        self._state = ""
        self._started = False
        self._failures = 0
        self.enabled = bool(pr.repository and pr.number and (client.has_token or client.dry_run))
        self.comment_id: int | None = None
        self.warnings: list[str] = []
        self.tool_calls = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"ProgressComment({self._pr.repository}#{self._pr.number}, "
                f"total={self.total}, enabled={self.enabled})")

    def start(self) -> bool:
        """Show "reviewing 0 of M" now; see :meth:`update`."""
        return self.update(0, force=True)

    def update(self, done: int, *, tool_calls: int | None = None, force: bool = False,
               wait: bool = True) -> bool:
        """Show ``done`` of ``total`` (and ``tool_calls`` completed so far, when given) if
        ``min_interval`` has passed since the last write (always on the first call or with
        ``force``). With ``wait=False`` a write already in flight makes this call return at
        once. Returns True when a write was made."""
        if not self.enabled:
            return False
        if not self._lock.acquire(blocking=wait):
            return False
        try:
            if tool_calls is not None:
                self.tool_calls = max(self.tool_calls, tool_calls)
            return self._update(done, force)
        finally:
            self._lock.release()

    def _update(self, done: int, force: bool) -> bool:
        if not self.enabled:
            return False
        now = self._clock()
        if not force and self._last is not None and now - self._last < self.min_interval:
            return False
        self._last = now
        try:
            if not self._started:
                self._started = True
                self._existing = find_summary_comment(self._client, self._pr, self.warnings)
                if self._existing is not None:
                    # Carry the last run's findings over: the final summary compares with them.
                    self._state = encode_state(decode_state(self._existing.body))
            _action, cid, _url = upsert_summary(
                self._client, self._pr, self._body(done), self._existing)
        except (GitHubError, OSError) as exc:  # a progress comment never breaks the session
            self._failed(exc)
            return False
        if cid is None and self._client.dry_run:
            cid = 0  # later dry-run updates are recorded as edits, not as new comments
        if cid is not None:
            self.comment_id = cid
            self._existing = ExistingComment(cid, self._body(done), None)
        return True

    def _body(self, done: int) -> str:
        done = min(max(0, done), self.total)
        tools = f", {self.tool_calls} tool call(s) so far" if self.tool_calls else ""
        text = (f"{SUMMARY_MARKER}\n⏳ **pytest-secreview** is reviewing this pull request: "
                f"{done} of {self.total} items done{tools}.\n\n"
                "_This comment will be replaced by the summary when the review ends._\n")
        if self._state:
            text += f"\n{self._state}\n"
        return display_safe(text)

    def _failed(self, exc: GitHubError | OSError) -> None:
        self._failures += 1
        if isinstance(exc, GitHubError) and exc.integration_forbidden:
            self.warnings.append(
                "progress comment disabled: the GitHub token cannot write to this pull request "
                "(403 Resource not accessible by integration, as for pull requests from forks)")
            self.enabled = False
        elif self._failures >= _MAX_FAILURES:
            self.warnings.append(f"progress comment disabled after {self._failures} failures; "
                                 f"last: {exc}")
            self.enabled = False
        else:
            self.warnings.append(f"progress comment not updated: {exc}")
