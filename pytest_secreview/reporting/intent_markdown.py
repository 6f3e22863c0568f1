"""The intent audit in the markdown summary and PR comment: the deterministic risk evidence and
each model's judgment shown apart, so a reader who trusts only the math reads the first part.
"""

from __future__ import annotations

from .markdown_text import escape_text, inline_code
from .model import ItemReport, Report

#: Evidence lines shown per audit item (the JSON report has all of them).
_EVIDENCE_LIMIT = 15
_ICON = {"MATCH": "✅", "SUSPICIOUS": "⚠️", "LIE": "🛑", "ERROR": "❗"}


def _item_lines(item: ItemReport) -> list[str]:
    lines: list[str] = []
    evidence = item.risk_evidence
    if evidence is not None:
        counts = ", ".join(f"{name} ({count})" for name, count in sorted(evidence.counts.items()))
        lines += [f"**Risk evidence** (deterministic, from the diff alone): {counts or 'none'}",
                  ""]
        for entry in evidence.items[:_EVIDENCE_LIMIT]:
            where = f"{entry.path}:{entry.line}" if entry.line else entry.path
            side = " (removed)" if entry.side == "removed" else ""
            lines.append(f"- {inline_code(where, 200)} {entry.category} · "
                         f"{escape_text(entry.signal, 100, one_line=True)}{side}: "
                         f"{inline_code(entry.text, 200)}")
        hidden = len(evidence.items) - _EVIDENCE_LIMIT + evidence.truncated
        if hidden > 0:
            lines.append(f"- … and {hidden} more in the JSON report")
        lines.append("")
    if not item.assessments:
        why = escape_text(item.reason or item.outcome, 300, one_line=True)
        lines.append(f"**Judgment:** none ({why})")
    for assessment in item.assessments:
        icon = _ICON.get(assessment.verdict or "", "")
        lines.append(f"**Judgment** by {inline_code(assessment.model, 120)}: {icon} "
                     f"**{assessment.verdict}**")
        if assessment.summary:
            lines.append(f"> {escape_text(assessment.summary, 2_000, one_line=True)}")
        if assessment.error:
            lines.append(f"> error: {escape_text(assessment.error, 500, one_line=True)}")
    return lines


def intent_block(report: Report) -> str | None:
    """The ``Intent audit`` section, or None when no item audited intent."""
    audited = [item for item in report.items
               if item.risk_evidence is not None
               or any(a.verdict is not None for a in item.assessments)]
    if not audited:
        return None
    lines = ["### Intent audit: does the change do what it says?", ""]
    for item in audited:
        lines += [*_item_lines(item), ""]
    return "\n".join(lines).rstrip()
