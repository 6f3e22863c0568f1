"""Evaluate one target: deterministic checks, then (when the rule needs one) the agentic
review. Returns an :class:`Evaluation`; raising :class:`EvaluationError` means the item
errors, never that it passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..analysis.session import TaintSession
from ..errors import EvaluationError
from ..rules.matcher import Target
from .deterministic import record_verdicts, run_detect, run_taint
from .findings import Finding

#: Why an item that needs a model was not reviewed by one.
NO_MODEL_REASON = (
    "rule needs a model and none is configured; deterministic checks ran. Set "
    "--secreview-model (or secreview_model / SECREVIEW_MODEL), e.g. google/gemini-2.5-pro"
)


@dataclass(frozen=True)
class Evaluation:
    """What evaluating one item produced."""

    findings: tuple[Finding, ...]
    mode: str  # "deterministic", or the agent's mode: "native", "prompt", "single-shot"
    usage: dict[str, Any] = field(default_factory=dict)
    not_reviewed: str | None = None  # set when part of the review could not run, and why
    cached: bool = False
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = field(default_factory=dict)  # prompts and tools sent to the model


@dataclass(frozen=True)
class AgentOutput:
    """What the model review of one target produced."""

    findings: list[Finding]
    mode: str
    usage: dict[str, Any]
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = field(default_factory=dict)
    cached: bool = False
    not_reviewed: str | None = None  # the model review was withheld, and why


#: Runs the agentic review of a target given the deterministic findings. Supplied by the
#: plugin when a model is configured.
AgentReview = Callable[[Target, tuple[Finding, ...]], AgentOutput]


def evaluate(
    target: Target,
    agent: AgentReview | None,
    keep: Callable[[Finding], bool] = lambda f: True,
    taint: TaintSession | None = None,
) -> Evaluation:
    """Evaluate ``target``. ``keep`` is the team's finding filter (a conftest hook);
    ``taint`` (the review's dataflow session) runs the rule's ``taint:`` section."""
    flows, taint_not_reviewed = run_taint(target.rule, target.file, taint)
    dataflow = bool(target.rule.taint and taint and taint.covers(target.file.path)
                    and taint_not_reviewed is None)
    deterministic = [*run_detect(target.rule, target.file, dataflow=dataflow), *flows]
    findings = list(deterministic)
    mode = "deterministic"
    usage: dict[str, Any] = {}
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = {}
    cached = False
    not_reviewed = taint_not_reviewed
    if target.rule.needs_model:
        if agent is None:
            not_reviewed = "; ".join(r for r in (taint_not_reviewed, NO_MODEL_REASON) if r)
        else:
            try:
                output = agent(target, tuple(deterministic))
            except EvaluationError as exc:
                # The model review broke; what the patterns found still stands.
                exc.findings = tuple(sorted(_dedupe(f for f in findings if keep(f)),
                                            key=Finding.sort_key))
                raise
            findings = [*record_verdicts(findings, output.findings), *output.findings]
            mode, usage, transcript = output.mode, output.usage, output.transcript
            sent, cached = output.sent, output.cached
            not_reviewed = output.not_reviewed or taint_not_reviewed
    kept = sorted(_dedupe(f for f in findings if keep(f)), key=Finding.sort_key)
    return Evaluation(tuple(kept), mode, usage, not_reviewed, cached=cached,
                      transcript=transcript, sent=sent)


def _dedupe(findings: Any) -> list[Finding]:
    # The same line flagged by a pattern and by the model is one finding: keep the first
    # (patterns come first, so a deterministic finding is never replaced).
    seen: set[tuple[str, int, str]] = set()
    unique = []
    for finding in findings:
        key = (finding.path, finding.line, finding.fingerprint or finding.title)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique
