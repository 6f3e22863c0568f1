"""Build the :class:`Report` from the session's state and the items' reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import __version__
from ..diff.kinds import exclusion_note
from ..github.context import PullRequest
from ..rules.scanner_spec import IDLE_REASONS
from ..severity import one_line
from .kind import review_kind
from .model import (
    ChangeReport,
    FixReport,
    ItemReport,
    NotCode,
    NotReviewed,
    Report,
    RiskEvidenceReport,
    RuleReport,
    Usage,
)
from .review_view import ReviewView
from .summary import ItemResult, Summary

if TYPE_CHECKING:
    from ..triage.gaps import Gap


def _rules(review: ReviewView) -> list[RuleReport]:
    rules = []
    for rule in review.rules:  # a broken rule is already a collection error
        rules.append(RuleReport(
            id=rule.id, title=rule.title, source=rule.source, severity=rule.severity,
            description=rule.description, category=rule.category, cwe=rule.cwe,
            owasp=rule.owasp, documentation_link=rule.documentation_link,
            comment_template=rule.comment_template,
            help=rule.description or rule.title,
        ))
    return sorted(rules, key=lambda r: r.id)


def changes_of(result: ItemResult) -> list[ChangeReport]:
    """The item record's changes, each with whether ``core.decide`` accepted it."""
    if result.record is None or result.verdict is None:
        return []
    refused = {r.change: r.why for r in result.verdict.refused}
    return [ChangeReport(fingerprint=c.fingerprint, kind=c.kind.value, origin=c.origin.value,
                         trusted=c.trusted, target=c.target.value, reason=c.reason,
                         severity=c.severity, accepted=c not in refused,
                         refused_because=refused.get(c, ""))
            for c in result.record.changes]


def build_report(review: ReviewView, summary: Summary, pr: PullRequest | None) -> Report:
    """The report of the whole review: the same whatever the order items finished in."""
    items = [
        ItemReport(
            nodeid=r.nodeid, rule=r.rule, path=r.path, outcome=r.outcome,  # type: ignore[arg-type]
            reason=r.reason, mode=r.mode, cached=r.cached,
            findings=list(r.findings), usage=r.usage,
            duration=round(r.duration, 3),
            risk_evidence=r.risk_evidence, assessments=r.assessments,  # type: ignore[arg-type]
            fixes=[FixReport.from_json(f) for f in r.fixes], changes=changes_of(r),
        )
        for r in sorted(summary.items.values(), key=lambda r: r.nodeid)
    ]
    counts = summary.outcomes()
    return Report(
        tool_version=__version__,
        repository=pr.repository if pr else None,
        pull_request=pr.number if pr else None,
        base_ref=review.base_ref,
        base_sha=review.diff.base_sha,
        head_sha=review.diff.head_sha,
        fail_on=review.settings.fail_on,
        outcomes={k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "error")},
        findings=summary.findings(),
        items=items,
        rules=_rules(review),
        not_reviewed=not_reviewed_entries(review, summary),
        not_code=[NotCode(path=path, content=content)
                  for path, content in sorted(not_code(review, summary).items())],
        usage=Usage(**summary.usage_totals()),
        notes=[*review.rule_files.notes, *coverage_notes(review)],
        review_kind=review_kind(review),
        risk_evidence=unjudged_evidence(review),
    )


def unjudged_evidence(review: ReviewView) -> RiskEvidenceReport | None:
    """The intent audit's risk evidence when no model judges it (the review's
    ``intent_evidence``, computed once), in the report's one representation of evidence."""
    evidence = review.intent_evidence
    if evidence is None:
        return None
    return RiskEvidenceReport.model_validate(evidence.to_json())


def settled_gaps(review: ReviewView, summary: Summary) -> list[Gap]:
    """The gaps whose unreviewed item ran its scan and recorded nothing unreviewed: a file
    ``.secreviewignore`` names (listed in the notes) or binary media (:func:`not_code`).
    Neither is counted as not reviewed; an item that did not run, or whose scan failed,
    leaves its file not reviewed."""
    settled = []
    for gap in review.gaps:
        result = summary.items.get(gap.nodeid)
        if (gap.scan and result is not None and not result.not_reviewed
                and result.outcome in ("passed", "failed")):
            settled.append(gap)
    return settled


def not_code(review: ReviewView, summary: Summary) -> dict[str, str]:
    """Path -> what it is, for every changed file that is binary media holding no code (the
    gaps' one classification, :func:`~..triage.gaps.judge_binary`) once its item scanned it:
    listed as not code by every output, never as not reviewed."""
    return {gap.file.path: gap.not_code for gap in settled_gaps(review, summary)
            if gap.not_code is not None}


def not_reviewed_entries(review: ReviewView, summary: Summary) -> list[NotReviewed]:
    """What was not (fully) reviewed, one entry per path and rule, sorted: the one list that
    ``summary.json`` holds and that summary.md and the terminal count (in files:
    :func:`~.model.files_not_reviewed`). A settled gap (:func:`settled_gaps`: an ignored
    file, binary media) is not in it."""
    unreviewed = {r.nodeid: r.not_reviewed for r in summary.items.values() if r.not_reviewed}
    settled = {gap.file.path for gap in settled_gaps(review, summary)}
    batches = batch_paths(review)
    not_reviewed = [
        NotReviewed(path=path, rule=i.rule,
                    reason=i.reason or unreviewed.get(i.nodeid) or i.outcome)
        # A file the review cannot read whole is listed once, below, whatever its item did.
        for i in summary.items.values()
        if (i.outcome in ("skipped", "error") or i.nodeid in unreviewed) and i.rule is not None
        for path in batches.get(i.nodeid, (i.path,))
    ]
    # What the general review left out (documentation, lock files, over budget...).
    not_reviewed.extend(NotReviewed(path=x.path, reason=x.reason) for x in review.left_out)
    listed = {x.path for x in review.left_out}  # over the budget: listed above
    gaps = {gap.file.path: gap.reason for gap in review.gaps if gap.file.path not in listed}
    for file in review.diff.files:
        if file.path in settled:
            continue
        reason = gaps.get(file.path) or file.unreviewed_reason
        if reason:
            not_reviewed.append(NotReviewed(path=file.path, reason=reason))
        elif file.binary:
            not_reviewed.append(NotReviewed(path=file.path, reason="binary file"))
        elif file.submodule:
            not_reviewed.append(NotReviewed(path=file.path, reason="submodule deleted"))
        elif file.kind.value == "deleted":
            not_reviewed.append(NotReviewed(path=file.path, reason="deleted file"))
    return sorted(not_reviewed, key=lambda n: (n.path, n.rule or "", n.reason))


def batch_paths(review: ReviewView) -> dict[str, tuple[str, ...]]:
    """Node id of each batch of the general review -> every path it holds."""
    out: dict[str, tuple[str, ...]] = {}
    for batch in review.triage.coverage.batches:
        nodeid = f"{batch.rule.source}::{batch.rule.id}[{one_line(batch.label)}]"
        out[nodeid] = tuple(dict.fromkeys(p.file.path for p in batch.parts))
    return out


def coverage_notes(review: ReviewView) -> list[str]:
    """One line on the coverage guarantee: how many hunks the general review batched, or
    why nothing guarantees that every hunk is in front of a model; after the lines on what
    made no item for want of configuration (semgrep without its rule files, the advisory
    check without an advisory source) and on the files
    out of the non-credential rules by default, which every branch keeps."""
    plan = review.triage
    cov = plan.coverage
    notes = [f"{rule.id} made no item: {IDLE_REASONS[rule.scanner.name]}"
             for rule in review.rules
             if rule.scanner is not None and rule.scanner.name in plan.idle_scanners
             and review.prepared.targets(rule)]
    excluded = exclusion_note(review.prepared.excluded, review.prepared.chosen)
    if excluded:
        notes.append(excluded)
    if review.deterministic_review:
        return notes  # the review-kind line says the general review did not run
    if cov.rule is None:
        if not plan.reviewable:
            return notes
        return [*notes, "no general review rule (a rule with `coverage:`, such as the bundled "
                "security-review) is loaded: changed code that no rule matched is not in front "
                "of a model; add --secreview-rules :bundled or copy rules/security-review.md"]
    if not cov.batches:
        return notes
    files = len({p.file.path for b in cov.batches for p in b.parts})
    over = [x for x in review.left_out if x.over_budget]
    beyond = (f"; {sum(x.hunks for x in over)} hunk(s) of {len(over)} file(s) over its budget "
              "are not reviewed" if over else "")
    return [*notes, f"coverage: {cov.hunks_batched} hunk(s) of {files} file(s) that no specific "
            f"rule matched are reviewed by {cov.rule.id} in {len(cov.batches)} item(s){beyond}"]
