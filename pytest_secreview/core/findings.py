"""Findings: the one result type every check produces.

``Finding`` is the frozen domain value everything downstream uses; what a model passes to
``report_findings`` is validated in :mod:`pytest_secreview.agent.report_tool` before it
becomes one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from .severity import Severity, worst_first

__all__ = ["FACT_CATEGORIES", "Finding", "FlowStep", "context_fingerprint", "fingerprint",
           "number_occurrences"]


_WS = re.compile(r"\s+")


def fingerprint(rule: str, path: str, anchor: str) -> str:
    """A fingerprint stable across line shifts: rule, path and the whitespace-normalised
    text of the flagged line (not its number)."""
    normal = _WS.sub(" ", anchor).strip()
    digest = hashlib.sha256(f"{rule}\0{path}\0{normal}".encode()).hexdigest()
    return digest[:32]


def context_fingerprint(finding_fingerprint: str, scope: str) -> str:
    """The fingerprint of a finding in its context: its own (rule, path and normalised line,
    without an occurrence number) and ``scope``, the digest of the headers enclosing its line
    (its function or route: ``suppression.context``). What the baseline matches and SARIF's
    ``partialFingerprints`` carry: it survives line shifts and moves of the whole function,
    and changes when the line is copied into another function or its function's header
    (name, route, decorators) changes."""
    if not finding_fingerprint:
        return ""
    own = finding_fingerprint.partition("-")[0]
    return hashlib.sha256(f"{own}\0{scope}".encode()).hexdigest()[:32]


def number_occurrences(findings: Iterable[Finding],
                       key: Literal["fingerprint", "context_fingerprint"] = "fingerprint",
                       ) -> list[Finding]:
    """``findings`` (same order) with identical fingerprints told apart by occurrence;
    ``key`` names the fingerprint (``fingerprint`` or ``context_fingerprint``).

    Identical lines in one file (the same call twice) hash alike. Among the findings sharing
    a fingerprint, numbered in location order, the first keeps it and the n-th becomes
    ``<fingerprint>-<n>``: every consumer that keys on the fingerprint (the baseline, the PR
    comment's state and inline deduplication, SARIF) then tells them apart, and a shift of
    all the lines keeps each number. A further identical line is a new fingerprint, not
    muted by the entries of the others. Idempotent: numbered fingerprints are distinct."""
    found = list(findings)
    groups: dict[str, list[int]] = {}
    for index, finding in enumerate(found):
        if getattr(finding, key):
            groups.setdefault(getattr(finding, key), []).append(index)
    for indexes in groups.values():
        ordered = sorted(indexes, key=lambda i: (found[i].line, found[i].end_line or 0,
                                                 found[i].title, found[i].source, i))
        for n, index in enumerate(ordered[1:], start=2):
            numbered = f"{getattr(found[index], key)}-{n}"
            found[index] = (replace(found[index], fingerprint=numbered) if key == "fingerprint"
                            else replace(found[index], context_fingerprint=numbered))
    return found


#: Finding categories that state a fact, not a judgement (a literal credential is committed
#: whatever anyone says): never offered to a model for dismissal, never muted by a comment
#: the pull request adds.
FACT_CATEGORIES = frozenset({"secrets"})

#: The path of a finding or item about the whole pull request (the intent audit), not a file.
PR_PATH = "(pull request)"


@dataclass(frozen=True)
class FlowStep:
    """One step of a dataflow finding's path: where attacker data went (head revision).
    ``kind`` is ``source``, ``step``, ``call``, ``return`` or ``sink``."""

    path: str
    line: int
    text: str
    kind: str


@dataclass(frozen=True)
class Finding:
    """One security finding at a location in the pull request's head revision."""

    rule: str
    severity: Severity
    title: str
    path: str
    line: int
    source: str
    end_line: int | None = None
    category: str | None = None
    cwe: str | None = None
    explanation: str = ""
    exploit_scenario: str = ""
    recommendation: str = ""
    suggestion: str | None = None
    #: 0..1, how sure the check is that the finding is real; None when it stated none (a
    #: model may omit it: no number is invented). See :meth:`confidence_text`.
    confidence: float | None = 1.0
    fingerprint: str = ""
    #: The fingerprint of the finding in its context (:func:`context_fingerprint`), set where
    #: its file is read after evaluation (``suppression.apply``); '' until then.
    context_fingerprint: str = ""
    flow: tuple[FlowStep, ...] = ()  # a taint finding's path from source to sink
    #: Decided state, written only by :func:`pytest_secreview.core.decide.decide` from the
    #: item record's changes (a producer's, a cache's or a worker's value is cleared,
    #: :func:`pytest_secreview.core.record.as_found`). ``triage``: what the second look said,
    #: as accepted: "confirmed", "dismissed", "overruled" (a dismissal that was not accepted)
    #: or "untriaged" (no look was given), with its reason and confidence; None when no look
    #: was due (a model's own finding below the verifier's threshold).
    triage: str | None = None
    triage_reason: str = ""
    triage_confidence: float | None = None
    #: Decided state too. ``below_min_confidence``: below
    #: ``--secreview-min-confidence``, reported but neither failing an item nor commented
    #: inline.
    below_min_confidence: bool = False
    #: Muted by the team: "inline" (a ``secreview: ignore[rule] reason`` comment in the
    #: code), "baseline" (an entry of ``--secreview-baseline``), "excluded" (a path
    #: exclusion) or "filtered" (the job's ``pytest_secreview_filter_finding`` hook), with
    #: the reason or the baseline's note. Kept in every report as suppressed
    #: and never failing an item. ``suppression_added``: the pull request's author wrote the
    #: comment (it added it, or changed the statement under it), shown as such.
    suppression: str | None = None
    suppression_reason: str = ""
    suppression_added: bool = False
    #: A lowering that was not accepted, and why (a suppression this pull request added at
    #: the threshold awaiting a maintainer, a model's dismissal of a pattern finding):
    #: decided by :func:`pytest_secreview.core.decide.decide`, shown next to the finding.
    overruled: str = ""
    #: Every rule that reported this problem when several reports were merged into this one
    #: (:func:`pytest_secreview.core.problems.one_per_problem`; ``rule`` first); empty for
    #: one rule's report.
    rules: tuple[str, ...] = ()
    #: How many reports (of any items and checks) this finding stands for.
    reports: int = 1

    @property
    def dismissed(self) -> bool:
        """True when the model dismissed it: kept in every report as suppressed, with the
        reason, and never failing an item."""
        return self.triage == "dismissed"

    @property
    def muted(self) -> bool:
        """True when the finding is reported but fails nothing and is not commented inline:
        suppressed, or below ``--secreview-min-confidence``. Every check of "does this
        finding count" uses this."""
        return self.suppressed or self.below_min_confidence

    def fails(self, threshold: Severity) -> bool:
        """True when the finding counts against ``threshold``: at or above it and not muted.
        Meaningful on a decided finding (:func:`pytest_secreview.core.decide.decide` sets
        the fields that mute it); the one test of "does it fail the review"."""
        return self.severity.at_least(threshold) and not self.muted

    def confidence_text(self) -> str:
        """``confidence 0.80``, or ``no confidence stated``."""
        if self.confidence is None:
            return "no confidence stated"
        return f"confidence {self.confidence:.2f}"

    @property
    def suppressed(self) -> bool:
        """True when it is kept in every report as suppressed and fails nothing: dismissed by
        the model, or muted by an inline suppression or the baseline."""
        return self.dismissed or self.suppression is not None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (the ``finding.schema.json`` shape)."""
        data = asdict(self)
        data["severity"] = self.severity.value
        data["flow"] = [asdict(step) for step in self.flow]
        data["rules"] = list(self.rules)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        """Inverse of :meth:`to_json`."""
        flow = tuple(FlowStep(**step) for step in data.get("flow") or ())
        return cls(**{**data, "severity": Severity(data["severity"]), "flow": flow,
                      "rules": tuple(data.get("rules") or ())})

    def with_fingerprint(self, anchor: str) -> Finding:
        """Return a copy whose fingerprint is computed from ``anchor`` (the line's text)."""
        return replace(self, fingerprint=fingerprint(self.rule, self.path, anchor))

    def sort_key(self) -> tuple[int, str, int, tuple[str, ...]]:
        """Worst first, then by location: the order every output uses."""
        return worst_first(self.severity, self.path, self.line, self.rule, self.title,
                           self.fingerprint)
