"""The ``report_findings`` tool: its declaration and the validation of what a model reports.

A validation error goes back to the model as the tool result so it can correct itself.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from ..core.findings import Finding
from ..core.severity import Severity, severity_text
from ..diff.model import FileDiff
from ..llm.messages import ToolSpec
from ..severity import one_line
from ..tools.redaction import sanitize
from ..tools.schema import described, tool_schema

#: Characters of the cited ``code`` a model may send.
MAX_CODE_CHARS = 500
#: How far from the reported line the cited code is looked for (and the line corrected).
MAX_LINE_SHIFT = 30

#: Fields of the finding contract the plugin sets itself: a model that echoes them (it saw
#: the contract, or a deterministic finding, in its prompt) is not wrong, and what it sends is
#: ignored rather than trusted. They are accepted but not declared to the model.
PLUGIN_OWNED = ("rule", "source", "fingerprint")


class ReportedFinding(BaseModel):
    """One finding as a model reports it through ``report_findings``.

    The one definition of the tool's arguments: the schema declared to the model is derived
    from it (:data:`REPORT_FINDINGS`) and so is ``schemas/report_findings.schema.json``. The
    checks that matter are strict (severity, a one-line title, path and line); fields the
    plugin owns (:data:`PLUGIN_OWNED`) and unknown keys are accepted and dropped, and the
    unknown ones are recorded in the item's transcript.
    """

    model_config = ConfigDict(extra="allow", str_strip_whitespace=True,
                              json_schema_extra={"description": "One confirmed finding."})

    severity: Severity
    title: str = Field(
        min_length=3, max_length=200, description="One line, at most 200 characters."
    )
    path: str = Field(min_length=1, description="Repository-relative path of the file.")
    line: int = Field(ge=1, description="Line in the head revision (1-based).")
    end_line: int | None = Field(
        default=None, ge=1, description="Last line of the range, if several."
    )
    code: str | None = Field(
        default=None, max_length=MAX_CODE_CHARS,
        description="The code on `line`, copied exactly from the numbered hunk or read_file "
        "(without the number): the line number is checked against it and corrected.",
    )
    category: str | None = None
    cwe: str | None = Field(default=None, description="For example CWE-89.")
    explanation: str = Field(min_length=1, description="The data flow from source to sink.")
    exploit_scenario: str = Field(default="", description="What an attacker sends and gets.")
    recommendation: str = Field(min_length=1, description="How to fix it.")
    suggestion: str | None = Field(
        default=None,
        description="Replacement code for the reported lines, when the fix is that edit.",
    )
    confidence: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="0..1: how sure you are it is real. Omitted: recorded as not stated.",
    )
    # The plugin sets these; whatever a model sends is accepted and ignored (any type).
    rule: SkipJsonSchema[Any] = Field(default=None, exclude=True)
    source: SkipJsonSchema[Any] = Field(default=None, exclude=True)
    fingerprint: SkipJsonSchema[Any] = Field(default=None, exclude=True)

    _severity = field_validator("severity", mode="before")(staticmethod(severity_text))

    @field_validator("cwe", mode="before")
    @classmethod
    def _cwe_text(cls, value: Any) -> Any:
        # Models send CWE ids as numbers (89) as often as strings ("CWE-89").
        return f"CWE-{value}" if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("title", "path", "category", "cwe")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and any(ord(c) < 0x20 or c == "\x7f" for c in value):
            raise ValueError("must be a single line without control characters")
        return value

    @model_validator(mode="after")
    def _range(self) -> ReportedFinding:
        if self.end_line is not None and self.end_line < self.line:
            raise ValueError(f"end_line {self.end_line} is before line {self.line}")
        return self


class FindingsReport(BaseModel):
    """The arguments of ``report_findings``: ``{"findings": [...]}``."""

    model_config = ConfigDict(
        extra="allow", json_schema_extra={"description": "Every confirmed finding."}
    )

    findings: list[ReportedFinding]


#: Declared to the model with the repository tools; derived from :class:`FindingsReport`.
REPORT_FINDINGS = ToolSpec(
    name="report_findings",
    description=described((
        "End the review by reporting every confirmed finding (an empty list when none). "
        "Call exactly once, after investigating."
    ), FindingsReport),
    parameters=tool_schema(FindingsReport),
)


def _clean(text: str | None) -> str | None:
    return None if text is None else sanitize(text)


def _normalise_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    for prefix in ("./", "b/"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path


def invalid_arguments(tool: str, exc: ValidationError) -> ValueError:
    """The message a model gets back when its call of ``tool`` (a run's final tool) does not
    validate: each problem at its place in the arguments, and what to do."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:8]
    )
    return ValueError(f"{tool} arguments are invalid: {problems}. Call {tool} again with "
                      "corrected arguments.")


def validate_report(
    args: dict[str, Any], *, rule_id: str, source: str, file: FileDiff,
    known_paths: Collection[str], line_count: Callable[[str], int | None] | None = None,
    ignored: list[str] | None = None,
    head_lines: Callable[[str], Sequence[str] | None] | None = None,
    line_notes: list[str] | None = None,
) -> list[Finding]:
    """Turn ``report_findings`` arguments into findings, or raise ``ValueError`` with a
    message written for the model (it is sent back as the tool result).

    ``line_count(path)`` is the number of lines of a head file (None when unknown): a line
    past the end is sent back. Keys the contract does not know are dropped and named in
    ``ignored`` (``findings.0.note``), so the caller can record them. ``head_lines(path)`` is
    a head file's lines (None when unknown): a finding's cited ``code`` is checked against
    them (:func:`check_line`) and each correction or disagreement is described in
    ``line_notes``.
    """
    try:
        report = FindingsReport.model_validate(args)
    except ValidationError as exc:
        raise invalid_arguments("report_findings", exc) from None
    if ignored is not None:
        ignored.extend(one_line(str(k))[:80] for k in (report.model_extra or {}))
    added = {line.number: line.text for line in file.added_lines}
    findings = []
    for i, reported in enumerate(report.findings):
        if ignored is not None:
            ignored.extend(f"findings.{i}.{one_line(str(k))[:80]}"
                           for k in (reported.model_extra or {}))
        path = _normalise_path(reported.path)
        if path not in known_paths:
            raise ValueError(
                f"findings.{i}.path: {reported.path!r} is not a file of this repository at the "
                f"head revision; use the repository-relative path such as {file.path!r}"
            )
        total = line_count(path) if line_count is not None else None
        last = reported.end_line or reported.line
        if total is not None and last > max(total, 1):
            raise ValueError(
                f"findings.{i}.line: {path} has {total} lines at the head revision; line "
                f"{last} is past its end. Report the line the problem is on."
            )
        line, end_line, flag = reported.line, reported.end_line, ""
        lines = head_lines(path) if head_lines is not None and reported.code else None
        if lines is not None and reported.code:
            line, flag = check_line(lines, reported.line, reported.code)
            if end_line is not None:
                end_line += line - reported.line
            if line_notes is not None and (flag or line != reported.line):
                line_notes.append(
                    f"findings.{i} ({one_line(path)}:{reported.line}): "
                    + (flag or f"line corrected to {line}, where the cited code is"))
        anchor = added.get(line, reported.title) if path == file.path else reported.title
        explanation = _clean(reported.explanation) or ""
        finding = Finding(
            rule=rule_id,
            severity=reported.severity,
            title=_clean(reported.title) or "",
            path=path,
            line=line,
            end_line=end_line,
            category=_clean(reported.category),
            cwe=_clean(reported.cwe),
            explanation=f"{explanation} [Line check: {flag}.]" if flag else explanation,
            exploit_scenario=_clean(reported.exploit_scenario) or "",
            recommendation=_clean(reported.recommendation) or "",
            suggestion=_clean(reported.suggestion),
            confidence=reported.confidence,
            source=source,
        )
        findings.append(finding.with_fingerprint(anchor))
    return findings


def _squashed(text: str) -> str:
    return " ".join(text.split())


def check_line(lines: Sequence[str], line: int, code: str) -> tuple[int, str]:
    """The line the cited ``code`` is on, near the reported ``line`` of a file of ``lines``,
    and a flag ('' when they agree or the line was corrected).

    The first non-blank line of ``code`` is compared with whitespace squashed (a model
    re-indents). When line ``line`` does not hold it, the nearest line within
    :data:`MAX_LINE_SHIFT` that does is taken (the earlier on a tie); when none does, the
    reported line stays and the flag says they disagree.
    """
    cited = next((_squashed(row) for row in code.splitlines() if row.strip()), "")
    if not cited:
        return line, ""

    def holds(number: int) -> bool:
        return 1 <= number <= len(lines) and cited in _squashed(lines[number - 1])

    if holds(line):
        return line, ""
    for shift in range(1, MAX_LINE_SHIFT + 1):
        for candidate in (line - shift, line + shift):
            if holds(candidate):
                return candidate, ""
    return line, (f"the cited code was not found at line {line} or within {MAX_LINE_SHIFT} "
                  "lines of it; the line may be wrong")
