"""An item's result as one typed record: what it found, and every change made afterwards.

:class:`ItemRecord` is the one thing an item hands to the report: every finding as its check
produced it (with its provenance, :func:`provenance`), every :class:`Change` made to one of
them later (an inline suppression, a baseline entry, a model's dismissal, a severity change,
``--secreview-min-confidence``, reuse from the evaluation cache or of another item's verdict),
each with its :class:`Origin` (where the change came from, which decides whether it is
trusted), and the rest of what the item did (not-reviewed reason, error, mode, usage, cache,
assessments, fixes). Whether a change counts is decided in one place, :func:`.decide.decide`;
this module only holds and round-trips the data (frozen dataclasses, JSON-safe).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .findings import Finding
from .severity import Severity

__all__ = ["CONFIRMED", "DETERMINISTIC", "DISMISSED", "LOWERING", "SEEN_BY_SOURCE", "TRUSTED",
           "UNCHECKED", "Answer", "Change", "ChangeKind", "ItemRecord", "Origin", "Provenance",
           "Target", "as_found", "cache_changes", "min_confidence_changes", "provenance"]


class Provenance(StrEnum):
    """Which kind of check found a finding."""

    PATTERN = "pattern"
    TAINT = "taint"
    SCANNER = "scanner"
    MODEL = "model"
    VERIFIER = "verifier"
    SUPPRESSION = "suppression"  # the review's own report about a suppression comment


#: The checks whose findings no model answer can lower at the fail threshold.
DETERMINISTIC = frozenset({Provenance.PATTERN, Provenance.TAINT, Provenance.SCANNER})


def provenance(finding: Finding) -> frozenset[Provenance]:
    """Every check that reported ``finding`` (``pattern+model:x`` was reported by both)."""
    found: set[Provenance] = set()
    for part in finding.source.split("+"):
        kind = part.split(":", 1)[0]
        try:
            found.add(Provenance(kind))
        except ValueError:
            found.add(Provenance.MODEL)  # an unknown source is nothing a rule guarantees
    return frozenset(found)


class ChangeKind(StrEnum):
    """What a change does to a finding."""

    SUPPRESS = "suppress"  # an inline ``secreview: ignore[rule] reason`` comment
    BASELINE = "baseline"  # an entry of --secreview-baseline
    DISMISS = "dismiss"  # a model's triage or the verifier said it is not real
    CONFIRM = "confirm"  # a model's triage or the verifier confirmed it
    SEVERITY = "severity"  # its severity set to ``Change.severity``
    MIN_CONFIDENCE = "min-confidence"  # its stated confidence is below the team's minimum
    EXCLUDE = "exclude"  # its file is one the rule does not see (see decide.judge_exclusion)
    REUSE = "reuse"  # the answer came from the evaluation cache or another item's verdict
    #                  (lowers nothing)
    FILTER = "filter"  # the job's pytest_secreview_filter_finding hook dropped it
    UNCHECKED = "unchecked"  # a second look was due and not given (no model, --secreview-
    #                          verify=false, the model failed): why, in the reason (lowers
    #                          nothing)


#: The kinds that lower a finding (a severity change lowers when it goes down).
LOWERING = frozenset({ChangeKind.SUPPRESS, ChangeKind.BASELINE, ChangeKind.DISMISS,
                      ChangeKind.MIN_CONFIDENCE, ChangeKind.EXCLUDE, ChangeKind.FILTER})


class Origin(StrEnum):
    """Where a change came from. Its trust is :data:`TRUSTED`, never a field one can set."""

    BASELINE = "baseline"  # --secreview-baseline, read from the base revision
    PRECEDENT = "precedent"  # the team's precedents, read from the base revision
    BASE_COMMENT = "base-comment"  # a suppression comment the base revision already had
    MAINTAINER_COMMENT = "maintainer-comment"  # added by the PR; its author has write access
    PR_COMMENT = "pr-comment"  # added by the PR; its author's write access is not established
    SETTINGS = "settings"  # the trusted settings (the base's configuration, the command line)
    CONFTEST = "conftest"  # the job's pytest hooks, when nothing of the pull request's ran
    #                        in pytest's start-up (else PR_FILES)
    BASE_IGNORE = "base-ignore"  # an ignore file read from the base revision
    DEFAULTS = "defaults"  # the review's own defaults (vendored, minified, generated files)
    PR_FILES = "pr-files"  # anything the pull request can place in the work tree
    MODEL = "model"  # a model's answer (steered by the pull request's text)
    VERIFIER = "verifier"  # the verifier model's answer
    CACHE = "cache"  # a stored evaluation: never trusted, never lowers at the threshold


#: The origins whose lowering counts at or above the fail threshold. Everything else is
#: what the pull request controls (its files, its text, a model's answer steered by them,
#: what it can place in the work tree or a cache).
TRUSTED = frozenset({Origin.BASELINE, Origin.PRECEDENT, Origin.BASE_COMMENT,
                     Origin.MAINTAINER_COMMENT, Origin.SETTINGS, Origin.CONFTEST,
                     Origin.BASE_IGNORE, Origin.DEFAULTS})


#: The trusted origins that speak for what the base revision held (an entry of its baseline, a
#: comment already in its code, its ignore file and precedents, the defaults' reading of a path
#: the base had): each lowers only the target it saw, never one the pull request made.
SEEN_BY_SOURCE = frozenset({Origin.BASELINE, Origin.PRECEDENT, Origin.BASE_COMMENT,
                            Origin.BASE_IGNORE, Origin.DEFAULTS})


class Target(StrEnum):
    """What a lowering is applied to, as the pull request left it: the finding's statement
    (a suppression comment, a baseline entry), its file or its path class (an exclusion).
    Stated by whoever makes the change, judged with its origin by ``decide``."""

    BASE = "base"  # as the base revision had it: what a base source saw
    CHANGED = "changed"  # the pull request changed it (a statement under a base comment, a
    #                      line a base baseline entry names only by its text)
    CREATED = "created"  # the pull request created it (a file it adds at a path class it
    #                      chose)


@dataclass(frozen=True)
class Change:
    """One change made to the finding with ``fingerprint`` after it was found."""

    fingerprint: str
    kind: ChangeKind
    origin: Origin
    reason: str = ""
    #: SEVERITY: the new severity; None otherwise.
    severity: Severity | None = None
    #: DISMISS/CONFIRM: how sure the model said it was.
    confidence: float | None = None
    #: What the change is applied to, as the pull request left it (see :class:`Target`).
    target: Target = Target.BASE

    @property
    def trusted(self) -> bool:
        """True when the change's origin is one the pull request does not control."""
        return self.origin in TRUSTED

    def lowers(self, finding: Finding) -> bool:
        """True when applying this change would make ``finding`` count for less."""
        if self.kind is ChangeKind.SEVERITY:
            return self.severity is not None and self.severity.rank < finding.severity.rank
        return self.kind in LOWERING

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict; ``trusted`` is written for readers and ignored when read back."""
        return {"fingerprint": self.fingerprint, "kind": self.kind.value,
                "origin": self.origin.value, "trusted": self.trusted, "reason": self.reason,
                "severity": self.severity.value if self.severity else None,
                "confidence": self.confidence, "target": self.target.value}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Change:
        """Inverse of :meth:`to_json`."""
        severity = data.get("severity")
        return cls(fingerprint=str(data["fingerprint"]), kind=ChangeKind(data["kind"]),
                   origin=Origin(data["origin"]), reason=str(data.get("reason") or ""),
                   severity=Severity(severity) if severity else None,
                   confidence=data.get("confidence"),
                   target=Target(data.get("target") or Target.BASE))


@dataclass(frozen=True)
class ItemRecord:
    """Everything one item produced; rendered by every output, decided by ``decide``."""

    nodeid: str
    rule: str | None
    path: str
    #: Every finding as its check produced it.
    findings: tuple[Finding, ...] = ()
    #: Every change made to one of them afterwards, in the order they were made.
    changes: tuple[Change, ...] = ()
    mode: str = "deterministic"
    usage: dict[str, Any] = field(default_factory=dict)
    not_reviewed: str | None = None
    error: str | None = None
    cached: bool = False
    #: A batch of the general review: every file it holds (empty for one file).
    paths: tuple[str, ...] = ()
    assessments: tuple[dict[str, Any], ...] = ()
    fixes: tuple[dict[str, Any], ...] = ()
    #: The intent audit's verdict on the pull request (MATCH, SUSPICIOUS, LIE or ERROR), judged
    #: under the trusted gate by ``decide``; None for every other item.
    intent: str | None = None

    def changes_of(self, finding: Finding) -> tuple[Change, ...]:
        """The changes made to ``finding``, in order."""
        return tuple(c for c in self.changes if c.fingerprint == finding.fingerprint)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict."""
        return {"nodeid": self.nodeid, "rule": self.rule, "path": self.path,
                "findings": [f.to_json() for f in self.findings],
                "changes": [c.to_json() for c in self.changes], "mode": self.mode,
                "usage": self.usage, "not_reviewed": self.not_reviewed, "error": self.error,
                "cached": self.cached, "paths": list(self.paths),
                "assessments": list(self.assessments), "fixes": list(self.fixes),
                "intent": self.intent}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemRecord:
        """Inverse of :meth:`to_json`."""
        return cls(nodeid=str(data["nodeid"]), rule=data.get("rule"), path=str(data["path"]),
                   findings=tuple(Finding.from_json(f) for f in data.get("findings") or ()),
                   changes=tuple(Change.from_json(c) for c in data.get("changes") or ()),
                   mode=str(data.get("mode") or "deterministic"),
                   usage=dict(data.get("usage") or {}), not_reviewed=data.get("not_reviewed"),
                   error=data.get("error"), cached=bool(data.get("cached")),
                   paths=tuple(data.get("paths") or ()),
                   assessments=tuple(data.get("assessments") or ()),
                   fixes=tuple(data.get("fixes") or ()), intent=data.get("intent"))


#: What a second look can answer about a finding (see :class:`Answer`).
CONFIRMED, DISMISSED, UNCHECKED = "confirmed", "dismissed", "unchecked"


@dataclass(frozen=True)
class Answer:
    """A second look's answer about one finding: the model's triage of a pattern or scanner
    finding, the verifier's look at a model's own, or either one stored and reused. It is
    what the check said, nothing decided: :meth:`changes` makes it the changes
    :func:`.decide.decide` judges, with the origin the finding's provenance gives (never one
    the answer states: a stored answer cannot claim to be trusted)."""

    #: :data:`CONFIRMED`, :data:`DISMISSED`, or :data:`UNCHECKED` (the look was due and not
    #: given; ``reason`` says why).
    state: str
    reason: str
    confidence: float | None = None
    #: With a confirm: the severity the check judged right, when it differs.
    severity: Severity | None = None
    #: Another item of the session asked for this answer (``triage.verdict_store``): which
    #: one; '' for an answer asked here.
    reused_from: str = ""

    @property
    def decided(self) -> bool:
        """True for a confirm or a dismiss (what a store keeps; an unchecked look is asked
        again)."""
        return self.state in (CONFIRMED, DISMISSED)

    def changes(self, finding: Finding) -> tuple[Change, ...]:
        """The changes this answer claims on ``finding``: a dismiss or a confirm (with a
        severity change when it judged another severity) of origin ``model`` for a pattern,
        taint or scanner finding and ``verifier`` for a model's own, a ``reuse`` of origin
        ``cache`` when another item asked, or the note (of the same origin) that the look
        was not given."""
        key = finding.fingerprint
        # Which look it is: the triage of a deterministic finding, the verifier of a model's.
        judge = Origin.MODEL if provenance(finding) & DETERMINISTIC else Origin.VERIFIER
        if self.state == UNCHECKED:
            return (Change(key, ChangeKind.UNCHECKED, judge, self.reason),)
        kind = ChangeKind.DISMISS if self.state == DISMISSED else ChangeKind.CONFIRM
        made = [Change(key, kind, judge, self.reason, confidence=self.confidence)]
        if kind is ChangeKind.CONFIRM and self.severity and self.severity is not finding.severity:
            made.append(Change(key, ChangeKind.SEVERITY, judge, self.reason,
                               severity=self.severity, confidence=self.confidence))
        if self.reused_from:
            made.append(Change(key, ChangeKind.REUSE, Origin.CACHE, (
                f"verdict reused from {self.reused_from} in this session: no model call")))
        return tuple(made)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (without :attr:`reused_from`: a stored answer is reused by whoever
        reads it)."""
        return {"state": self.state, "reason": self.reason, "confidence": self.confidence,
                "severity": self.severity.value if self.severity else None}

    @classmethod
    def from_json(cls, data: Any) -> Answer | None:
        """Inverse of :meth:`to_json` for a decided answer; None for anything else (an
        unchecked or unreadable one: the check asks again)."""
        try:
            state, confidence = data["state"], data.get("confidence")
            severity = data.get("severity")
            if state not in (CONFIRMED, DISMISSED):
                return None
            return cls(state, str(data["reason"]),
                       float(confidence) if confidence is not None else None,
                       Severity(severity) if severity and state == CONFIRMED else None)
        except (KeyError, TypeError, ValueError):
            return None


def cache_changes(findings: tuple[Finding, ...], *, cached: bool) -> tuple[Change, ...]:
    """A ``reuse`` change of origin ``cache`` on each model finding when the model's review
    came from the evaluation cache (which holds findings as found: see
    ``evaluation.review``, which reads them through :func:`as_found`)."""
    if not cached:
        return ()
    return tuple(Change(f.fingerprint, ChangeKind.REUSE, Origin.CACHE,
                        "reused from the evaluation cache: no model call")
                 for f in findings if Provenance.MODEL in provenance(f))


def min_confidence_changes(findings: tuple[Finding, ...], minimum: float | None
                           ) -> tuple[Change, ...]:
    """``--secreview-min-confidence``: a change of origin ``settings`` for each finding
    whose stated confidence is below ``minimum`` (reported, failing nothing, never commented
    inline). A finding that states no confidence is not given one."""
    if minimum is None:
        return ()
    return tuple(Change(f.fingerprint, ChangeKind.MIN_CONFIDENCE, Origin.SETTINGS,
                        f"{f.confidence_text()} is below the minimum")
                 for f in findings if f.confidence is not None and f.confidence < minimum)


def as_found(finding: Finding) -> Finding:
    """``finding`` with every field a change decides cleared: nothing but an accepted change
    marks a finding lowered or checked, whatever a producer, a cache or a worker left
    there."""
    return replace(finding, suppression=None, suppression_reason="", suppression_added=False,
                   below_min_confidence=False, overruled="", triage=None, triage_reason="",
                   triage_confidence=None)
