"""pytest nodes: one ``RuleFile`` per rule file, one ``RuleItem`` per (rule, changed file),
``BrokenRuleItem`` for a rule file that is not a valid rule, and ``UnreviewedItem`` for a
changed file that could not be reviewed at all.

Node ids depend only on pinned inputs (rule paths and ids, sorted changed paths), so every
pytest-xdist worker collects the same items. The item evaluates in ``setup`` and judges in
``runtest``: infrastructure failures are errors, findings are failures.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import ExceptionInfo, TerminalRepr

from .core.findings import Finding
from .diff.model import FileDiff
from .errors import EvaluationError, GitError, RuleError
from .evaluation.evaluate import Evaluation
from .evaluation.prompt import hunks_text
from .rules.loader import RuleSource
from .rules.matcher import BatchTarget, DataflowTarget, Target
from .rules.model import Rule
from .severity import one_line
from .state import ARTIFACT_KEY, EVALUATION_KEY, REVIEW_KEY, ReviewState
from .unreviewed import NOT_REVIEWED_PROPERTY, UnreviewedFailure, judge_unreviewed

#: Built once: looking the marker up per item is measurable with thousands of items.
_MARK = pytest.mark.secreview


class RuleFile(pytest.Collector):
    """A rule file: its items, or one error item when the file is not a valid rule.

    A plain collector, not a ``pytest.File``: its path (the bundled pack's, or a rule read
    from the base revision) is not a file of the working tree, and pytest's ``--lf`` skips
    ``File`` nodes whose path it cannot match to a previous failure. Items are selected by
    node id instead, which ``--lf`` and ``--ff`` match exactly.
    """

    parsed: Rule | RuleError

    @classmethod
    def for_rule(cls, parent: pytest.Session, source: RuleSource,
                 parsed: Rule | RuleError) -> RuleFile:
        """A node whose id is the rule's display path, e.g. ``rules/sql-injection.md``."""
        node: RuleFile = cls.from_parent(parent, name=Path(source.display).name,
                                         path=source.path, nodeid=source.display)
        node.parsed = parsed
        return node

    def collect(self) -> Iterator[pytest.Item]:
        if isinstance(self.parsed, RuleError):
            # One broken rule is an error of its own item; the other rules still run.
            yield BrokenRuleItem.from_parent(self, name=BROKEN_RULE_NAME,
                                             nodeid=child_id(self, BROKEN_RULE_NAME),
                                             error=self.parsed)
            return
        rule = self.parsed
        review = self.config.stash[REVIEW_KEY]
        for target in review.targets(rule):
            name = f"{rule.id}[{one_line(target.label)}]"
            yield RuleItem.from_parent(self, name=name, nodeid=child_id(self, name),
                                       target=target)


def child_id(parent: pytest.Collector, name: str) -> str:
    """``<parent id>::<name>``, given to pytest as a string so that it parses the id the way
    it parses the ids in its ``--lf`` cache (pytest 9 splits ``name[param]`` into a name and
    params; an id built with ``parent.id.child(name)`` would never equal the cached one)."""
    return f"{parent.nodeid}::{name}"


#: The name of the error item of a rule file that is not a valid rule.
BROKEN_RULE_NAME = "invalid-rule"


class BrokenRuleItem(pytest.Item):
    """A rule file that is not a valid rule: an error item listing every problem, so one
    broken rule neither stops the session nor passes quietly."""

    def __init__(self, *, error: RuleError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.add_marker(_MARK)
        self.user_properties.append(("secreview_path", error.path))

    def setup(self) -> None:
        raise self.error

    def runtest(self) -> None:  # pragma: no cover - setup always raises
        raise AssertionError("unreachable: a broken rule is never evaluated")

    def _repr_failure_py(  # type: ignore[override]
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, RuleError):
            return (f"invalid rule, its checks did not run: {excinfo.value}\n"
                    "Fix the rule file; the other rules ran")
        return super()._repr_failure_py(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(one_line(self.error.path)), 0, f"invalid rule: {one_line(self.error.path)}"


class FindingsFailure(Exception):
    """Raised by ``runtest`` when findings reach the fail threshold."""

    def __init__(self, failing: list[Finding], others: list[Finding], note: str | None) -> None:
        super().__init__(f"{len(failing)} finding(s) at or above the threshold")
        self.failing = failing
        self.others = others
        self.note = note


def format_finding(finding: Finding) -> str:
    """``path:line  SEVERITY  title`` followed by the explanation and the fix."""
    lines = [f"{one_line(finding.path)}:{finding.line}  {finding.severity.value}  "
             f"{one_line(finding.title)}"]
    for label, text in (
        ("why", finding.explanation),
        ("exploit", finding.exploit_scenario),
        ("fix", finding.recommendation),
    ):
        if text:
            # Multi-line text stays readable, but no line of it starts at column 0.
            lines.append(f"    {label}: " + "\n      ".join(one_line(t) for t in text.split("\n")))
    meta = [f"rule {finding.rule}", f"source {finding.source}"]
    if finding.cwe:
        meta.append(finding.cwe)
    if finding.confidence != 1.0:  # an exact pattern's certainty goes without saying
        meta.append(finding.confidence_text())
    if finding.suppression:  # muted by the team, shown with why (a dismissal: the line below)
        meta.append(f"suppressed ({finding.suppression}): "
                    f"{one_line(finding.suppression_reason)}")
    lines.append("    (" + ", ".join(meta) + ")")
    if finding.triage:  # what the second look said (or why it could not look)
        lines.append(f"    {finding.triage}: {one_line(finding.triage_reason)}")
    return "\n".join(lines)


def findings_repr(exc: FindingsFailure, threshold: str, subject: str) -> str:
    """The failure report of an item: the findings at the threshold, the others, the note."""
    parts = [f"{len(exc.failing)} finding(s) at or above {threshold} ({subject})", "",
             *(format_finding(f) for f in exc.failing)]
    if exc.others:
        parts += ["", f"also reported, below {threshold} or suppressed:"]
        parts += [format_finding(f) for f in exc.others]
    if exc.note:
        parts += ["", f"note: {one_line(exc.note)}"]
    return "\n".join(parts)


class RuleItem(pytest.Item):
    """One rule applied to one changed file."""

    def __init__(self, *, target: Target, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.add_marker(_MARK)
        self.user_properties.append(("secreview_rule", target.rule.id))
        self.user_properties.append(("secreview_path", target.file.path))

    @property
    def review(self) -> ReviewState:
        return self.config.stash[REVIEW_KEY]

    def setup(self) -> None:
        review = self.review
        try:
            evaluation = review.evaluate(self, self.target)
        except EvaluationError as exc:
            evaluation = Evaluation(
                findings=tuple(exc.findings), mode=(exc.usage_record or {}).get("mode", "error"),
                usage=dict(exc.usage_record or {}), not_reviewed=f"model review failed: {exc}",
                assessments=tuple(exc.assessments),
            )
            if not self._failing(evaluation):
                # Nothing at the threshold from the patterns: an infrastructure error (or,
                # when the team asked for it, an unreviewed item), never a pass.
                if review.settings.on_error != "skip":
                    self._record(evaluation, str(exc))
                    raise
                evaluation = replace(evaluation, not_reviewed=(
                    f"not reviewed (--secreview-on-error=skip): {exc}"))
                self.stash[EVALUATION_KEY] = evaluation
                self._record(evaluation, str(exc))
                return
            # A deterministic finding at the threshold fails the item whatever the model did.
        self.stash[EVALUATION_KEY] = evaluation
        self._record(evaluation)

    def _failing(self, evaluation: Evaluation) -> list[Finding]:
        threshold = self.review.settings.fail_on
        # A finding the model dismissed (with its reason), or one below
        # --secreview-min-confidence, is reported and marked, never failing.
        return [f for f in evaluation.findings
                if f.severity.at_least(threshold) and not f.muted]

    def _record(self, evaluation: Evaluation, error: str | None = None) -> None:
        findings = [f.to_json() for f in evaluation.findings]
        usage = dict(evaluation.usage)
        transcript = list(evaluation.transcript) or usage.pop("transcript", [])
        sent = dict(evaluation.sent) or usage.pop("sent", {})
        data: dict[str, Any] = {
            "rule": self.target.rule.id,
            "path": self.target.file.path,
            "findings": findings,
            "mode": evaluation.mode,
            "usage": usage,
            "not_reviewed": evaluation.not_reviewed,
            "cached": evaluation.cached,
            "error": error,
        }
        if evaluation.assessments:  # several models: what each one said
            data["assessments"] = list(evaluation.assessments)
            self.user_properties.append(("secreview_assessments", json.dumps(
                data["assessments"], sort_keys=True)))
        if evaluation.fixes:  # fix mode: a patch per confirmed finding, kept or dropped
            data["fixes"] = list(evaluation.fixes)
            self.user_properties.append(("secreview_fixes", json.dumps(data["fixes"],
                                                                        sort_keys=True)))
        if len(self.target.parts) > 1:  # a batch of the general review: every file it holds
            data["paths"] = list(dict.fromkeys(p.file.path for p in self.target.parts))
        self.review.metadata[self.nodeid] = data
        from .tools.redaction import redact  # the tool layer is loaded only when needed

        rule = self.target.rule
        self.stash[ARTIFACT_KEY] = {
            "task": {
                "nodeid": self.nodeid,
                "rule": {"id": rule.id, "title": rule.title, "source": rule.source,
                         "severity": rule.severity.value, "content_sha256": rule.content_sha},
                "path": self.target.file.path,
                "change": self.target.file.kind.value,
                "old_path": self.target.file.old_path,
                "hunks": redact(task_hunks(self.target, evaluation.findings)),
                "sent": sent,
            },
            "evaluation": {**data, "transcript": transcript},
        }
        self.user_properties.append(("secreview_findings", json.dumps(findings, sort_keys=True)))
        self.user_properties.append(("secreview_usage", json.dumps(data["usage"], sort_keys=True)))
        self.user_properties.append(("secreview_mode", evaluation.mode))
        self.user_properties.append(("secreview_cached", str(evaluation.cached).lower()))
        if evaluation.not_reviewed:
            self.user_properties.append((NOT_REVIEWED_PROPERTY, evaluation.not_reviewed))

    def runtest(self) -> None:
        evaluation = self.stash[EVALUATION_KEY]
        failing = self._failing(evaluation)
        if failing:
            others = [f for f in evaluation.findings if f not in failing]
            raise FindingsFailure(failing, others, evaluation.not_reviewed)
        if evaluation.not_reviewed:
            # Part of the review could not run and nothing reached the threshold: the
            # --secreview-unreviewed policy decides, never a pass.
            judge_unreviewed(
                self.review.settings.unreviewed, why=evaluation.not_reviewed,
                what=f"rule {self.target.rule.id} on {one_line(self.target.file.path)}",
            )

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        exc = excinfo.value
        if isinstance(exc, FindingsFailure):
            threshold = self.review.settings.fail_on.value
            return findings_repr(exc, threshold, self.target.rule.title)
        if isinstance(exc, UnreviewedFailure):
            return exc.message
        return super().repr_failure(excinfo)

    def _repr_failure_py(  # type: ignore[override]
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        # pytest renders errors raised in setup through this method, not repr_failure: an
        # infrastructure failure is one clear line, not a traceback through our internals.
        if isinstance(excinfo.value, EvaluationError):
            return f"review could not be completed: {one_line(str(excinfo.value))}"
        return super()._repr_failure_py(excinfo, style)

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


class UnreviewedItem(pytest.Item):
    """A changed file the review cannot read whole: too large, or binary to git. The
    deterministic rules still scan it, line by line from git in bounded memory: a finding at
    the threshold fails the item; otherwise the ``--secreview-unreviewed`` policy decides
    (fail, or skip with the reason), never a pass."""

    def __init__(self, *, file: FileDiff, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file
        self.reviewed_path = file.path
        self.reason = reason
        self.add_marker(_MARK)
        self.user_properties.append(("secreview_path", file.path))

    def setup(self) -> None:
        from .evaluation.deterministic import MAX_STREAMED_FINDINGS, scan_unreviewed

        review = self.config.stash[REVIEW_KEY]
        note = f"{self.reason}; the deterministic rules scanned it line by line"
        try:
            found, cut = scan_unreviewed(review.repo, review.diff.base_sha,
                                         review.diff.head_sha, self.file, review.rules)
        except GitError as exc:
            found, cut = [], False
            note = f"{self.reason}; the deterministic scan failed: {exc}"
        if cut:
            note += f" (stopped after {MAX_STREAMED_FINDINGS} findings)"
        hook = self.config.hook.pytest_secreview_filter_finding
        findings = [f for f in found if hook(finding=f, item=self) is not False]
        if review.quiet is not None:  # the baseline mutes here too (the file is not read)
            findings = list(review.quiet.apply(findings, inline=False))
        data: dict[str, Any] = {
            "rule": None, "path": self.file.path, "findings": [f.to_json() for f in findings],
            "mode": "deterministic", "usage": {}, "not_reviewed": note, "cached": False,
            "error": None,
        }
        review.metadata[self.nodeid] = data
        self.user_properties.append(
            ("secreview_findings", json.dumps(data["findings"], sort_keys=True)))
        self.user_properties.append(("secreview_usage", "{}"))
        self.user_properties.append(("secreview_mode", "deterministic"))
        self.user_properties.append(("secreview_cached", "false"))
        self.user_properties.append((NOT_REVIEWED_PROPERTY, note))
        self.findings = findings
        self.note = note

    def _failing(self) -> list[Finding]:
        threshold = self.config.stash[REVIEW_KEY].settings.fail_on
        return [f for f in self.findings if f.severity.at_least(threshold) and not f.muted]

    def runtest(self) -> None:
        failing = self._failing()
        if failing:
            others = [f for f in self.findings if f not in failing]
            raise FindingsFailure(failing, others, self.note)
        path = one_line(self.file.path)
        judge_unreviewed(self.config.stash[REVIEW_KEY].settings.unreviewed, what=path,
                         why=self.note, skip_message=f"{path} not reviewed: {self.note}")

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        exc = excinfo.value
        if isinstance(exc, FindingsFailure):
            threshold = self.config.stash[REVIEW_KEY].settings.fail_on.value
            return findings_repr(exc, threshold, f"{one_line(self.file.path)}, not reviewed")
        if isinstance(exc, UnreviewedFailure):
            return exc.message
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        path = one_line(self.reviewed_path)
        return Path(path), 0, f"not reviewed: {path}"
