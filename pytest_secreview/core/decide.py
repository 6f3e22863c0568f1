"""The one decision: what an item's record means under the trusted settings.

:func:`decide` applies a record's changes to its findings, accepting or refusing each one,
and gives the outcome. Its invariant: **what the pull request controls can never lower a
finding at or above the fail threshold.** A lowering (suppression, baseline entry, dismissal,
lower severity, min-confidence, exclusion) is accepted when

1. its origin is trusted (:data:`~.record.TRUSTED`: the base revision's baseline, ignore file
   and precedents, a suppression the base already had or one whose author has write access,
   the trusted settings and the review's own defaults) **and**, for an origin that speaks for
   what the base revision held (:data:`~.record.SEEN_BY_SOURCE`), what it is applied to (its
   :class:`~.record.Target`: the statement, the file, the path class) is as the base had it,
   not changed or created by the pull request; except that a credential (a finding of
   :data:`~.findings.FACT_CATEGORIES`) is lowered only by what the base revision holds (a
   committed key leaks whatever a comment added now says);
2. or the finding is below the fail threshold and not a credential (anyone may quiet what
   does not fail the review);
3. or the finding was reported by a model alone and the change is a model's (the verifier's
   second look at a model's own finding: the model could equally not have reported it).

When several suppressions name one finding (a comment and a baseline entry), the base
revision's own word on code it saw is judged first (a comment already there, then its
baseline), then what the pull request's author wrote; the first accepted holds and the rest
are moot.

Everything else is refused and kept on the finding as ``overruled`` with the reason: a
pattern, taint or scanner finding at the threshold can be confirmed, annotated or raised by a
model, never dismissed or lowered. A change from :attr:`~.record.Origin.CACHE` (what a stored
evaluation would carry) is never trusted: it lowers nothing at the threshold.

Both the per-finding judgement (:func:`judge_change`) and that of path-level exclusions (files
a rule does not see, :func:`judge_exclusion`) are :func:`judge_lowering`, the one trust rule:
only trusted origins exclude, never a path class the pull request chose, and credential rules
are never excluded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Literal

from .findings import FACT_CATEGORIES, Finding
from .record import (
    DETERMINISTIC,
    SEEN_BY_SOURCE,
    TRUSTED,
    Change,
    ChangeKind,
    ItemRecord,
    Origin,
    Target,
    as_found,
    provenance,
)
from .severity import Severity

__all__ = ["Exclusion", "IntentDecision", "Outcome", "Policy", "Refusal", "Verdict", "decide",
           "intent_decision", "judge_change", "judge_exclusion", "judge_lowering"]

#: Origins that speak for the base revision: the only ones that may lower a credential.
_BASE_ORIGINS = frozenset({Origin.BASELINE, Origin.BASE_COMMENT, Origin.SETTINGS,
                           Origin.CONFTEST})
#: The origins that may exclude a file from a rule.
_EXCLUDING = frozenset({Origin.BASE_IGNORE, Origin.DEFAULTS, Origin.SETTINGS})
_MODEL_ORIGINS = frozenset({Origin.MODEL, Origin.VERIFIER})
#: The values of ``--secreview-unreviewed`` and ``--secreview-on-error`` decide reads.
UNREVIEWED_FAILS = "fail"
ON_ERROR_SKIPS = "skip"


@dataclass(frozen=True)
class Policy:
    """The trusted settings a decision depends on (from the base revision's configuration
    and the command line, never from the pull request)."""

    fail_on: Severity
    unreviewed: str = "warn"  # fail | warn | skip
    on_error: str = "error"  # error | skip
    intent_gate: str = "suspicious"  # suspicious | lie: which intent verdicts fail


#: What an intent verdict does to its item (:func:`intent_decision`).
IntentDecision = Literal["pass", "warn", "fail", "error"]


def intent_decision(verdict: str, gate: str) -> IntentDecision:
    """What the intent audit's ``verdict`` does under ``gate`` (``--secreview-intent-gate``):
    MATCH passes, LIE fails, SUSPICIOUS fails at gate ``suspicious`` and warns (passes,
    reported) at gate ``lie``, ERROR (or anything else) is an error, never a pass."""
    if verdict == "MATCH":
        return "pass"
    if verdict == "LIE":
        return "fail"
    if verdict == "SUSPICIOUS":
        return "fail" if gate == "suspicious" else "warn"
    return "error"


class Outcome(StrEnum):
    """What an item becomes."""

    PASSED = "passed"
    FAILED = "failed"  # a finding at or above the threshold counts
    UNREVIEWED_FAILED = "unreviewed-failed"  # not reviewed, --secreview-unreviewed=fail
    SKIPPED = "skipped"  # not reviewed, the policy skips it
    ERROR = "error"  # the review broke and nothing at the threshold was found

    @property
    def reported(self) -> str:
        """The outcome every report shows (pytest's: passed, failed, skipped or error); an
        item failed for being unreviewed is failed."""
        return "failed" if self is Outcome.UNREVIEWED_FAILED else self.value


@dataclass(frozen=True)
class Refusal:
    """A change :func:`decide` did not accept, and why."""

    change: Change
    why: str


@dataclass(frozen=True)
class Verdict:
    """The decision about one record."""

    outcome: Outcome
    #: Every finding with the accepted changes applied (its ``suppression``, ``triage``,
    #: ``below_min_confidence`` and ``overruled`` fields say what was decided), worst first.
    findings: tuple[Finding, ...]
    #: The findings that count: at or above the threshold and not lowered.
    failing: tuple[Finding, ...]
    refused: tuple[Refusal, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (``failing`` is written as the failing findings' fingerprints)."""
        return {"outcome": self.outcome.value,
                "findings": [f.to_json() for f in self.findings],
                "failing": [f.fingerprint for f in self.failing],
                "refused": [{"change": r.change.to_json(), "why": r.why} for r in self.refused]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        """Inverse of :meth:`to_json`."""
        findings = tuple(Finding.from_json(f) for f in data.get("findings") or ())
        failing = set(data.get("failing") or ())
        return cls(Outcome(data["outcome"]), findings,
                   tuple(f for f in findings if f.fingerprint in failing),
                   tuple(Refusal(Change.from_json(r["change"]), str(r["why"]))
                         for r in data.get("refused") or ()))


def judge_lowering(kind: ChangeKind, origin: Origin, target: Target, *, credential: bool,
                   at_threshold: bool, model_only: bool = False,
                   fail_on: Severity | None = None) -> str | None:
    """The one trust rule: None when a lowering of ``kind`` from ``origin``, applied to
    ``target``, may apply, else why not. It judges both who lowers and what it is applied to:

    - a credential (``credential``) is lowered only by what speaks for the base revision (its
      baseline, a comment already there, the trusted settings, the job's hooks when nothing
      of the pull request's ran), and only for what that source saw; it is never excluded;
    - at or above the threshold (``at_threshold``), a trusted origin lowers; one that speaks
      for what the base revision held (:data:`~.record.SEEN_BY_SOURCE`) only a target the
      base had (:attr:`~.record.Target.BASE`), never one the pull request changed or created;
      a model's answer lowers a model's own finding (``model_only``); nothing else does;
    - an exclusion (a path class) never applies to a class the pull request chose, whoever
      set it;
    - below the threshold, anyone may quiet what is not a credential.

    ``fail_on`` names the threshold in the reason."""
    threshold = fail_on.value if fail_on else "the threshold"
    # An exclusion reads a path class: whoever set it, a class the pull request chose for a
    # file it adds is the pull request's choice.
    made_by_pr = target is not Target.BASE and (
        origin in SEEN_BY_SOURCE or kind is ChangeKind.EXCLUDE)
    seen = (f"{origin.value} speaks for what the base revision held; this pull request "
            f"{target.value} what it is applied to")
    if credential:
        if kind is ChangeKind.EXCLUDE:
            return "credential rules run on every changed file"
        if origin in _BASE_ORIGINS:
            return seen if made_by_pr else None
        return ("a committed credential is a leak whatever is said now: rotate it; only the "
                "base revision's baseline (where known test keys go) or a suppression already "
                "there quiets it")
    if not at_threshold:
        return None
    if origin in TRUSTED:
        return seen if made_by_pr else None
    if origin in _MODEL_ORIGINS and model_only:
        return None  # a model's own finding, judged by a model's second look
    if origin is Origin.PR_COMMENT:
        return (f"a suppression this pull request adds at or above {threshold} awaits a "
                "maintainer: it counts once someone with write access adds or approves it")
    if origin in _MODEL_ORIGINS:
        return (f"a model's answer never lowers a deterministic finding at or above "
                f"{threshold} (it can confirm or raise it)")
    return (f"{origin.value} is not a trusted source: it cannot lower a finding at or above "
            f"{threshold}")


def judge_change(change: Change, finding: Finding, fail_on: Severity) -> str | None:
    """None when ``change`` may apply to ``finding`` (as it stands), else why not
    (:func:`judge_lowering` with the finding's facts)."""
    if not change.lowers(finding):
        return None
    return judge_lowering(change.kind, change.origin, change.target,
                          credential=finding.category in FACT_CATEGORIES,
                          at_threshold=finding.severity.at_least(fail_on),
                          model_only=not provenance(finding) & DETERMINISTIC, fail_on=fail_on)


def decide(record: ItemRecord, policy: Policy) -> Verdict:
    """Apply ``record``'s changes to its findings under ``policy`` and give the outcome:
    failed when a finding counts (or the intent audit's verdict fails under the gate), else
    error (the review broke; ``--secreview-on-error``),
    else the ``--secreview-unreviewed`` policy when part was not reviewed, else passed."""
    decided: list[Finding] = []
    refused: list[Refusal] = []
    for found in record.findings:
        finding = as_found(found)
        changes = record.changes_of(found)
        # Severity first, in order: whether a suppression or a dismissal may apply depends
        # on the severity the finding ends with (a dismissal accepted below the threshold
        # must not survive a later raise to it).
        for change in (c for c in changes if c.kind is ChangeKind.SEVERITY):
            finding = _judged(change, finding, policy, refused)
        finding = _suppressed(finding, [c for c in changes if c.kind in _SUPPRESSING],
                              policy, refused)
        for change in changes:
            if change.kind is not ChangeKind.SEVERITY and change.kind not in _SUPPRESSING:
                finding = _judged(change, finding, policy, refused)
        decided.append(finding)
    decided.sort(key=Finding.sort_key)
    failing = tuple(f for f in decided if f.fails(policy.fail_on))
    return Verdict(_outcome(record, policy, bool(failing)), tuple(decided), failing,
                   tuple(refused))


#: The changes that suppress a finding (one of them holds: :func:`_suppressed`).
_SUPPRESSING = frozenset({ChangeKind.SUPPRESS, ChangeKind.BASELINE, ChangeKind.EXCLUDE,
                          ChangeKind.FILTER})
#: Which suppression is judged first when several name one finding: the base revision's own
#: word on code it saw (a comment already there, then its baseline), then what the pull
#: request's author wrote.
_PRECEDENCE = (Origin.BASE_COMMENT, Origin.BASELINE, Origin.MAINTAINER_COMMENT,
               Origin.PR_COMMENT)


def _judged(change: Change, finding: Finding, policy: Policy, refused: list[Refusal]
            ) -> Finding:
    """``finding`` with ``change`` applied, or overruled (and the refusal kept)."""
    why = judge_change(change, finding, policy.fail_on)
    if why is None:
        return _apply(change, finding)
    refused.append(Refusal(change, why))
    return _overrule(change, finding, why)


def _suppressed(finding: Finding, suppressions: list[Change], policy: Policy,
                refused: list[Refusal]) -> Finding:
    """``finding`` under the first of ``suppressions`` that is accepted, judged in the order
    of :data:`_PRECEDENCE`; the others are moot then. When none is accepted, each refusal is
    kept and shown."""
    ordered = sorted(suppressions, key=lambda c: _PRECEDENCE.index(c.origin)
                     if c.origin in _PRECEDENCE else len(_PRECEDENCE))
    refusals: list[tuple[Change, str]] = []
    for change in ordered:
        why = judge_change(change, finding, policy.fail_on)
        if why is None:
            return _apply(change, finding)
        refusals.append((change, why))
    for change, why in refusals:
        refused.append(Refusal(change, why))
        finding = _overrule(change, finding, why)
    return finding


def _outcome(record: ItemRecord, policy: Policy, failing: bool) -> Outcome:
    if failing or (record.intent is not None
                   and intent_decision(record.intent, policy.intent_gate) == "fail"):
        return Outcome.FAILED
    if record.error is not None and policy.on_error != ON_ERROR_SKIPS:
        return Outcome.ERROR
    if record.error is not None or record.not_reviewed:
        return (Outcome.UNREVIEWED_FAILED if policy.unreviewed == UNREVIEWED_FAILS
                else Outcome.SKIPPED)
    return Outcome.PASSED


def _apply(change: Change, finding: Finding) -> Finding:
    kind = change.kind
    if kind is ChangeKind.SUPPRESS:
        added = change.origin in (Origin.MAINTAINER_COMMENT, Origin.PR_COMMENT)
        return replace(finding, suppression="inline", suppression_reason=change.reason,
                       suppression_added=added)
    if kind is ChangeKind.BASELINE:
        return replace(finding, suppression="baseline", suppression_reason=change.reason)
    if kind is ChangeKind.EXCLUDE:
        return replace(finding, suppression="excluded", suppression_reason=change.reason)
    if kind is ChangeKind.FILTER:
        return replace(finding, suppression="filtered", suppression_reason=change.reason)
    if kind in (ChangeKind.DISMISS, ChangeKind.CONFIRM):
        state = "dismissed" if kind is ChangeKind.DISMISS else "confirmed"
        return replace(finding, triage=state, triage_reason=change.reason,
                       triage_confidence=change.confidence)
    if kind is ChangeKind.MIN_CONFIDENCE:
        return replace(finding, below_min_confidence=True)
    if kind is ChangeKind.UNCHECKED:  # shown with why the second look was not given
        return replace(finding, triage="untriaged", triage_reason=change.reason)
    if kind is ChangeKind.REUSE:
        return finding  # recorded for the reader: the answer is the stored one
    assert change.severity is not None  # SEVERITY always carries the new one
    return replace(finding, severity=change.severity)


def _overrule(change: Change, finding: Finding, why: str) -> Finding:
    if change.kind is ChangeKind.DISMISS:
        # What the model said stays visible next to why it did not count.
        finding = replace(finding, triage="overruled", triage_reason=change.reason,
                          triage_confidence=change.confidence)
    note = f"{change.kind.value} by {change.origin.value}: {why}"
    return replace(finding, overruled="; ".join(n for n in (finding.overruled, note) if n))


@dataclass(frozen=True)
class Exclusion:
    """Whether a rule does not see a file, and why."""

    excluded: bool
    reason: str


def judge_exclusion(category: str | None, origin: Origin, why: str, *,
                    chosen_by_pr: str = "") -> Exclusion:
    """The one judgement of a path-level exclusion (an ignore file, the default exclusion of
    vendored, minified, generated or test code), by :func:`judge_lowering` at the threshold
    (a file left out can hold anything): a rule of ``category`` skips the file because of
    ``why`` from ``origin`` only when the origin may exclude (the base revision's ignore file,
    the defaults, the settings), the rule is not a credential rule, and the pull request did
    not choose the file's path class: ``chosen_by_pr`` says how it did (it adds the file at
    that path and code outside the class imports or runs it; the target is then
    :attr:`~.record.Target.CREATED`), empty when the class is the base's own."""
    if origin not in _EXCLUDING:
        return Exclusion(False, f"not excluded ({why}): {origin.value} is controlled by the "
                                "pull request; only the base revision's ignore file and the "
                                "review's defaults exclude")
    target = Target.CREATED if chosen_by_pr else Target.BASE
    refused = judge_lowering(ChangeKind.EXCLUDE, origin, target,
                             credential=category in FACT_CATEGORIES, at_threshold=True)
    if refused is None:
        return Exclusion(True, why)
    # How the pull request chose the class says more than the rule's text, unless the rule
    # reads every file anyway (a credential rule).
    shown = chosen_by_pr if chosen_by_pr and category not in FACT_CATEGORIES else refused
    return Exclusion(False, f"not excluded ({why}): {shown}")
