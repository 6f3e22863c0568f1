"""Deterministic checks: a rule's ``detect`` patterns over a file's added or removed lines.
They need no model and produce findings on the exact head-file line."""

from __future__ import annotations

from ..diff.model import FileDiff
from ..rules.model import Rule
from .findings import Finding


def run_detect(rule: Rule, file: FileDiff) -> list[Finding]:
    """Every finding ``rule``'s detect patterns produce on ``file``, one per (pattern, line)."""
    findings: list[Finding] = []
    for detect in rule.detect:
        lines = file.added_lines if detect.on == "added" else file.removed_lines
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
            findings.append(finding.with_fingerprint(("-" if removed else "+") + line.text))
    return findings
