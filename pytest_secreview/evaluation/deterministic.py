"""Deterministic checks: a rule's ``detect`` patterns over a file's added or removed lines.
They need no model and produce findings on the exact head-file line."""

from __future__ import annotations

from ..diff.model import FileDiff
from ..rules.model import Rule
from .findings import Finding


def run_detect(rule: Rule, file: FileDiff) -> list[Finding]:
    """Every finding ``rule``'s detect patterns produce on ``file``, one per (pattern, line).

    The caller passes only files the rule's ``applies_to`` selected (the matcher's targets).
    A pattern on removed lines that also matches an added line of the same file reports
    nothing: the safeguard was moved or rewritten, not deleted, and the model (which sees
    both sides) judges whether the new form still protects.
    """
    findings: list[Finding] = []
    added = file.added_lines
    for detect in rule.detect:
        lines = added if detect.on == "added" else file.removed_lines
        if detect.on == "removed" and any(detect.pattern.search(a.text) for a in added):
            continue
        for line in lines:
            if not detect.pattern.search(line.text):
                continue
            if detect.unless is not None and detect.unless.search(line.text):
                continue
            removed = detect.on == "removed"
            finding = Finding(
                rule=rule.id,
                severity=detect.severity,
                title=detect.message,
                path=file.path,
                line=line.anchor,
                source="pattern",
                category=rule.category,
                cwe=rule.cwe,
                explanation=(
                    f"This pull request removes a line matching `{detect.pattern.source}`"
                    if removed
                    else f"Added line matches `{detect.pattern.source}`"
                )
                + f" ({rule.title}).",
                recommendation=detect.recommendation or rule.description,
                confidence=1.0,
            )
            # An added line's own text is the anchor (as for a model finding on that line, so
            # the two are one finding); a removed line's is marked as such.
            findings.append(finding.with_fingerprint(("-" + line.text) if removed else line.text))
    return findings
