"""The failure text of an item whose findings reach the fail threshold."""

from __future__ import annotations

from ..core.findings import Finding
from ..severity import one_line


class FindingsFailure(Exception):
    """Raised by ``runtest`` when findings reach the fail threshold."""

    def __init__(self, failing: list[Finding], others: list[Finding], note: str | None) -> None:
        super().__init__(f"{len(failing)} finding(s) at or above the threshold")
        self.failing = failing
        self.others = others
        self.note = note


def format_finding(finding: Finding) -> str:
    """``path:line  SEVERITY  title`` followed by the explanation and the fix."""
    lines = [f"{one_line(finding.path)}:{finding.line}  {finding.severity.value}  "
             f"{one_line(finding.title)}"]
    for label, text in (
        ("why", finding.explanation),
        ("exploit", finding.exploit_scenario),
        ("fix", finding.recommendation),
    ):
        if text:
            # Multi-line text stays readable, but no line of it starts at column 0.
            lines.append(f"    {label}: " + "\n      ".join(one_line(t) for t in text.split("\n")))
    meta = [f"rule {finding.rule}", f"source {finding.source}"]
    if finding.cwe:
        meta.append(finding.cwe)
    if finding.confidence != 1.0:  # an exact pattern's certainty goes without saying
        meta.append(finding.confidence_text())
    if finding.suppression:  # muted by the team, shown with why (a dismissal: the line below)
        meta.append(f"suppressed ({finding.suppression}): "
                    f"{one_line(finding.suppression_reason)}")
    lines.append("    (" + ", ".join(meta) + ")")
    if finding.triage:  # what the second look said (or why it could not look)
        lines.append(f"    {finding.triage}: {one_line(finding.triage_reason)}")
    if finding.overruled:  # a lowering that was refused, and why
        lines.append(f"    not accepted: {one_line(finding.overruled)}")
    return "\n".join(lines)


def findings_repr(exc: FindingsFailure, threshold: str, subject: str) -> str:
    """The failure report of an item: the findings at the threshold, the others, the note."""
    parts = [f"{len(exc.failing)} finding(s) at or above {threshold} ({subject})", "",
             *(format_finding(f) for f in exc.failing)]
    if exc.others:
        parts += ["", f"also reported, below {threshold} or suppressed:"]
        parts += [format_finding(f) for f in exc.others]
    if exc.note:
        parts += ["", f"note: {one_line(exc.note)}"]
    return "\n".join(parts)
