"""GitHub Actions: annotations (workflow commands) and the step summary.

The lead's wiring prints :func:`annotations` to stdout and passes the markdown summary to
:func:`write_step_summary`, only when :func:`in_github_actions` says so.

Limits come from GitHub's documentation: a step shows at most 10 error and 10 warning
annotations (the rest are silently dropped, so we emit at most that many of each and count the
rest in one notice), an annotation's title holds 255 characters, and a step summary holds 1 MiB
(more and the whole upload fails, so we truncate with a visible note).

Workflow commands are parsed from the log line by line, so every text is escaped as GitHub's
toolkit does (data: ``%`` ``\\r`` ``\\n``; properties also ``:`` and ``,``) after control
characters are stripped, each line neutralised by :func:`~pytest_secreview.severity.one_line`
and secrets redacted: a hostile finding title cannot end the command early or start a second
one.

:class:`ActionsLog` owns the job log while the review runs: ``::stop-commands::<token>`` (a
random token) before pytest prints anything, and after pytest's last line the resume
``::<token>::`` then the annotations, each on a line of its own. Whatever a pull request or a
model managed to put in between is never read as a command.
"""

# No ``from __future__ import annotations``: it would clash with the public ``annotations``.
import os
import secrets
import sys
from collections.abc import Mapping

import pytest

from ..severity import one_line
from ..tools.redaction import sanitize
from .model import FindingReport, Report

__all__ = [
    "ACTIONS_LOG_PLUGIN",
    "MAX_ANNOTATIONS_PER_KIND",
    "STEP_SUMMARY_LIMIT",
    "ActionsLog",
    "annotations",
    "escape_data",
    "escape_property",
    "in_github_actions",
    "write_step_summary",
]

#: GitHub shows at most this many error and this many warning annotations per step.
MAX_ANNOTATIONS_PER_KIND = 10
#: Bytes one step may add to its summary file (GitHub rejects the whole upload above it).
STEP_SUMMARY_LIMIT = 1024 * 1024
_TITLE_CHARS = 255
# The checks API takes 64 KB per annotation message; a readable annotation is far shorter.
_MESSAGE_CHARS = 4000
_TRUNCATED = " …[truncated]"
_NOT_REVIEWED_LISTED = 5
_SUMMARY_NOTE = (
    "\n\n> **Note:** this summary was truncated to fit GitHub's 1 MiB step summary limit; "
    "the full report is in the review's artifacts (`summary.md`, `summary.json`).\n"
)


def in_github_actions(env: Mapping[str, str]) -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS`` is ``"true"``)."""
    return env.get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    """Escape a workflow command's message (the part after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (``file=``, ``title=`` ...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _clean(text: str | None, limit: int, *, shown: bool = True) -> str:
    cleaned = sanitize(text or "")
    if shown:
        # Line by line: a message is multi-line (escaped as %0A), and no line of it may read
        # as a command once the runner unescapes it for display. A ``file`` property is not
        # shown but matched against the repository, so it keeps its exact characters.
        cleaned = "\n".join(one_line(line) for line in cleaned.split("\n"))
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - len(_TRUNCATED)] + _TRUNCATED
    return cleaned


def _command(kind: str, message: str, **properties: str | int) -> str:
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items()
    )
    head = f"{kind} {props}" if props else kind
    return f"::{head}::{escape_data(message)}"


def _finding_command(kind: str, finding: FindingReport) -> str:
    # A title is one line in GitHub's UI: newlines (escaped, so harmless) would only garble it.
    title = _clean(" ".join(f"{finding.severity.value} {finding.title}".split()), _TITLE_CHARS)
    lines = [finding.explanation or finding.title]
    if finding.recommendation:
        lines.append(f"Fix: {finding.recommendation}")
    meta = [f"rule {finding.rule}", f"source {finding.source}"]
    if finding.cwe:
        meta.append(finding.cwe)
    lines.append("(" + ", ".join(meta) + ")")
    props: dict[str, str | int] = {
        "file": _clean(finding.path, 1000, shown=False),
        "line": max(finding.line, 1),
    }
    if finding.end_line and finding.end_line > finding.line:
        props["endLine"] = finding.end_line
    props["title"] = title
    return _command(kind, _clean("\n".join(lines), _MESSAGE_CHARS), **props)


def annotations(report: Report, *, per_kind: int = MAX_ANNOTATIONS_PER_KIND) -> list[str]:
    """Workflow commands to print, one per line, worst findings first.

    Findings at or above ``report.fail_on`` are ``::error``, the others ``::warning``, each
    with ``file``, ``line``, ``endLine`` (when the finding spans lines) and ``title``. At most
    ``per_kind`` of each kind are emitted, since GitHub drops the rest; one ``::notice``
    counts what was left out, and one lists what was not reviewed.
    """
    # Suppressed findings are listed in the job summary, not annotated on the code.
    findings = sorted((f for f in report.findings if not f.muted), key=FindingReport.sort_key)
    errors = [f for f in findings if f.severity.at_least(report.fail_on)]
    warnings = [f for f in findings if not f.severity.at_least(report.fail_on)]
    commands = [_finding_command("error", f) for f in errors[:per_kind]]
    commands += [_finding_command("warning", f) for f in warnings[:per_kind]]
    left_errors = max(len(errors) - per_kind, 0)
    left_warnings = max(len(warnings) - per_kind, 0)
    if left_errors or left_warnings:
        commands.append(_command(
            "notice",
            f"{left_errors + left_warnings} more finding(s) not annotated ({left_errors} at or "
            f"above {report.fail_on.value}, {left_warnings} below): GitHub shows "
            f"{per_kind} error and {per_kind} warning annotations per step. The job summary, "
            "SARIF and JSON reports list every finding.",
            title="secreview: more findings",
        ))
    if report.not_reviewed:
        listed = [
            f"{n.path}{f' (rule {n.rule})' if n.rule else ''}: {n.reason}"
            for n in report.not_reviewed[:_NOT_REVIEWED_LISTED]
        ]
        more = len(report.not_reviewed) - len(listed)
        if more:
            listed.append(f"... and {more} more (see the job summary)")
        text = f"{report.files_not_reviewed} not reviewed:\n" + "\n".join(listed)
        commands.append(_command(
            "notice", _clean(text, _MESSAGE_CHARS), title="secreview: not reviewed"
        ))
    return commands


def _close_blocks(text: str) -> str:
    """Close a code fence or ``<details>`` block left open by truncation, so the note after
    it renders as a note and not as code."""
    fences = sum(1 for line in text.splitlines() if line.lstrip().startswith("```"))
    if fences % 2:
        text += "\n```"
    open_details = text.count("<details") - text.count("</details>")
    return text + "\n</details>" * max(open_details, 0)


def _fit(text: str, budget: int) -> str | None:
    """``text`` whole if it fits in ``budget`` UTF-8 bytes, else cut at a line boundary with
    the truncation note; ``None`` when not even the note fits."""
    data = text.encode("utf-8")
    if len(data) <= budget:
        return text
    keep = budget - len(_SUMMARY_NOTE.encode("utf-8"))
    while keep > 0:
        head = data[:keep].decode("utf-8", "ignore")
        cut = head.rfind("\n")
        if cut > 0:
            head = head[:cut]
        fitted = _close_blocks(head) + _SUMMARY_NOTE
        over = len(fitted.encode("utf-8")) - budget
        if over <= 0:
            return fitted
        keep -= over  # closing the open blocks took room: cut further
    return None


def write_step_summary(markdown: str, env: Mapping[str, str]) -> bool:
    """Append ``markdown`` to the file named by ``GITHUB_STEP_SUMMARY``.

    The text is stripped of control characters and redacted. What the step already wrote
    counts towards GitHub's 1 MiB limit, so the summary is truncated (with a note) to fit
    what is left. Returns True when something was written; False when there is no summary
    file, no room left, or the file cannot be written (a summary must never fail the run).
    """
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return False
    text = sanitize(markdown)
    if not text.endswith("\n"):
        text += "\n"
    try:
        existing = os.path.getsize(path) if os.path.exists(path) else 0
        separator = ""
        if existing:
            with open(path, "rb") as handle:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    separator = "\n"
        fitted = _fit(text, STEP_SUMMARY_LIMIT - existing - len(separator))
        if fitted is None:
            return False
        with open(path, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(separator + fitted)
    except OSError:
        return False
    return True


#: The name :class:`ActionsLog` is registered under with pytest's plugin manager.
ACTIONS_LOG_PLUGIN = "secreview-actions-log"


class ActionsLog:
    """The review's hold on the GitHub Actions log (registered on the controller only).

    At session start it writes ``::stop-commands::<token>`` with a fresh random token: until
    the matching ``::<token>::`` the runner reads no workflow command, so no text from the
    pull request or a model printed meanwhile (node ids, failure reports, skip reasons, the
    summary) can act as one, whatever escaping a code path forgot. At unconfigure, after
    pytest's final line, it resumes and writes the :meth:`add`-ed annotations.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.token = secrets.token_hex(16)
        self.pending: list[str] = []
        self.stopped = False

    def add(self, commands: list[str]) -> None:
        """Queue workflow commands (from :func:`annotations`) for after the resume."""
        self.pending.extend(commands)

    def _write(self, line: str) -> None:
        # write_line starts a new line first when the progress output left one open: a
        # command that shares its line with "....F" is not read by the runner.
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)
            reporter.flush()
        else:
            sys.stdout.write(f"\n{line}\n")
            sys.stdout.flush()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._write(f"::stop-commands::{self.token}")
        self.stopped = True

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.stopped:
            self._write(f"::{self.token}::")
            self.stopped = False
        for command in self.pending:
            self._write(command)
        self.pending.clear()
