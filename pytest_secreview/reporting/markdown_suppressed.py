"""The suppressed findings in the markdown summary (and so in the PR comment).

Suppressed findings are never silent: they are counted in the header and listed with why
they do not count. Suppressions the pull request adds itself get a block of their own, near
the top and never dropped to fit the size limit, so the reviewer sees what the author muted.
"""

from __future__ import annotations

from .markdown_text import ICONS, escape_text, finding_location, inline_code
from .model import FindingReport, Report

__all__ = ["added_block", "suppressed_block", "suppressed_label"]

_LIMIT = 20  # findings listed per block; the rest are counted
_REASON_CHARS = 300


def suppressed_label(finding: FindingReport) -> str:
    """Why a suppressed finding does not count, in a few words."""
    if finding.suppression == "inline":
        return ("suppressed by a comment this pull request adds" if finding.suppression_added
                else "suppressed by a comment in the code")
    if finding.suppression == "baseline":
        return "in the baseline"
    return "dismissed by the model"


def _reason(finding: FindingReport) -> str:
    return finding.suppression_reason if finding.suppression else finding.triage_reason


def _line(finding: FindingReport, report: Report, link_base: str | None) -> str:
    where = finding_location(finding, head_sha=report.head_sha, link_base=link_base)
    reason = escape_text(_reason(finding), _REASON_CHARS, one_line=True) or "no reason given"
    return (f"- {ICONS[finding.severity]} {finding.severity.value} · "
            f"{escape_text(finding.title, 200, one_line=True)} — {where} · rule "
            f"{inline_code(finding.rule, 120)} · {suppressed_label(finding)}: {reason}")


def _listing(findings: list[FindingReport], report: Report, link_base: str | None) -> list[str]:
    ordered = sorted(findings, key=FindingReport.sort_key)
    lines = [_line(f, report, link_base) for f in ordered[:_LIMIT]]
    if len(ordered) > _LIMIT:
        lines.append(f"- … and {len(ordered) - _LIMIT} more in `summary.json`")
    return lines


def added_block(report: Report, link_base: str | None) -> str | None:
    """Findings muted by a suppression comment the pull request itself adds."""
    added = [f for f in report.findings if f.suppression == "inline" and f.suppression_added]
    if not added:
        return None
    return "\n".join([
        f"### 🔕 Suppressions added by this pull request ({len(added)})", "",
        "> [!IMPORTANT]\n> These findings are muted by `secreview: ignore` comments this pull "
        "request adds. Check each reason before approving.", "",
        *_listing(added, report, link_base)])


def suppressed_block(report: Report, link_base: str | None) -> str | None:
    """Every other suppressed finding: kept, with the reason, failing nothing."""
    rest = [f for f in report.findings if f.suppressed
            and not (f.suppression == "inline" and f.suppression_added)]
    if not rest:
        return None
    return "\n".join([
        f"<details><summary><b>🔕 Suppressed ({len(rest)})</b>: reported, failing nothing"
        "</summary>", "", *_listing(rest, report, link_base), "", "</details>"])
