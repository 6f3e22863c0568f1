"""The layout of the summary as a PR comment: findings grouped by severity, worst first, the
groups below the notable threshold collapsed, and the whole fitted into GitHub's limit of
65,536 characters. To fit, findings are shortened, then omitted, and sections dropped, least
valuable first, and the room left is given back worst first. What fails the check stays
longest; what was not reviewed goes nearly last (fail closed: say what was not checked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.severity import Severity
from .markdown_finding import ICONS
from .model import FindingReport

#: GitHub's maximum length of an issue or review comment body, in characters.
GITHUB_COMMENT_LIMIT = 65_536
SEVERITY_ORDER = sorted(Severity, key=lambda s: -s.rank)
DEFAULT_FULL_REPORT = "in `summary.json` and the other report files of this run"


def notable_threshold(fail_on: Severity) -> Severity:
    """The lower of ``fail_on`` and MEDIUM: findings at or above it are shown expanded in the
    summary and commented inline; lower ones are collapsed and stay in the summary only."""
    return fail_on if fail_on.rank < Severity.MEDIUM.rank else Severity.MEDIUM


@dataclass
class Entry:
    finding: FindingReport
    full: str
    brief: str
    level: int = 2  # 2 full, 1 brief, 0 omitted


def findings_section(entries: list[Entry], threshold: Severity) -> list[str]:
    """Findings grouped by severity, worst first; groups below ``threshold`` collapsed. The
    blocks are to be joined with blank lines."""
    blocks: list[str] = []
    omitted = sum(1 for e in entries if e.level == 0)
    for severity in SEVERITY_ORDER:
        group = [e for e in entries if e.finding.severity is severity and e.level > 0]
        if not group:
            continue
        total = sum(1 for e in entries if e.finding.severity is severity)
        title = f"{ICONS[severity]} {severity.value} ({total})"
        collapsed = not severity.at_least(threshold)
        parts: list[str] = []
        briefs: list[str] = []
        for entry in group:
            if entry.level == 2:
                if briefs:
                    parts.append("\n".join(briefs))
                    briefs = []
                parts.append(entry.full)
            else:
                briefs.append(entry.brief)
        if briefs:
            parts.append("\n".join(briefs))
        # Each part is a block of its own, not joined into the group's text first: the
        # caller joins every block with a blank line once (a group of thousands of findings
        # would otherwise be copied twice more, megabytes each, before that join).
        blocks.append(f"<details><summary><b>{title}</b></summary>" if collapsed
                      else f"### {title}")
        blocks += parts
        if collapsed:
            blocks.append("</details>")
    if omitted:
        blocks.append(f"_… and {omitted} more findings not shown here._")
    if not entries:
        blocks.append("No findings.")
    return blocks


def truncation_note(entries: list[Entry], dropped_sections: list[str], max_chars: int,
                     full_report: str) -> str:
    brief = {s: 0 for s in SEVERITY_ORDER}
    gone = {s: 0 for s in SEVERITY_ORDER}
    for e in entries:
        if e.level == 1:
            brief[e.finding.severity] += 1
        elif e.level == 0:
            gone[e.finding.severity] += 1
    said = []
    if any(brief.values()):
        said.append("the details of " + ", ".join(
            f"{n} {s.value}" for s, n in brief.items() if n) + " findings were left out")
    if any(gone.values()):
        said.append(", ".join(f"{n} {s.value}" for s, n in gone.items() if n)
                    + " findings were omitted")
    said += [f"the {name} section was left out" for name in dropped_sections]
    return ("> [!WARNING]\n> This summary was shortened to fit "
            f"{max_chars:,} characters: {'; '.join(said) or 'it was cut'}. "
            f"The full report is {full_report}.")


@dataclass
class _Step:
    """One reduction: an entry down to ``level`` (2 full, 1 brief, 0 omitted) or a section
    dropped (``entry`` None, ``section`` named)."""

    entry: Entry | None
    level: int = 0
    section: str = ""
    previous: int = 0


def _plan(entries: list[Entry], fail_on: Severity) -> list[_Step]:
    """Reductions, least valuable first. What fails the check stays longest; what was not
    reviewed goes nearly last (fail closed: say what was not checked)."""
    notable = notable_threshold(fail_on)
    lowest_first = list(reversed(entries))  # entries are sorted worst first
    failing = [e for e in lowest_first if e.finding.severity.at_least(fail_on)]
    passing = [e for e in lowest_first if not e.finding.severity.at_least(fail_on)]
    minor = [e for e in passing if not e.finding.severity.at_least(notable)]
    notable_passing = [e for e in passing if e.finding.severity.at_least(notable)]
    return [
        *(_Step(e, 1) for e in passing),
        _Step(None, section="not code"),  # fails nothing: the first section to go
        _Step(None, section="notes"),
        _Step(None, section="resolved"),
        _Step(None, section="fixes"),
        _Step(None, section="suppressed"),
        *(_Step(e, 0) for e in minor),
        *(_Step(e, 1) for e in failing),
        *(_Step(e, 0) for e in notable_passing),
        _Step(None, section="not reviewed"),
        _Step(None, section="intent"),
        *(_Step(e, 0) for e in failing),
    ]


def _apply(step: _Step, tail: dict[str, str | None], dropped: list[str]) -> int:
    """Apply ``step``; returns the characters it saved (estimated)."""
    if step.entry is None:
        block = tail[step.section]
        if not block or step.section in dropped:
            return 0
        dropped.append(step.section)
        return len(block) + 2
    entry = step.entry
    if entry.level <= step.level:
        return 0
    before = _entry_size(entry)
    step.previous, entry.level = entry.level, step.level
    return before - _entry_size(entry)


def shorten(entries: list[Entry], tail: dict[str, str | None],
             assemble: Callable[[str | None, Sequence[str]], str], max_chars: int,
             full_report: str, fail_on: Severity) -> str:
    """Reduce detail until the document fits (see :func:`_plan`), then use the room left
    to undo reductions, most valuable first. Sizes are tracked arithmetically between
    renders, so thousands of findings stay fast; each render measures exactly."""
    dropped: list[str] = []
    steps = _plan(entries, fail_on)
    applied: list[_Step] = []
    position = 0
    text = ""
    for _render in range(20):
        # The note grows as counts appear in it, so a few renders may be needed.
        text = assemble(truncation_note(entries, dropped, max_chars, full_report), dropped)
        excess = len(text) - max_chars
        if excess <= 0 or position >= len(steps):
            break
        while excess > 0 and position < len(steps):
            step = steps[position]
            position += 1
            saved = _apply(step, tail, dropped)
            if saved:
                applied.append(step)
                excess -= saved
    if len(text) > max_chars:
        return text
    return _refill(applied, tail, dropped, assemble, text, max_chars, full_report, entries)


def _refill(applied: list[_Step], tail: dict[str, str | None], dropped: list[str],
            assemble: Callable[[str | None, Sequence[str]], str], text: str, max_chars: int,
            full_report: str, entries: list[Entry]) -> str:
    """Undo reductions (the last applied, most valuable, first) while they fit."""
    spare = max_chars - len(text) - 300  # room for the note to change
    undone: list[_Step] = []
    for step in reversed(applied):
        if step.entry is None:
            cost = len(tail[step.section] or "") + 2
            if cost <= spare:
                dropped.remove(step.section)
                spare -= cost
                undone.append(step)
            continue
        entry = step.entry
        current = entry.level
        entry.level = step.previous
        cost = _entry_size(entry) - _entry_size(Entry(entry.finding, entry.full, entry.brief,
                                                       current))
        if cost <= spare:
            spare -= cost
            undone.append(step)
        else:
            entry.level = current
    if not undone:
        return text
    candidate = assemble(truncation_note(entries, dropped, max_chars, full_report), dropped)
    if len(candidate) <= max_chars:
        return candidate
    for step in undone:  # the estimate was wrong: keep the shorter text
        if step.entry is None:
            dropped.append(step.section)
        else:
            step.entry.level = step.level
    return text


def hard_cut(text: str, max_chars: int, full_report: str) -> str:
    """Last resort (a tiny ``max_chars``): cut at a line and say so."""
    note = (f"\n\n> [!WARNING]\n> Cut at {max_chars:,} characters. "
            f"The full report is {full_report}.\n")
    keep = text[: max(0, max_chars - len(note))]
    if "\n" in keep:
        keep = keep[: keep.rindex("\n")]
    # An unclosed fence would swallow the note: count fences of the kept text.
    if len(re.findall(r"^`{3,}", keep, re.MULTILINE)) % 2:
        keep = keep[: keep.rfind("\n```")] if "\n```" in keep else ""
    return (keep + note)[:max_chars]


def _entry_size(entry: Entry) -> int:
    if entry.level == 2:
        return len(entry.full) + 2
    if entry.level == 1:
        return len(entry.brief) + 1
    return 0
