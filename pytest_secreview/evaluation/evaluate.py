"""Evaluate one target: deterministic checks, then (when the rule needs one) the agentic
review. Returns an :class:`Evaluation`; raising :class:`EvaluationError` means the item
errors, never that it passes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..agent.output import AgentOutput
from ..core.findings import Finding, number_occurrences
from ..core.problems import one_per_problem
from ..core.record import Change, ChangeKind, Origin
from ..errors import EvaluationError
from ..rules.matcher import DataflowTarget, Target
from ..usage_counts import USAGE_COUNTS
from .dataflow import record_verdicts, run_taint, with_flows
from .deterministic import run_detect

if TYPE_CHECKING:  # the scanner and dataflow layers load when a rule uses them
    from ..analysis.session import TaintSession
    from ..scanners.session import ScannerSession
    from .review import ModelReviewer

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
    #: Several models: what each one reported (see :mod:`.consensus`); empty with one model.
    assessments: tuple[dict[str, Any], ...] = ()
    #: Fix mode: one JSON-safe :class:`~pytest_secreview.fix.result.FixResult` per finding.
    fixes: tuple[dict[str, Any], ...] = ()
    #: What the judges said of the findings after evaluation (the code's suppression comments
    #: and the baseline): changes with their origin and target, judged by ``core.decide``.
    changes: tuple[Change, ...] = ()
    #: The model review broke, and why: the evaluation is partial (what the deterministic
    #: checks found, and with several models what their consensus counted, still stands).
    error: str | None = None


@dataclass(frozen=True)
class FindingFilter:
    """The job's ``pytest_secreview_filter_finding`` hook as a judge: the findings it drops
    are kept, each with a ``filter`` change of ``origin`` (``conftest``, or ``pr-files``
    when code of the pull request ran in pytest's start-up and may be the hook), which
    ``core.decide`` judges like any lowering."""

    keeps: Callable[[Finding], bool]
    origin: Origin = Origin.CONFTEST
    why: str = "dropped by the pytest_secreview_filter_finding hook"

    def changes(self, findings: Sequence[Finding]) -> tuple[Change, ...]:
        """A ``filter`` change for each of ``findings`` the hook drops."""
        return tuple(Change(f.fingerprint, ChangeKind.FILTER, self.origin, self.why)
                     for f in findings if not self.keeps(f))


#: No hook: every finding is kept.
KEEP_ALL = FindingFilter(lambda finding: True)


class Reviewer(Protocol):
    """The model review of a session (``ReviewState.agent``), present when a model is
    configured: one model (:class:`~.review.ModelReviewer`) or several
    (:class:`~.consensus.ConsensusReview`)."""

    @property
    def primary(self) -> ModelReviewer:
        """The first model: it also verifies, triages, audits intent, fixes and answers."""

    @property
    def reviewers(self) -> tuple[ModelReviewer, ...]:
        """Every model that reviews (the primary first)."""

    def __call__(self, target: Target, deterministic: tuple[Finding, ...]) -> AgentOutput:
        """The agentic review of ``target`` given the deterministic findings."""

    def verify_findings(self, target: Target, findings: tuple[Finding, ...]
                        ) -> tuple[tuple[Change, ...], dict[str, Any]]:
        """The second look: confirms or dismisses an item's pattern and scanner findings and
        the model's findings at the fail threshold (see :mod:`pytest_secreview.triage.verify`
        and :mod:`pytest_secreview.triage.verifier`); returns the changes its answers claim
        (findings are named by fingerprint: ``findings`` have distinct ones) and the usage
        of the check ({} when it asked no model)."""


def evaluate(
    target: Target,
    agent: Reviewer | None,
    keep: FindingFilter = KEEP_ALL,
    scanners: ScannerSession | None = None,
    taint: TaintSession | None = None,
    deterministic_review: bool = False,
) -> Evaluation:
    """Evaluate ``target``. ``keep`` is the job's finding filter (a conftest hook: what it
    drops is kept with a ``filter`` change, and given no second look);
    ``scanners`` runs a rule's ``scanner:`` (once per session); ``taint`` (the review's
    dataflow session) runs the rule's ``taint:`` section; ``agent`` (None: no model) reviews
    the rules that need a model and takes the second look. ``deterministic_review``: no
    model is configured and the review says so once (the item ran the rule's deterministic
    checks, which is all it was collected for), so the missing model is not an unreviewed
    part of each item."""
    if isinstance(target, DataflowTarget):
        return _dataflow_only(target, taint, keep)
    deterministic: list[Finding] = []
    taint_not_reviewed: str | None = None
    # A batch of the general review holds several files: each one's own checks.
    for file in {part.file.path: part.file for part in target.parts}.values():
        flows, not_analysed = run_taint(target.rule, file, taint)
        taint_not_reviewed = taint_not_reviewed or not_analysed
        dataflow = bool(target.rule.taint and taint and taint.covers(file.path)
                        and not_analysed is None)
        deterministic += with_flows(run_detect(target.rule, file, dataflow=dataflow,
                                               head=_head_reader(taint, file.path)), flows)
    scan = None
    if target.rule.scanner is not None:  # an external scanner's findings are deterministic too
        from ..scanners.session import scan_target

        scan = scan_target(target, scanners, deterministic)
        deterministic = [*deterministic, *scan.findings]
    findings = list(deterministic)
    mode = "deterministic"
    usage: dict[str, Any] = {}
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] = {}
    cached = False
    assessments: tuple[dict[str, Any], ...] = ()
    not_reviewed = taint_not_reviewed
    if target.rule.needs_model:
        if agent is None:
            missing = None if deterministic_review else NO_MODEL_REASON
            not_reviewed = "; ".join(r for r in (taint_not_reviewed, missing) if r) or None
        else:
            try:
                output = agent(target, tuple(deterministic))
            except EvaluationError as exc:
                return _partial(exc, [*findings, *exc.findings], keep)
            findings = [*record_verdicts(findings, output.findings), *output.findings]
            mode, usage, transcript = output.mode, output.usage, output.transcript
            sent, cached, assessments = output.sent, output.cached, output.assessments
            not_reviewed = output.not_reviewed or taint_not_reviewed
    if scan is not None:
        usage = {**usage, "scanner": scan.info}
        if scan.note:
            not_reviewed = f"{scan.note}; {not_reviewed}" if not_reviewed else scan.note
    kept, dropped = _problems(findings, keep)
    filtered = {change.fingerprint for change in dropped}
    verdicts, usage = _triage(target, [f for f in kept if f.fingerprint not in filtered],
                              usage, agent)
    return Evaluation(kept, mode, usage, not_reviewed, cached=cached,
                      transcript=transcript, sent=sent, assessments=assessments,
                      changes=(*dropped, *verdicts))


def _head_reader(taint: TaintSession | None, path: str) -> Callable[[], bytes | None] | None:
    """How the deterministic checks read ``path`` at head: through the dataflow session's
    file source (the changed Python files, read from git once), else not at all."""
    if taint is None or not taint.covers(path):
        return None
    files = taint.files
    return lambda: files.head(path)


def _problems(findings: Iterable[Finding], keep: FindingFilter
              ) -> tuple[tuple[Finding, ...], tuple[Change, ...]]:
    """Each problem once (:func:`~..core.problems.one_per_problem`), worst first, identical
    lines told apart (a change names its finding by fingerprint), and the ``filter``
    changes of the ones ``keep`` drops."""
    kept = tuple(number_occurrences(sorted(one_per_problem(findings), key=Finding.sort_key)))
    return kept, keep.changes(kept)


def _partial(exc: EvaluationError, found: list[Finding], keep: FindingFilter) -> Evaluation:
    """The evaluation of a broken model review: what the patterns found still stands (with
    several models, what their consensus counted too), with what was spent and why it
    broke."""
    kept, dropped = _problems(found, keep)
    usage = dict(exc.usage_record or {})
    return Evaluation(kept, usage.get("mode", "error"), usage,
                      not_reviewed=f"model review failed: {exc}",
                      assessments=tuple(exc.assessments), error=str(exc), changes=dropped)


def _dataflow_only(target: DataflowTarget, taint: TaintSession | None,
                   keep: FindingFilter) -> Evaluation:
    """A rule's flows in the files its grep selected nothing in: the dataflow alone decides."""
    findings: list[Finding] = []
    why: list[str] = []
    for part in target.parts:
        flows, not_analysed = run_taint(target.rule, part.file, taint)
        findings += flows
        if not_analysed:
            why.append(f"{part.file.path}: {not_analysed}")
    kept, dropped = _problems(findings, keep)
    return Evaluation(kept, "deterministic", {}, "; ".join(why) or None, changes=dropped)


def _triage(target: Target, findings: list[Finding], usage: dict[str, Any],
            agent: Reviewer | None) -> tuple[tuple[Change, ...], dict[str, Any]]:
    """Generate, then verify: with a model, the findings go to its second look (which picks
    the pattern and scanner findings, and the model's own at the fail threshold); without
    one, pattern and scanner findings stand, each answered "unchecked". Returns the changes
    the answers claim and the usage with the look's."""
    if agent is None:
        if not any(f.source == "pattern" or f.source.startswith("scanner:") for f in findings):
            return (), usage
        from ..triage.verify import answer_changes, unchecked  # loaded only when needed

        return answer_changes(findings, unchecked(findings, "no model configured to verify "
                                                            "it")), usage
    verdicts, check_usage = agent.verify_findings(target, tuple(findings))
    if not check_usage:  # nothing was asked of a model (or it failed before answering)
        return verdicts, usage
    merged = dict(usage) or {k: 0 for k in USAGE_COUNTS}
    for key in USAGE_COUNTS:
        merged[key] = int(merged.get(key) or 0) + int(check_usage.get(key) or 0)
    if check_usage.get("model_calls"):
        costs = (merged.get("cost_usd", 0.0), check_usage.get("cost_usd"))
        merged["cost_usd"] = None if None in costs else round(sum(costs), 6)
        merged.setdefault("models", check_usage.get("models", []))
    merged["verify"] = check_usage
    return verdicts, merged
