"""A rule's ``taint:`` flows as findings (:mod:`pytest_secreview.analysis` finds them): one
finding per sink line, at the sink, with every step of the path; and the model's verdict on
each path when the rule also has review instructions."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.findings import Finding, FlowStep
from ..core.severity import Severity
from ..diff.model import FileDiff
from ..rules.model import Rule

if TYPE_CHECKING:  # the engine loads only when a review runs a taint: section
    from ..analysis.session import Flow, TaintSession


def run_taint(rule: Rule, file: FileDiff, session: TaintSession | None
              ) -> tuple[list[Finding], str | None]:
    """The flows of ``rule``'s ``taint:`` section that end in ``file`` and that the pull
    request introduces, one finding per sink line; and why the taint part could not run on
    ``file`` (None when it ran or does not apply)."""
    if rule.taint is None or session is None or not session.covers(file.path):
        return [], None
    why = session.not_reviewed(file.path)
    if why is not None:
        return [], why
    best: dict[int, Flow] = {}
    others: dict[int, int] = {}
    for flow in session.flows(rule.id, file.path):
        current = best.get(flow.sink_line)
        others[flow.sink_line] = others.get(flow.sink_line, 0) + 1
        # The most severe flow; then a request source over a local one; then a flow the PR
        # touched directly.
        if current is None or _rank(flow) > _rank(current):
            best[flow.sink_line] = flow
    return [_flow_finding(rule, flow, others[line] - 1) for line, flow in best.items()], None


def _rank(flow: Flow) -> tuple[int, bool, bool]:
    return (Severity(flow.severity).rank, flow.origin == "web", flow.why_new == "added line")


def with_flows(patterns: list[Finding], flows: list[Finding]) -> list[Finding]:
    """Pattern and flow findings of one rule and file: a flow ending on a line a pattern
    already reports at least as severely becomes that finding's ``flow`` (one finding)."""
    by_line = {(f.rule, f.path, f.line): i for i, f in enumerate(patterns) if f.source == "pattern"}
    merged = list(patterns)
    rest = []
    for flow in flows:
        index = by_line.get((flow.rule, flow.path, flow.line))
        # Only into a finding at least as severe (a MEDIUM "quoting removed" on the same line
        # must not hide a CRITICAL flow).
        if index is None or merged[index].severity.rank < flow.severity.rank:
            rest.append(flow)
        elif not merged[index].flow:
            merged[index] = replace(merged[index], flow=flow.flow)
    return [*merged, *rest]


def record_verdicts(findings: list[Finding], model: list[Finding]) -> list[Finding]:
    """Each taint finding with the model's verdict on its path: confirmed when the model
    reported a finding at the same sink (path and line), else not confirmed. The finding
    stands either way (a model never overrides a deterministic finding); the verdict is
    written into its explanation, so every report shows it."""
    confirmed = {(f.path, f.line) for f in model}
    out = []
    for finding in findings:
        if finding.source == "taint" and finding.flow:
            verdict = ("confirmed by the model review (it reported this sink)"
                       if (finding.path, finding.line) in confirmed else
                       "not confirmed by the model review (it reported nothing at this sink)")
            finding = replace(finding, explanation=f"{finding.explanation}\nPath {verdict}.")
        out.append(finding)
    return out


def _flow_finding(rule: Rule, flow: Flow, more: int) -> Finding:
    source, sink = flow.steps[0], flow.steps[-1]
    path_text = "\n".join(
        f"{i}. {step.path}:{step.line} [{step.kind}] {step.text}"
        + (f"  ({step.note})" if step.note and step.kind in ("source", "sink", "call") else "")
        for i, step in enumerate(flow.steps, 1)
    )
    new = ("a step of it is on a line this pull request adds" if flow.why_new == "added line"
           else "it does not exist at the base revision: the pull request removed what "
                "stopped it (a sanitizer, a cast or a guard)")
    kind = "request" if flow.origin == "web" else "local (command line, stdin or environment)"
    explanation = (
        f"Untrusted {kind} data flows from {source.path}:{source.line} to the sink at "
        f"{sink.path}:{sink.line}; "
        f"{new}. Path:\n{path_text}"
        + (f"\n({more} other flow(s) reach the same sink.)" if more else "")
    )
    title = f"{rule.title}: untrusted data reaches {sink.note or 'a sink'}"
    finding = Finding(
        rule=rule.id,
        severity=Severity(flow.severity),
        title=title,
        path=flow.sink_path,
        line=flow.sink_line,
        source="taint",
        category=rule.category,
        cwe=rule.cwe or flow.cwe,
        explanation=explanation,
        recommendation=rule.description,
        confidence=0.9 if flow.origin == "web" else 0.7,
        flow=tuple(FlowStep(s.path, s.line, s.text, s.kind) for s in flow.steps),
    )
    return finding.with_fingerprint("taint:" + sink.text)
