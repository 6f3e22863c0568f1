"""Several models at once: each model reviews the item on its own, and the consensus policy
(``--secreview-consensus any|majority|all``) decides which model findings count.

A model finding counts when its location (path, line) was reported by any model, by more than
half of the models configured, or by every model. The denominator is every model configured,
so a model that errored counts as one that did not report the location: under ``all`` an
error means no model finding can count. Any model error makes the item an error (an
:class:`EvaluationError`, which ``--secreview-on-error`` may turn into "not reviewed") unless
what counts fails it anyway: never a pass that hides an error. Deterministic findings are not
decided here; they always stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..agent.output import AgentOutput, required_votes, sum_usage
from ..core.findings import Finding
from ..core.record import Change
from ..errors import EvaluationError
from ..options import CONSENSUS_POLICIES
from ..rules.matcher import Target
from .evaluate import Reviewer

if TYPE_CHECKING:
    from .review import ModelReviewer

def _provider(model_id: str) -> str:
    return model_id.split(":", 1)[0] if ":" in model_id else (
        "vertex" if "/" in model_id else "custom")


@dataclass(frozen=True)
class _Result:
    model: str
    output: AgentOutput | None
    error: EvaluationError | None

    def assessment(self) -> dict[str, Any]:
        usage = dict(self.output.usage if self.output is not None
                     else (self.error.usage_record or {}) if self.error is not None else {})
        usage.pop("transcript", None)
        usage.pop("sent", None)
        return {
            "provider": _provider(self.model), "model": self.model,
            "findings": [f.to_json() for f in (self.output.findings if self.output else [])],
            "usage": usage,
            "error": str(self.error) if self.error is not None else None,
        }


class ConsensusReview:
    """A :class:`~.evaluate.Reviewer` over several :class:`ModelReviewer`, one per model."""

    def __init__(self, reviewers: Sequence[ModelReviewer], policy: str) -> None:
        if policy not in CONSENSUS_POLICIES:
            raise ValueError(f"consensus {policy!r}: choose one of {CONSENSUS_POLICIES}")
        self.reviewers = tuple(reviewers)
        self.policy = policy
        #: The first model also verifies pattern findings, audits intent and triages.
        self.primary = self.reviewers[0]
        self.pull_request = self.primary.pull_request

    def verify_findings(self, target: Target, findings: tuple[Finding, ...]
                        ) -> tuple[tuple[Change, ...], dict[str, Any]]:
        """The first model's second look."""
        return self.primary.verify_findings(target, findings)

    def __call__(self, target: Target, deterministic: tuple[Finding, ...]) -> AgentOutput:
        if target.rule.model:  # a rule that names its own model is reviewed by it, once
            return self.primary(target, deterministic)
        results: list[_Result] = []
        for reviewer in self.reviewers:
            name = reviewer.loop_for(target).model.model_id
            try:
                results.append(_Result(name, reviewer(target, deterministic), None))
            except EvaluationError as exc:  # the other models still review
                results.append(_Result(name, None, exc))
        need = required_votes(self.policy, len(results))
        votes: dict[tuple[str, int], int] = {}
        for result in results:
            if result.output is not None:
                for key in {(f.path, f.line) for f in result.output.findings}:
                    votes[key] = votes.get(key, 0) + 1
        counted = [f for r in results if r.output is not None for f in r.output.findings
                   if votes[(f.path, f.line)] >= need]
        assessments = tuple(r.assessment() for r in results)
        usage = sum_usage([a["usage"] for a in assessments])
        usage["consensus"] = {"policy": self.policy, "models": len(results),
                              "required": need}
        failed = [r for r in results if r.error is not None]
        if failed:
            error = EvaluationError("; ".join(f"model {r.model} failed: {r.error}"
                                              for r in failed))
            error.usage_record = {**usage, "mode": "error"}
            error.findings = tuple(counted)
            error.assessments = assessments
            raise error
        first = next(r.output for r in results if r.output is not None)
        not_reviewed = "; ".join(dict.fromkeys(
            r.output.not_reviewed for r in results if r.output and r.output.not_reviewed))
        return AgentOutput(
            findings=counted, mode=first.mode, usage=usage, transcript=first.transcript,
            sent=first.sent, cached=all(r.output.cached for r in results if r.output),
            not_reviewed=not_reviewed or None, assessments=assessments,
        )


def consensus_review(reviewers: Sequence[ModelReviewer], policy: str) -> Reviewer:
    """One model: its reviewer itself (output exactly as before); several: the consensus."""
    return reviewers[0] if len(reviewers) == 1 else ConsensusReview(reviewers, policy)
