""":class:`ReviewItem`, the base of every item a review collects.

Every item evaluates in ``setup`` and judges in ``runtest``: an infrastructure failure is an
error, findings at the threshold are a failure, a part that was not reviewed goes to the
``--secreview-unreviewed`` policy. The base does once what they share: the ``secreview``
marker and the rule and path user properties, the item's record and its verdict
(:func:`~..core.decide.decide`) handed to the report, the end of ``runtest``, and the failure
text, through pytest's public ``repr_failure``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from _pytest._code.code import ExceptionInfo, TerminalRepr

from ..core.decide import Outcome, Verdict, decide
from ..core.record import ItemRecord
from ..errors import EvaluationError
from ..severity import one_line
from ..state import ReviewState, review_state
from ..unreviewed import NOT_REVIEWED_PROPERTY, UnreviewedFailure, judge_unreviewed
from .failure import FindingsFailure, findings_repr

#: Built once: looking the marker up per item is measurable with thousands of items.
_MARK = pytest.mark.secreview
#: An item's record and what ``decide`` made of it (JSON-safe: it travels with the setup
#: report to the xdist controller, as ``report.secreview_record``).
RECORD_KEY = pytest.StashKey[dict[str, Any]]()
#: What an item sent and received, for the artifacts directory (no file bodies); it travels
#: with the setup report as ``report.secreview_artifact``.
ARTIFACT_KEY = pytest.StashKey[dict[str, Any]]()


class ReviewItem(pytest.Item):
    """An item of the review. ``rule`` and ``path`` (when given) become the
    ``secreview_rule`` and ``secreview_path`` user properties, a documented JUnit output."""

    #: How the failure text of an error in the review itself (an ``EvaluationError``) starts.
    incomplete = "review could not be completed"

    def __init__(self, *, rule: str | None = None, path: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker(_MARK)
        if rule is not None:
            self.user_properties.append(("secreview_rule", rule))
        if path is not None:
            self.user_properties.append(("secreview_path", path))

    @property
    def review(self) -> ReviewState:
        """The session's review state."""
        return review_state(self.config)

    def conclude(self, record: ItemRecord, *, metadata: dict[str, Any] | None = None,
                 risk_evidence: dict[str, Any] | None = None) -> Verdict:
        """Decide ``record`` (:func:`~..core.decide.decide`, the one decision function) and
        hand the record and its verdict to the report, once: the summary renders every output
        from them (with the intent audit's ``risk_evidence``, when given). The JSON report's
        metadata (``metadata``, else :func:`metadata_of`) and the JUnit testcase properties
        ``secreview_findings``, ``secreview_usage``, ``secreview_mode`` and
        ``secreview_cached`` (a documented output) are renderings of the same record."""
        verdict = decide(record, self.review.policy)
        self.review.metadata[self.nodeid] = (metadata_of(record, verdict) if metadata is None
                                             else metadata)
        self.stash[RECORD_KEY] = {"record": record.to_json(), "verdict": verdict.to_json(),
                                  "risk_evidence": risk_evidence}
        findings = [f.to_json() for f in verdict.findings]
        self.user_properties.append(("secreview_findings", json.dumps(findings, sort_keys=True)))
        self.user_properties.append(("secreview_usage", json.dumps(record.usage, sort_keys=True)))
        self.user_properties.append(("secreview_mode", record.mode))
        self.user_properties.append(("secreview_cached", str(record.cached).lower()))
        if record.not_reviewed:
            self.user_properties.append((NOT_REVIEWED_PROPERTY, record.not_reviewed))
        return verdict

    def judge(self, verdict: Verdict, note: str | None, *, what: str,
              skip_message: str | None = None) -> None:
        """End ``runtest`` as ``verdict`` says: fail with the findings that count, or (part of
        the item was not reviewed and nothing counts) as ``--secreview-unreviewed`` says."""
        if verdict.outcome is Outcome.FAILED:
            others = [f for f in verdict.findings if f not in verdict.failing]
            raise FindingsFailure(list(verdict.failing), others, note)
        if verdict.outcome in (Outcome.SKIPPED, Outcome.UNREVIEWED_FAILED):
            judge_unreviewed(self.review.settings.unreviewed, what=what,
                             why=note or "not reviewed", skip_message=skip_message)

    def failure_subject(self) -> str:
        """What a findings failure is about, in its first line (the rule's title, say)."""
        return self.name

    def failure_text(self, exc: BaseException) -> str | None:
        """The failure text of an exception the item renders itself; ``None`` leaves it to
        pytest (a traceback: a defect of ours, not an outcome of the review). Subclasses add
        their own exceptions and fall back to this."""
        if isinstance(exc, FindingsFailure):
            threshold = self.review.settings.fail_on.value
            return findings_repr(exc, threshold, self.failure_subject())
        if isinstance(exc, UnreviewedFailure):
            return exc.message
        if isinstance(exc, EvaluationError):
            # An infrastructure failure is one clear line, not a traceback through our code.
            return f"{self.incomplete}: {one_line(str(exc))}"
        return None

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        text = self.failure_text(excinfo.value)
        return text if text is not None else super().repr_failure(excinfo, style)

    def skip_location(self) -> tuple[str, int]:
        """Where pytest's short summary places a skip of this item: at the item (as pytest
        places a skip by marker), not at the line of our code that raised it."""
        path, line, _ = self.reportinfo()
        return os.fspath(path), (line or 0) + 1

    def finish_report(self, report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
        """Complete the item's report (called from the plugin's ``pytest_runtest_makereport``
        wrapper). A skip is placed at :meth:`skip_location`. pytest renders an error in
        ``setup`` without asking ``repr_failure``, so the failure text of an error the item
        renders is put on the report here. The setup report carries the item's record and
        its task artifact (to the xdist controller, which writes the outputs)."""
        if report.skipped and isinstance(report.longrepr, tuple):
            _path, _line, reason = report.longrepr
            report.longrepr = (*self.skip_location(), reason)
        if report.failed and call.when != "call" and call.excinfo is not None:
            text = self.failure_text(call.excinfo.value)
            if text is not None:
                report.longrepr = text
        if call.when == "setup":
            artifact = self.stash.get(ARTIFACT_KEY, None)
            if artifact is not None:
                # The item lives to the session's end and need not hold it too.
                report.secreview_artifact = artifact  # type: ignore[attr-defined]
                del self.stash[ARTIFACT_KEY]
            record = self.stash.get(RECORD_KEY, None)
            if record is not None:  # the item's record and verdict: what every output renders
                report.secreview_record = record  # type: ignore[attr-defined]


def metadata_of(record: ItemRecord, verdict: Verdict) -> dict[str, Any]:
    """The JSON report's ``secreview`` metadata of an item: its record, findings decided."""
    data: dict[str, Any] = {
        "rule": record.rule, "path": record.path,
        "findings": [f.to_json() for f in verdict.findings], "mode": record.mode,
        "usage": record.usage, "not_reviewed": record.not_reviewed, "cached": record.cached,
        "error": record.error,
    }
    if record.assessments:
        data["assessments"] = list(record.assessments)
    if record.fixes:
        data["fixes"] = list(record.fixes)
    if record.paths:
        data["paths"] = list(record.paths)
    return data
