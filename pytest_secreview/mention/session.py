"""The controller's side of a mention-mode session: it folds the item's record (shipped on its
reports, also from an xdist worker), writes ``mention.json`` to the artifacts directory and
the ``secreview`` section of the terminal summary. No summary comment, SARIF or review report
is written in this mode: the pull request's review comment stays as the last review left it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _pytest.terminal import TerminalReporter

from ..reporting.artifacts import ArtifactWriter, dump_json
from ..severity import one_line

PLUGIN_NAME = "secreview-mention"
#: The user property carrying the session's mention record (JSON), written by the item
#: (:class:`~..items.mention.MentionItem`).
PROPERTY = "secreview_mention"


class MentionSession:
    """Registered on the controller (or the single process) in mention mode."""

    def __init__(self, artifacts: Path) -> None:
        self.artifacts = artifacts
        self.record: dict[str, Any] | None = None
        self.outcome = "not run"
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the latest record and the item's outcome."""
        for key, value in report.user_properties:
            if key == PROPERTY and isinstance(value, str):
                try:
                    loaded = json.loads(value)
                except ValueError:
                    continue
                self.record = loaded if isinstance(loaded, dict) else self.record
        if report.when == "call":
            self.outcome = report.outcome
        elif report.failed:
            self.outcome = "error"  # setup or teardown broke, as pytest counts it
        elif report.skipped:
            self.outcome = "skipped"

    def finish(self) -> None:
        """Write ``mention.json`` (called once by the plugin's session finish)."""
        record = self.record or {}
        try:
            path = ArtifactWriter(self.artifacts, own=True).write_text(
                "mention.json", dump_json({**record, "outcome": self.outcome}))
        except OSError as exc:
            self.lines.append(f"mention.json not written: {exc}")
        else:
            self.lines.append(f"artifacts: {path}")

    def write_summary(self, tr: TerminalReporter) -> None:
        """The ``secreview`` section: who asked, whether it was answered, usage, where."""
        tr.section("secreview", sep="=", bold=True)
        if tr.config.option.collectonly:
            tr.line("mention mode: the question is not answered (--collect-only)", yellow=True)
            return
        record = self.record or {}
        event = record.get("event") or {}
        if event:
            tr.line(f"mention mode: comment {event.get('comment_id')} by "
                    f"{one_line(str(event.get('author')))} on pull request "
                    f"#{event.get('pull_request')}")
        else:
            tr.line("mention mode: no comment event to answer")
        access = record.get("access")
        if isinstance(access, dict):
            tr.line(f"access: {one_line(str(access.get('reason')))}",
                    yellow=not access.get("allowed"))
        usage = record.get("usage")
        if isinstance(usage, dict) and usage:
            cost = usage.get("cost_usd")
            tr.line(f"usage: {usage.get('model_calls', 0)} model call(s), "
                    f"{usage.get('tool_calls', 0)} tool call(s), "
                    f"{usage.get('input_tokens', 0)} input tokens, "
                    f"{usage.get('output_tokens', 0)} output tokens, "
                    + (f"estimated cost ${cost:.4f}" if isinstance(cost, int | float)
                       else "cost unknown"))
        if record.get("answered"):
            where = f": {record.get('url')}" if record.get("url") else ""
            tr.line(one_line(f"answer {record.get('posted')}{where}"), green=True)
        else:
            tr.line(f"not answered ({self.outcome})", yellow=True)
        for line in self.lines:
            tr.line(one_line(line))
