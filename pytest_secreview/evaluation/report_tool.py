"""The ``report_findings`` tool: its declaration and the validation of what a model reports.

A validation error goes back to the model as the tool result so it can correct itself.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..diff.model import FileDiff
from ..llm.messages import ToolSpec
from ..severity import Severity
from ..tools.redaction import redact, strip_control
from .findings import Finding

_FINDING_PROPERTIES: dict[str, Any] = {
    "severity": {"type": "string", "enum": ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]},
    "title": {"type": "string", "description": "One line, at most 200 characters."},
    "path": {"type": "string", "description": "Repository-relative path of the file."},
    "line": {"type": "integer", "description": "Line in the head revision (1-based)."},
    "end_line": {"type": "integer", "description": "Last line of the range, if several."},
    "category": {"type": "string"},
    "cwe": {"type": "string", "description": "For example CWE-89."},
    "explanation": {"type": "string", "description": "The data flow from source to sink."},
    "exploit_scenario": {"type": "string", "description": "What an attacker sends and gets."},
    "recommendation": {"type": "string", "description": "How to fix it."},
    "suggestion": {
        "type": "string",
        "description": "Replacement code for the reported lines, when the fix is that edit.",
    },
    "confidence": {"type": "number", "description": "0..1: how sure you are it is real."},
}

#: Declared to the model with the repository tools. Written by hand (no $ref, no anyOf) so
#: every provider's schema dialect accepts it.
REPORT_FINDINGS = ToolSpec(
    name="report_findings",
    description=(
        "End the review by reporting every confirmed finding (an empty list when none). "
        "Call exactly once, after investigating."
    ),
    parameters={
        "type": "object",
        "properties": {
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": _FINDING_PROPERTIES,
                    "required": [
                        "severity", "title", "path", "line", "explanation", "recommendation",
                    ],
                },
            }
        },
        "required": ["findings"],
    },
)


class ReportedFinding(BaseModel):
    """One finding as a model reports it through ``report_findings`` (validated strictly)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    severity: Severity
    title: str = Field(min_length=3, max_length=200)
    path: str = Field(min_length=1)
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    category: str | None = None
    cwe: str | None = None
    explanation: str = Field(min_length=1)
    exploit_scenario: str = ""
    recommendation: str = Field(min_length=1)
    suggestion: str | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)

    @field_validator("severity", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("title", "path", "category", "cwe")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and any(ord(c) < 0x20 or c == "\x7f" for c in value):
            raise ValueError("must be a single line without control characters")
        return value


class FindingsReport(BaseModel):
    """The arguments of ``report_findings``: ``{"findings": [...]}``."""

    model_config = ConfigDict(extra="forbid")

    findings: list[ReportedFinding]


def _clean(text: str | None) -> str | None:
    return None if text is None else redact(strip_control(text))


def _normalise_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    for prefix in ("./", "b/"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path


def validate_report(
    args: dict[str, Any], *, rule_id: str, source: str, file: FileDiff,
    known_paths: Collection[str],
) -> list[Finding]:
    """Turn ``report_findings`` arguments into findings, or raise ``ValueError`` with a
    message written for the model (it is sent back as the tool result)."""
    try:
        report = FindingsReport.model_validate(args)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:8]
        )
        raise ValueError(f"report_findings arguments are invalid: {problems}. Call "
                         "report_findings again with corrected arguments.") from None
    added = {line.number: line.text for line in file.added_lines}
    findings = []
    for i, reported in enumerate(report.findings):
        path = _normalise_path(reported.path)
        if path not in known_paths:
            raise ValueError(
                f"findings.{i}.path: {reported.path!r} is not a file of this repository at the "
                f"head revision; use the repository-relative path such as {file.path!r}"
            )
        anchor = added.get(reported.line, reported.title) if path == file.path else reported.title
        finding = Finding(
            rule=rule_id,
            severity=reported.severity,
            title=_clean(reported.title) or "",
            path=path,
            line=reported.line,
            end_line=reported.end_line,
            category=_clean(reported.category),
            cwe=_clean(reported.cwe),
            explanation=_clean(reported.explanation) or "",
            exploit_scenario=_clean(reported.exploit_scenario) or "",
            recommendation=_clean(reported.recommendation) or "",
            suggestion=_clean(reported.suggestion),
            confidence=reported.confidence,
            source=source,
        )
        findings.append(finding.with_fingerprint(anchor))
    return findings
