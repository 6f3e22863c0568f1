"""The items of a rule file: ``RuleItem`` (one rule applied to one changed file, or to a batch
of them) and ``BrokenRuleItem`` (a rule file that is not a valid rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..agent.prompt import hunks_text
from ..core.decide import Outcome, Verdict
from ..core.findings import Finding
from ..errors import EvaluationError, RuleError
from ..evaluation.evaluate import Evaluation
from ..rules.matcher import BatchTarget, DataflowTarget, Target
from ..severity import one_line
from .base import ARTIFACT_KEY, ReviewItem

#: A rule item's evaluation, from its setup to its call phase.
EVALUATION_KEY = pytest.StashKey[Evaluation]()


class BrokenRuleItem(ReviewItem):
    """A rule file that is not a valid rule: an error item listing every problem, so one
    broken rule neither stops the session nor passes quietly."""

    def __init__(self, *, error: RuleError, **kwargs: Any) -> None:
        super().__init__(path=error.path, **kwargs)
        self.error = error

    def setup(self) -> None:
        raise self.error

    def runtest(self) -> None:  # pragma: no cover - setup always raises
        raise AssertionError("unreachable: a broken rule is never evaluated")

    def failure_text(self, exc: BaseException) -> str | None:
        if isinstance(exc, RuleError):
            return (f"invalid rule, its checks did not run: {exc}\n"
                    "Fix the rule file; the other rules ran")
        return super().failure_text(exc)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(one_line(self.error.path)), 0, f"invalid rule: {one_line(self.error.path)}"


class RuleItem(ReviewItem):
    """One rule applied to one changed file."""

    def __init__(self, *, target: Target, **kwargs: Any) -> None:
        super().__init__(rule=target.rule.id, path=target.file.path, **kwargs)
        self.target = target

    def setup(self) -> None:
        # A broken model review is a partial evaluation: what the patterns found still
        # stands, and a finding at the threshold fails the item whatever the model did.
        evaluation = self.review.evaluate(self, self.target)
        error = evaluation.error
        self.verdict = self._record(evaluation)
        self.stash[EVALUATION_KEY] = evaluation
        self.skip_message = (None if error is None else
                             f"not reviewed (--secreview-on-error=skip): {error}")
        if error is not None and self.verdict.outcome is Outcome.ERROR:
            # Nothing at the threshold: an infrastructure error, never a pass.
            raise EvaluationError(error)

    def _record(self, evaluation: Evaluation) -> Verdict:
        """The item's record (its findings as found, every judge's changes: the one
        builder, ``state.record``) and its verdict, attached to the report once; the task
        artifact beside it."""
        transcript = list(evaluation.transcript) or evaluation.usage.get("transcript", [])
        sent = dict(evaluation.sent) or evaluation.usage.get("sent", {})
        verdict = self.conclude(self.review.record(self.nodeid, self.target, evaluation))
        from ..tools.redaction import redact  # the tool layer is loaded only when needed

        rule = self.target.rule
        self.stash[ARTIFACT_KEY] = {
            "task": {
                "nodeid": self.nodeid,
                "rule": {"id": rule.id, "title": rule.title, "source": rule.source,
                         "severity": rule.severity.value, "content_sha256": rule.content_sha},
                "path": self.target.file.path,
                "change": self.target.file.kind.value,
                "old_path": self.target.file.old_path,
                "hunks": redact(task_hunks(self.target, verdict.findings)),
                "sent": sent,
            },
            "evaluation": {**self.review.metadata[self.nodeid], "transcript": transcript},
        }
        return verdict

    def runtest(self) -> None:
        self.judge(self.verdict, self.stash[EVALUATION_KEY].not_reviewed,
                   what=f"rule {self.target.rule.id} on {one_line(self.target.file.path)}",
                   skip_message=self.skip_message)

    def failure_subject(self) -> str:
        return self.target.rule.title

    def skip_location(self) -> tuple[str, int]:
        # A rule's items skipped for one reason (no model, say) are one line of pytest's
        # short summary with their count: located at the rule file, not at each file.
        _path, line = super().skip_location()
        return self.target.rule.source, line

    def reportinfo(self) -> tuple[Path, int | None, str]:
        hunk = self.target.hunks[0]
        line = max(hunk.new_start - 1, 0)
        path = one_line(self.target.file.path)
        label = one_line(self.target.label)
        return Path(path), line, f"{self.target.rule.id}: {self.target.rule.title} [{label}]"


def task_hunks(target: Target, findings: tuple[Finding, ...]) -> str:
    """The hunks an item's task artifact records: what it put in front of the reviewer. A
    dataflow item reads every changed file its rule's ``taint:`` section covers and sends
    none of them anywhere; it records the hunks of the files its flows go through (its
    evaluation lists every path it covered). Twelve taint rules times every changed file's
    hunks would be most of a large review's artifacts and memory."""
    if not isinstance(target, DataflowTarget):
        return hunks_text(target)
    used = {f.path for f in findings} | {step.path for f in findings for step in f.flow}
    parts = [part for part in target.parts if part.file.path in used]
    if not parts:
        return ""
    first, *rest = parts
    return hunks_text(BatchTarget(target.rule, first.file, first.hunks, rest=tuple(rest)))
