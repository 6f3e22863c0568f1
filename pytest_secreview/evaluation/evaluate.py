"""Evaluate one target: deterministic checks, then (when the rule needs one) the agentic
review. Returns an :class:`Evaluation`; raising :class:`EvaluationError` means the item
errors, never that it passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import EvaluationError
from ..rules.matcher import Target
from .deterministic import run_detect
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

#: Confirms or dismisses an item's pattern and scanner findings (see
#: :mod:`pytest_secreview.triage.verify`); returns every finding and the usage of the check.
Verifier = Callable[[Target, tuple[Finding, ...]], tuple[tuple[Finding, ...], dict[str, Any]]]

_USAGE_SUMS = ("model_calls", "tool_calls", "input_tokens", "output_tokens", "cached_tokens",
               "reasoning_tokens")


def evaluate(
    target: Target,
    agent: AgentReview | None,
    keep: Callable[[Finding], bool] = lambda f: True,
    verify: Verifier | None = None,
) -> Evaluation:
    """Evaluate ``target``. ``keep`` is the team's finding filter (a conftest hook);
    ``verify`` the model's check of pattern and scanner findings (None: no model)."""
    # A batch of the general review holds several files: each one's own checks.
    files = {part.file.path: part.file for part in target.parts}.values()
    deterministic = [f for file in files for f in run_detect(target.rule, file)]
    findings = list(deterministic)
    mode = "deterministic"
    usage: dict[str, Any] = {}
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = {}
    cached = False
    not_reviewed = None
    if target.rule.needs_model:
        if agent is None:
            not_reviewed = NO_MODEL_REASON
        else:
            try:
                output = agent(target, tuple(deterministic))
            except EvaluationError as exc:
                # The model review broke; what the patterns found still stands.
                exc.findings = tuple(sorted(_dedupe(f for f in findings if keep(f)),
                                            key=Finding.sort_key))
                raise
            findings.extend(output.findings)
            mode, usage, transcript = output.mode, output.usage, output.transcript
            sent, cached = output.sent, output.cached
            not_reviewed = output.not_reviewed
    kept = sorted(_dedupe(f for f in findings if keep(f)), key=Finding.sort_key)
    kept, usage = _triage(target, kept, usage, verify)
    return Evaluation(tuple(kept), mode, usage, not_reviewed, cached=cached,
                      transcript=transcript, sent=sent)


def _triage(target: Target, findings: list[Finding], usage: dict[str, Any],
            verify: Verifier | None) -> tuple[list[Finding], dict[str, Any]]:
    """Generate, then verify: pattern and scanner findings go to the model's check when there
    is a model; without one they stand, marked untriaged."""
    if not any(f.source == "pattern" or f.source.startswith("scanner:") for f in findings):
        return findings, usage
    from ..triage.verify import untriaged  # loaded only when there is something to check

    if verify is None:
        return untriaged(findings, "no model configured to verify it"), usage
    checked, check_usage = verify(target, tuple(findings))
    merged = dict(usage) or {k: 0 for k in _USAGE_SUMS}
    for key in _USAGE_SUMS:
        merged[key] = int(merged.get(key) or 0) + int(check_usage.get(key) or 0)
    if check_usage.get("model_calls"):
        costs = (merged.get("cost_usd", 0.0), check_usage.get("cost_usd"))
        merged["cost_usd"] = None if None in costs else round(sum(costs), 6)
        merged.setdefault("models", check_usage.get("models", []))
    merged["verify"] = check_usage
    return sorted(checked, key=Finding.sort_key), merged


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
