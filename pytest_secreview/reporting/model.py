"""The session's report: what ``summary.json`` holds and every other output is made from.

Built on the controller from the items' reports (identical with and without xdist), so the
SARIF log, the markdown summary, annotations and the PR comment all say the same thing.
Its JSON Schema is published as ``schemas/report.schema.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.findings import Finding
from ..core.severity import Severity
from ..fix.result import FixResult

SCHEMA_VERSION: Literal["1"] = "1"

Outcome = Literal["passed", "failed", "skipped", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: A finding in the report is the domain :class:`Finding` itself (pydantic validates the
#: dataclass; its schema is ``finding.schema.json``). The alias keeps report code readable.
FindingReport = Finding
#: Fix mode's outcome for one finding is the domain :class:`FixResult` itself, likewise.
FixReport = FixResult


class RuleReport(_Model):
    """A rule's metadata, carried into SARIF ``rules`` and comment links."""

    id: str
    title: str
    source: str
    severity: Severity
    description: str = ""
    category: str | None = None
    cwe: str | None = None
    owasp: str | None = None
    documentation_link: str | None = None
    comment_template: str | None = None
    help: str = ""


class EvidenceReport(_Model):
    """One deterministic risk signal of the change (intent audit)."""

    category: str = Field(description="network, subprocess, filesystem, environment, crypto, "
                          "auth_removed, ci_workflow, install_hook, dependency, obfuscation")
    signal: str = Field(description="What was recognised, e.g. 'HTTP client call'.")
    path: str
    line: int = Field(description="Head-revision line; 0 for a signal of the whole file.")
    side: Literal["added", "removed"] | None = None
    text: str = Field(description="The matched text, redacted and cut to one short line.")


class RiskEvidenceReport(_Model):
    """Deterministic evidence from the diff alone: the same on every run, no model involved."""

    categories: list[str]
    counts: dict[str, int] = Field(description="Matches per category, over all matches.")
    items: list[EvidenceReport]
    truncated: int = Field(0, description="Matches not listed in items (caps).")


class CitedEvidence(_Model):
    """A place a model cites for its verdict."""

    path: str
    line: int
    category: str | None = None
    explanation: str


class AssessmentReport(_Model):
    """One model's judgment, apart from the deterministic evidence: the intent audit's
    verdict, or (several models, ``--secreview-model`` repeated) the findings one model
    reported on a rule's item before the consensus decided which count."""

    provider: str
    model: str
    verdict: Literal["MATCH", "SUSPICIOUS", "LIE", "ERROR"] | None = Field(
        None, description="Intent audit only; None on a rule's item.")
    findings: list[FindingReport] | None = Field(
        None, description="Several models, a rule's item: what this model reported (all of "
        "it; the item's findings are what the consensus counted). None in the intent audit.")
    summary: str = Field("", description="The model's reasoning, capped at 2,000 characters.")
    evidence: list[CitedEvidence] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict)
    error: str | None = Field(None, description="Why there is no real verdict (ERROR).")


class ChangeReport(_Model):
    """A change made to one of an item's findings after it was found (its record's
    :class:`~pytest_secreview.core.record.Change`) and whether ``core.decide`` accepted it."""

    fingerprint: str = Field(description="The finding it applies to.")
    kind: str = Field(description="suppress, baseline, dismiss, confirm, severity, "
                      "min-confidence, exclude, reuse or unchecked (a second look that was "
                      "due and not given, and why).")
    origin: str = Field(description="Where it came from (baseline, base-comment, "
                        "maintainer-comment, pr-comment, model, verifier, settings, cache...).")
    trusted: bool = Field(description="The origin is not controlled by the pull request.")
    target: str = Field("base", description=(
        "What it is applied to, as the pull request left it: base (as the base revision had "
        "it), changed or created (by the pull request). A base source (its baseline, a "
        "comment already there, its ignore file, the defaults) lowers only a base target."))
    reason: str = ""
    severity: Severity | None = Field(None, description="severity: the new severity.")
    accepted: bool = Field(True, description="False: refused, the finding stands.")
    refused_because: str = ""


class ItemReport(_Model):
    """One pytest item: a rule applied to a changed file (or, for the intent audit, to the
    whole pull request: ``path`` is ``(pull request)``)."""

    nodeid: str
    rule: str | None
    path: str
    outcome: Outcome
    reason: str | None = None
    mode: str | None = None
    cached: bool = False
    findings: list[FindingReport] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict)
    duration: float | None = Field(
        default=None, description="Seconds the item took (setup and call), when known.")
    risk_evidence: RiskEvidenceReport | None = Field(
        None, description="Intent audit: deterministic evidence (trust the math alone here).")
    assessments: list[AssessmentReport] = Field(
        default_factory=list, description="One judgment per model: the intent audit's, and a "
        "rule's item's when several models reviewed it (empty with one model).")
    fixes: list[FixReport] = Field(
        default_factory=list, description="--secreview-mode=fix: one proposed patch per "
        "confirmed finding, kept (it applies and removes the finding) or dropped, and why.")
    changes: list[ChangeReport] = Field(
        default_factory=list, description="Every change made to the item's findings after "
        "they were found, with its origin and whether it was accepted.")


class NotReviewed(_Model):
    """Something that was not (fully) reviewed, and why."""

    path: str
    reason: str
    rule: str | None = None


class NotCode(_Model):
    """A changed file that is binary media holding no code (an image, a font, a compiled
    translation catalogue, audio or video), told by its name and its content together. The
    credential rules scanned it; it is not a gap and fails nothing by itself."""

    path: str
    content: str = Field(description="What its content is, e.g. 'PNG image'.")


class Usage(_Model):
    """Totals over every item."""

    model_calls: int = 0
    #: Requests that never reached the model (connection refused, timeouts): not model calls.
    failed_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = 0.0


def files_not_reviewed(entries: Sequence[NotReviewed]) -> int:
    """The one count of what was not reviewed: distinct paths, however many rules or
    reasons each has (a batch of the general review counts each file it holds)."""
    return len({entry.path for entry in entries})


class Report(_Model):
    """The whole review."""

    schema_version: Literal["1"] = SCHEMA_VERSION
    tool: str = "pytest-secreview"
    tool_version: str
    repository: str | None = None
    pull_request: int | None = None
    base_ref: str
    base_sha: str
    head_sha: str
    fail_on: Severity
    outcomes: dict[Outcome, int]
    findings: list[FindingReport]
    items: list[ItemReport]
    rules: list[RuleReport]
    not_reviewed: list[NotReviewed]
    not_code: list[NotCode] = Field(
        default_factory=list, description="Binary media (by name and content) the credential "
        "rules scanned: not code, so not in not_reviewed; sorted by path.")
    usage: Usage
    notes: list[str] = Field(default_factory=list)
    #: Set when no model was configured: what the review was (the deterministic checks) and
    #: what it did not collect; shown first by every summary.
    review_kind: str | None = None
    risk_evidence: RiskEvidenceReport | None = Field(
        None, description="No model configured: the intent audit's deterministic risk "
        "evidence of the whole change, from the diff alone, with no verdict (no model judged "
        "the intent; it passes and fails nothing). Empty items: no risk signal. None with a "
        "model (the intent audit's item carries its evidence beside its verdict), with no "
        "pull-request-scoped rule loaded, or with no changed file.")

    @property
    def files_not_reviewed(self) -> int:
        """How many files (and the pull request itself, for its audit) were not reviewed."""
        return files_not_reviewed(self.not_reviewed)

    @property
    def failing(self) -> list[FindingReport]:
        """Findings at or above the fail threshold."""
        return [f for f in self.findings if f.fails(self.fail_on)]
