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
from pathlib import Path
from typing import Any, TypeVar

import pytest
from _pytest._code.code import ExceptionInfo, TerminalRepr

from .agent.prompt import hunks_text
from .core.decide import Outcome, Verdict, decide
from .core.findings import Finding
from .core.record import ItemRecord, changes_from_fields
from .diff.model import FileDiff
from .errors import EvaluationError, GitError, RuleError
from .evaluation.evaluate import Evaluation
from .rules.loader import RuleSource
from .rules.matcher import BatchTarget, DataflowTarget, Target
from .rules.model import Rule
from .severity import one_line
from .state import ARTIFACT_KEY, EVALUATION_KEY, RECORD_KEY, REVIEW_KEY, ReviewState
from .unreviewed import NOT_REVIEWED_PROPERTY, UnreviewedFailure, judge_unreviewed

#: Built once: looking the marker up per item is measurable with thousands of items.
_MARK = pytest.mark.secreview

#: An item type, kept through :func:`announce_collected`.
ItemT = TypeVar("ItemT", bound=pytest.Item)


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


def announce_collected(session: pytest.Session, items: list[ItemT]) -> list[ItemT]:
    """Report ``items``, made during ``pytest_collection_modifyitems`` rather than by a
    collector, as collected (one ``pytest_collectreport``): pytest's "collected N items" and
    every other listener then count the items the run reports on. Returns ``items``."""
    if items:
        session.ihook.pytest_collectreport(report=pytest.CollectReport(
            "secreview", "passed", None, list(items)))
    return items


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


def attach_record(item: pytest.Item, record: ItemRecord, verdict: Verdict,
                  risk_evidence: dict[str, Any] | None = None) -> None:
    """Hand ``item``'s record and its verdict to the report, once: the summary renders
    every output from them (with the intent audit's ``risk_evidence``, when given). The JUnit
    testcase properties ``secreview_findings``, ``secreview_usage``, ``secreview_mode`` and
    ``secreview_cached`` (a documented output) and the JSON report's metadata are renderings
    of the same record."""
    item.stash[RECORD_KEY] = {"record": record.to_json(), "verdict": verdict.to_json(),
                              "risk_evidence": risk_evidence}
    findings = [f.to_json() for f in verdict.findings]
    item.user_properties.append(("secreview_findings", json.dumps(findings, sort_keys=True)))
    item.user_properties.append(("secreview_usage", json.dumps(record.usage, sort_keys=True)))
    item.user_properties.append(("secreview_mode", record.mode))
    item.user_properties.append(("secreview_cached", str(record.cached).lower()))
    if record.not_reviewed:
        item.user_properties.append((NOT_REVIEWED_PROPERTY, record.not_reviewed))


def judge(verdict: Verdict, unreviewed: str, note: str | None, *, what: str,
          skip_message: str | None = None) -> None:
    """End an item's ``runtest`` as its verdict says: fail with the findings that count, or
    (part of it was not reviewed and nothing counts) as ``--secreview-unreviewed`` says."""
    if verdict.outcome is Outcome.FAILED:
        others = [f for f in verdict.findings if f not in verdict.failing]
        raise FindingsFailure(list(verdict.failing), others, note)
    if verdict.outcome in (Outcome.SKIPPED, Outcome.UNREVIEWED_FAILED):
        judge_unreviewed(unreviewed, what=what, why=note or "not reviewed",
                         skip_message=skip_message)


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
    if finding.overruled:  # a lowering that was refused, and why
        lines.append(f"    not accepted: {one_line(finding.overruled)}")
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
        error: EvaluationError | None = None
        try:
            evaluation = review.evaluate(self, self.target)
        except EvaluationError as exc:
            # The model review broke; what the patterns found still stands, and a finding
            # at the threshold fails the item whatever the model did.
            error = exc
            evaluation = Evaluation(
                findings=tuple(exc.findings), mode=(exc.usage_record or {}).get("mode", "error"),
                usage=dict(exc.usage_record or {}), not_reviewed=f"model review failed: {exc}",
                assessments=tuple(exc.assessments),
            )
        self.verdict = self._record(evaluation, None if error is None else str(error))
        self.stash[EVALUATION_KEY] = evaluation
        self.skip_message = (None if error is None else
                             f"not reviewed (--secreview-on-error=skip): {error}")
        if error is not None and self.verdict.outcome is Outcome.ERROR:
            raise error  # nothing at the threshold: an infrastructure error, never a pass

    def _record(self, evaluation: Evaluation, error: str | None) -> Verdict:
        """The item's record (its findings as found, the changes their producers made) and
        its verdict, attached to the report once; the task artifact beside it."""
        usage = dict(evaluation.usage)
        transcript = list(evaluation.transcript) or usage.pop("transcript", [])
        sent = dict(evaluation.sent) or usage.pop("sent", {})
        found, changes = changes_from_fields(evaluation.findings, writer=self.review.author_writes,
                                             reused=evaluation.cached)
        parts = self.target.parts
        record = ItemRecord(
            nodeid=self.nodeid, rule=self.target.rule.id, path=self.target.file.path,
            findings=found, changes=changes, mode=evaluation.mode, usage=usage,
            not_reviewed=evaluation.not_reviewed, error=error, cached=evaluation.cached,
            # A batch of the general review: every file it holds.
            paths=tuple(dict.fromkeys(p.file.path for p in parts)) if len(parts) > 1 else (),
            assessments=tuple(evaluation.assessments), fixes=tuple(evaluation.fixes))
        verdict = decide(record, self.review.policy)
        data = metadata_of(record, verdict)
        self.review.metadata[self.nodeid] = data
        attach_record(self, record, verdict)
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
                "hunks": redact(task_hunks(self.target, verdict.findings)),
                "sent": sent,
            },
            "evaluation": {**data, "transcript": transcript},
        }
        return verdict

    def runtest(self) -> None:
        judge(self.verdict, self.review.settings.unreviewed,
              self.stash[EVALUATION_KEY].not_reviewed,
              what=f"rule {self.target.rule.id} on {one_line(self.target.file.path)}",
              skip_message=self.skip_message)

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
    """A changed file (or part of one) no item reviews (:mod:`.triage.gaps`): too large,
    binary to git, a submodule, a refused symlink, hunks over the general review's budget.
    With ``scan``, the
    deterministic rules still scan it, line by line from git in bounded memory: a finding at
    the threshold fails the item; otherwise the ``--secreview-unreviewed`` policy decides
    (fail, or skip with the reason), never a pass."""

    def __init__(self, *, file: FileDiff, reason: str, scan: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file
        self.reviewed_path = file.path
        self.reason = reason
        self.scan = scan
        self.add_marker(_MARK)
        self.user_properties.append(("secreview_path", file.path))

    def setup(self) -> None:
        from .evaluation.deterministic import MAX_STREAMED_FINDINGS, scan_unreviewed
        from .triage.ignore import IGNORE_FILE

        review = self.config.stash[REVIEW_KEY]
        note = f"{self.reason}; the deterministic rules scanned it line by line"
        found: list[Finding] = []
        cut = False
        # An ignored file (.secreviewignore) is scanned by the rules it is not excluded from
        # (credential rules) and, when they find nothing, is not counted as unreviewed; the
        # default exclusions hold here too (a minified bundle over 8 MiB is read by the
        # credential rules only).
        self.ignored = review.ignore.pattern_of(self.file.path)
        rules = [r for r in review.rules if not review.ignore.excludes(r, self.file.path)
                 and not review.prepared.excludes(r, self.file.path)]
        if not self.scan:
            note = self.reason
            self.ignored = None  # nothing to scan: a submodule, hunks over the budget
        else:
            if self.ignored is not None:
                note = (f"{self.reason}; ignored ({IGNORE_FILE}: {self.ignored}): the "
                        "credential rules scanned it line by line")
            try:
                found, cut = scan_unreviewed(review.repo, review.diff.base_sha,
                                             review.diff.head_sha, self.file, rules)
            except GitError as exc:
                note = f"{self.reason}; the deterministic scan failed: {exc}"
                self.ignored = None  # nothing was checked: it counts as not reviewed
        if cut:
            note += f" (stopped after {MAX_STREAMED_FINDINGS} findings)"
        hook = self.config.hook.pytest_secreview_filter_finding
        findings = [f for f in found if hook(finding=f, item=self) is not False]
        if review.quiet is not None:  # the baseline mutes here too (the file is not read)
            findings = list(review.quiet.apply(findings, inline=False))
        as_found, changes = changes_from_fields(tuple(findings), writer=review.author_writes,
                                                reused=False)
        record = ItemRecord(nodeid=self.nodeid, rule=None, path=self.file.path,
                            findings=as_found, changes=changes,
                            # an ignored file whose credential scan ran is not a gap
                            not_reviewed=note if self.ignored is None else None)
        self.verdict = decide(record, review.policy)
        review.metadata[self.nodeid] = metadata_of(record, self.verdict)
        attach_record(self, record, self.verdict)
        self.note = note

    def runtest(self) -> None:
        path = one_line(self.file.path)
        judge(self.verdict, self.config.stash[REVIEW_KEY].settings.unreviewed, self.note,
              what=path, skip_message=f"{path} not reviewed: {self.note}")

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
