"""The ``intent`` item: one per pull request for each pull-request-scoped rule (the bundled
``rules/intent.md``). Setup computes the risk evidence and asks the model for a verdict
(:mod:`..audit`); its record carries the verdict and :func:`~..core.decide.decide` judges it
like any other item's (the gate is :func:`~..core.decide.intent_decision`): MATCH passes, LIE
fails, SUSPICIOUS fails or warns by ``--secreview-intent-gate``, ERROR is an error. With no
model no intent item is made: the controller computes the evidence once and every summary
reports it without a verdict (the review's ``intent_evidence``, the report's
``risk_evidence``). An item that finds no reviewer anyway is unreviewed: skipped with that
reason, or failed under ``--secreview-unreviewed=fail``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.decide import Outcome, Verdict, intent_decision
from ..core.findings import PR_PATH
from ..core.record import ItemRecord
from ..errors import EvaluationError
from ..notices import record_warning
from ..rules.model import Rule
from ..severity import one_line
from ..unreviewed import judge_unreviewed
from .base import ARTIFACT_KEY, ReviewItem

if TYPE_CHECKING:
    from ..audit.evidence import RiskEvidence
    from ..audit.verdict import Assessment


_NO_MODEL = (
    "intent audit needs a model and none is configured; the risk evidence is in the JSON "
    "report (risk_evidence). Set --secreview-model to have it judged"
)


class IntentWarning(pytest.PytestWarning):
    """A SUSPICIOUS verdict under ``--secreview-intent-gate=lie``: reported, not failed."""


class IntentFailure(Exception):
    """Raised by ``runtest`` when the verdict fails the item."""

    def __init__(self, assessment: Assessment, evidence: RiskEvidence) -> None:
        super().__init__(f"intent verdict {assessment.verdict.value}")
        self.assessment = assessment
        self.evidence = evidence


def _categories(evidence: RiskEvidence) -> str:
    return ", ".join(f"{name} ({count})" for name, count in evidence.counts) or "none"


def format_assessment(assessment: Assessment, evidence: RiskEvidence) -> str:
    """The verdict, the model's reasoning and cited places, then the deterministic evidence."""
    lines = [f"intent verdict {assessment.verdict.value} from {assessment.model}",
             *(f"    {one_line(t)}" for t in assessment.summary.splitlines() if t.strip())]
    for cited in assessment.evidence:
        category = f" [{cited.category.value}]" if cited.category else ""
        lines.append(f"  {one_line(cited.path)}:{cited.line}{category} "
                     f"{one_line(cited.explanation)}")
    lines += ["", f"risk evidence (deterministic): {_categories(evidence)}"]
    lines += [f"  {one_line(item.describe())}" for item in evidence.items[:20]]
    if len(evidence.items) > 20 or evidence.truncated:
        lines.append("  (the JSON report lists the rest)")
    return "\n".join(lines)


class IntentItem(ReviewItem):
    """Does the change do what its author says? One per pull request."""

    incomplete = "intent audit could not be completed"

    def __init__(self, *, rule: Rule, **kwargs: Any) -> None:
        super().__init__(rule=rule.id, path=PR_PATH, **kwargs)
        self.rule = rule
        self.verdict: Verdict | None = None
        self.assessment: Assessment | None = None
        self.evidence: RiskEvidence | None = None
        self.not_reviewed: tuple[str, str] | None = None  # (why, skip message)

    def setup(self) -> None:
        # The evidence and verdict layers (tools, model I/O) load when the item runs, not
        # at collection.
        from ..audit.evidence import collect_evidence
        from ..audit.verdict import combine

        review = self.review
        evidence = self.evidence = collect_evidence(review.diff)
        if review.agent is None:
            self._record(evidence, None, mode="deterministic", not_reviewed=_NO_MODEL)
            self._unreviewed(_NO_MODEL, f"{_NO_MODEL}; signals: {_categories(evidence)}")
            return
        from ..audit.review import assess_intent
        from ..audit.statement import Statement, commit_messages

        pr = review.agent.primary.pull_request  # several models: the first one's
        messages, omitted = commit_messages(review.repo, review.diff.base_sha,
                                            review.diff.head_sha)
        statement = Statement.build(pr.title, pr.body, messages, omitted)
        # Several models (--secreview-model more than once): each judges the change; the
        # consensus policy makes one verdict of theirs, and every judgment is reported.
        each = [assess_intent(r, self.rule, evidence, statement)
                for r in review.agent.reviewers]
        assessment = self.assessment = combine(each, review.settings.consensus)
        error = assessment.error or (
            "the model answered ERROR: it could not judge the change"
            if intent_decision(assessment.verdict.value, review.policy.intent_gate) == "error"
            else None)
        skipped = (f"not reviewed (--secreview-on-error=skip): {error}"
                   if error is not None and review.settings.on_error == "skip" else None)
        self._record(evidence, assessment, mode=str(assessment.usage.get("mode") or "error"),
                     error=error, statement=statement.to_json(), each=each,
                     not_reviewed=skipped)
        if skipped is not None:
            self._unreviewed(skipped, skipped)
        elif error is not None:
            raise EvaluationError(error)

    def _unreviewed(self, why: str, message: str) -> None:
        # Judged in runtest by --secreview-unreviewed, like every item that was not evaluated.
        self.not_reviewed = (why, message)

    def _record(self, evidence: RiskEvidence, assessment: Assessment | None, *, mode: str,
                not_reviewed: str | None = None, error: str | None = None,
                statement: dict[str, Any] | None = None,
                each: Sequence[Assessment] = ()) -> None:
        assessments = [a.to_json() for a in each or ([assessment] if assessment else [])]
        usage = dict(assessment.usage) if assessment is not None else {}
        data: dict[str, Any] = {
            "rule": self.rule.id, "path": PR_PATH, "findings": [], "mode": mode,
            "usage": usage, "not_reviewed": not_reviewed, "cached": False, "error": error,
            "verdict": assessment.verdict.value if assessment is not None else None,
            "risk_evidence": evidence.to_json(), "assessments": assessments,
        }
        rule = self.rule
        self.stash[ARTIFACT_KEY] = {
            "task": {"nodeid": self.nodeid, "path": PR_PATH, "statement": statement,
                     "rule": {"id": rule.id, "title": rule.title, "source": rule.source,
                              "severity": rule.severity.value,
                              "content_sha256": rule.content_sha}},
            "evaluation": data,
        }
        # The intent audit finds no findings: its record carries what it did and its verdict
        # (the statement against the evidence), decided like every record.
        record = ItemRecord(nodeid=self.nodeid, rule=rule.id, path=PR_PATH, mode=mode,
                            usage=usage, not_reviewed=not_reviewed, error=error,
                            assessments=tuple(assessments),
                            intent=assessment.verdict.value if assessment is not None else None)
        self.verdict = self.conclude(record, metadata=data, risk_evidence=evidence.to_json())

    def runtest(self) -> None:
        if self.not_reviewed is not None:
            why, message = self.not_reviewed
            judge_unreviewed(self.review.settings.unreviewed, why=why, skip_message=message,
                             what="the intent audit of the pull request")
        assert self.assessment is not None and self.evidence is not None
        assert self.verdict is not None
        if self.verdict.outcome is Outcome.FAILED:
            raise IntentFailure(self.assessment, self.evidence)
        if intent_decision(self.assessment.verdict.value,
                           self.review.policy.intent_gate) == "warn":
            # Recorded, not raised: a project's `filterwarnings = error` must not turn the
            # gate's "reported, not failed" into a failure (see notices.py).
            record_warning(self.ihook, IntentWarning(
                "SUSPICIOUS (not failed: --secreview-intent-gate=lie)\n"
                + format_assessment(self.assessment, self.evidence)),
                nodeid=self.nodeid, when="runtest")

    def failure_text(self, exc: BaseException) -> str | None:
        if isinstance(exc, IntentFailure):
            return ("the change does not do (only) what its description says\n\n"
                    + format_assessment(exc.assessment, exc.evidence))
        return super().failure_text(exc)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(self.rule.source), 0, f"{self.rule.id}: {self.rule.title} [{PR_PATH}]"
