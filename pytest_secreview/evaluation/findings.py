"""Findings: the one result type every check produces, and severities.

``ReportedFinding`` is the pydantic model that validates what a model passes to
``report_findings``; ``Finding`` is the frozen domain value everything downstream uses.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..severity import Severity

__all__ = ["Finding", "FindingsReport", "ReportedFinding", "Severity", "fingerprint"]


_WS = re.compile(r"\s+")


def fingerprint(rule: str, path: str, anchor: str) -> str:
    """A fingerprint stable across line shifts: rule, path and the whitespace-normalised
    text of the flagged line (not its number)."""
    normal = _WS.sub(" ", anchor).strip()
    digest = hashlib.sha256(f"{rule}\0{path}\0{normal}".encode()).hexdigest()
    return digest[:32]


@dataclass(frozen=True)
class Finding:
    """One security finding at a location in the pull request's head revision."""

    rule: str
    severity: Severity
    title: str
    path: str
    line: int
    source: str
    end_line: int | None = None
    category: str | None = None
    cwe: str | None = None
    explanation: str = ""
    exploit_scenario: str = ""
    recommendation: str = ""
    suggestion: str | None = None
    confidence: float = 1.0
    fingerprint: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (the ``finding.schema.json`` shape)."""
        data = asdict(self)
        data["severity"] = self.severity.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        """Inverse of :meth:`to_json`."""
        return cls(**{**data, "severity": Severity(data["severity"])})

    def with_fingerprint(self, anchor: str) -> Finding:
        """Return a copy whose fingerprint is computed from ``anchor`` (the line's text)."""
        return replace(self, fingerprint=fingerprint(self.rule, self.path, anchor))

    def sort_key(self) -> tuple[int, str, int, str, str]:
        """Worst first, then by location: the order every output uses."""
        return (-self.severity.rank, self.path, self.line, self.rule, self.title)


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
