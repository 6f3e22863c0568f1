"""The intent audit's verdict: the ``report_verdict`` tool the model ends with, the validation
of its arguments, one model's :class:`Assessment`, and what a verdict means for the item under
``--secreview-intent-gate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..agent.output import required_votes, sum_usage
from ..agent.report_tool import invalid_arguments
from ..llm.messages import ToolSpec
from ..tools.redaction import sanitize
from ..tools.schema import tool_schema
from .signals import Category


class Verdict(StrEnum):
    """Does the change do what its author says it does?"""

    MATCH = "MATCH"  # the change is what the description says
    SUSPICIOUS = "SUSPICIOUS"  # it does more or other than described, or risky undisclosed
    LIE = "LIE"  # the description is contradicted by what the change does
    ERROR = "ERROR"  # the model could not judge (never a pass)


#: Characters of the model's reasoning kept in reports and messages.
MAX_SUMMARY_CHARS = 2000

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class VerdictEvidence(_Strict):
    """One place the model cites."""

    path: str = Field(min_length=1, max_length=1000)
    line: int = Field(ge=0)
    category: Category | None = Field(
        default=None, description="What this place shows the change does."
    )
    explanation: str = Field(min_length=1, max_length=2000)


class VerdictReport(_Strict):
    """The arguments of ``report_verdict``."""

    verdict: Verdict = Field(
        description="MATCH: the change is what it says. SUSPICIOUS: it does undisclosed risky "
        "things. LIE: what it does contradicts what it says. ERROR: you could not judge."
    )
    summary: str = Field(
        min_length=1,
        description="Two to five sentences: what the change says, what it does, and why that "
        "is the verdict.",
    )
    evidence: list[VerdictEvidence] = Field(
        default_factory=list, max_length=50,
        description="The places that decide the verdict (empty for MATCH if none).",
    )

    @field_validator("verdict", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


REPORT_VERDICT = ToolSpec(
    name="report_verdict",
    description=(
        "End the audit: say whether the change matches its stated intent (title, description, "
        "commit messages), with the evidence. Call exactly once, after investigating."
    ),
    parameters=tool_schema(VerdictReport),
)


def _clean(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    text = sanitize(text)
    return text if len(text) <= limit else text[:limit] + " [TRUNCATED]"


def validate_verdict(args: dict[str, Any]) -> VerdictReport:
    """``report_verdict`` arguments, cleaned; ``ValueError`` with a message for the model."""
    try:
        report = VerdictReport.model_validate(args)
    except ValidationError as exc:
        raise invalid_arguments("report_verdict", exc) from None
    return report.model_copy(update={
        "summary": _clean(report.summary),
        "evidence": [e.model_copy(update={"explanation": _clean(e.explanation),
                                          "path": _clean(e.path, 300)})
                     for e in report.evidence],
    })


def provider_of(model_id: str) -> str:
    """The route of a model id: ``openai:x`` -> openai, ``google/gemini`` -> vertex."""
    if ":" in model_id:
        return model_id.split(":", 1)[0]
    return "vertex" if "/" in model_id else "custom"


@dataclass(frozen=True)
class Assessment:
    """One model's judgment of the change (``assessments`` in the reports): a verdict, its
    reasoning and cited places, what it cost, and the error when it could not judge."""

    provider: str
    model: str
    verdict: Verdict
    summary: str = ""
    evidence: tuple[VerdictEvidence, ...] = ()
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (the report schema's ``Assessment``)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "verdict": self.verdict.value,
            "summary": self.summary,
            "evidence": [e.model_dump(mode="json") for e in self.evidence],
            "usage": self.usage,
            "error": self.error,
        }


def combine(assessments: Sequence[Assessment], policy: str) -> Assessment:
    """Several models' judgments of one change as one (``--secreview-consensus``): LIE when
    enough models say LIE, else SUSPICIOUS when enough say SUSPICIOUS or LIE, else ERROR when
    a model could not judge (an error never hides behind the others' MATCH), else MATCH.
    "Enough" is one model under ``any``, more than half under ``majority``, every model
    under ``all``. One assessment is returned as it is."""
    if len(assessments) == 1:
        return assessments[0]
    verdicts = [a.verdict for a in assessments]
    need = required_votes(policy, len(verdicts))
    if sum(v is Verdict.LIE for v in verdicts) >= need:
        verdict = Verdict.LIE
    elif sum(v in (Verdict.LIE, Verdict.SUSPICIOUS) for v in verdicts) >= need:
        verdict = Verdict.SUSPICIOUS
    elif Verdict.ERROR in verdicts:
        verdict = Verdict.ERROR
    else:
        verdict = Verdict.MATCH
    errors = [f"{a.model}: {a.error}" for a in assessments if a.error]
    return Assessment(
        provider="consensus", model=", ".join(a.model for a in assessments), verdict=verdict,
        summary=f"{policy} of {len(assessments)} models: " + "; ".join(
            f"{a.model} said {a.verdict.value}" for a in assessments),
        evidence=tuple(e for a in assessments if a.verdict is verdict for e in a.evidence),
        usage=sum_usage([a.usage for a in assessments]),
        error="; ".join(errors) if verdict is Verdict.ERROR and errors else None,
    )
