"""The terminal summary: what was reviewed, outcomes, findings, and what was not reviewed."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from _pytest.terminal import TerminalReporter

from ..core.findings import Finding
from ..core.severity import Severity
from ..phase_names import PHASES_PLUGIN
from ..rules.loader import BUNDLED
from ..severity import one_line
from .disagreement import disagreements
from .kind import review_kind
from .review_view import ReviewView
from .summary import ItemResult, Summary

#: Terminal markup of each severity in the findings list (a muted finding is not coloured).
SEVERITY_MARKUP: dict[str, dict[str, bool]] = {
    "CRITICAL": {"red": True, "bold": True},
    "HIGH": {"red": True},
    "MEDIUM": {"yellow": True},
    "LOW": {"cyan": True},
}
#: Findings listed one per line in the terminal; the rest are in the report files.
MAX_LISTED = 30
#: Items listed under one "not reviewed" reason; the rest are counted.
MAX_PER_REASON = 10
#: Risk evidence lines listed with no model; the rest are in ``summary.json``.
MAX_EVIDENCE = 10


def write_summary(
    tr: TerminalReporter, review: ReviewView, summary: Summary, outputs: list[str],
    collected: int = 0,
) -> None:
    """Write the ``secreview`` section of pytest's terminal summary. ``collected`` is the
    number of review items selected (what ``--collect-only`` reports)."""
    tr.section("secreview", sep="=", bold=True)
    # What the pull request changed in pytest's own configuration comes first.
    for warning in review.warnings:
        tr.line(f"WARNING: {one_line(warning)}", red=True, bold=True)
    diff = review.diff
    files = diff.files
    tr.line(
        f"reviewed {review.base_ref}...{review.settings.head} (merge base "
        f"{diff.base_sha[:12]}, head {diff.head_sha[:12]}): {len(files)} changed file(s)"
    )
    origin = "base revision" if review.settings.rules_from == "base" else "head revision"
    tr.line(f"rules: {len(review.rule_files.sources)} rule file(s) (repository rules read "
            f"from the {origin}); fail on {review.settings.fail_on.value} and above")
    kind = review_kind(review)
    if kind:
        tr.line(kind, yellow=True)
    requested = review.settings.rules
    if requested and BUNDLED not in requested:
        tr.line(f"rules: the bundled rules are not used (--secreview-rules names only "
                f"{one_line(', '.join(requested))}); add --secreview-rules {BUNDLED} to use "
                "them as well", yellow=True)
    if tr.config.option.collectonly:
        # Nothing was evaluated: neither "nothing to review" nor outcomes that never happened.
        tr.line(f"collected {collected} item(s), not evaluated (--collect-only)", yellow=True)
        for note in review.rule_files.notes:
            tr.line(f"note: {note}", yellow=True)
        return
    phases = tr.config.pluginmanager.get_plugin(PHASES_PLUGIN)
    if phases is not None and not phases.runs("evaluate"):
        # A phase run that evaluates nothing: what it wrote, not outcomes that never happened.
        for line in outputs:
            tr.line(one_line(line))
        for note in review.rule_files.notes:
            tr.line(f"note: {one_line(note)}", yellow=True)
        return
    counts = summary.outcomes()
    tr.line("items: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in ("passed", "failed", "skipped", "error")
    ))
    findings = summary.findings()
    if findings:
        # Counted as summary.md counts them: what counts by severity, the suppressed apart.
        by_sev = {s.value: 0 for s in Severity}
        for f in findings:
            if not f.suppressed:
                by_sev[f.severity.value] += 1
        counted = ", ".join(f"{n} {s}" for s, n in by_sev.items() if n) or "none"
        suppressed = sum(1 for f in findings if f.suppressed)
        merged = sum(f.reports - 1 for f in findings)
        tr.line("findings: " + counted + (f" · {suppressed} suppressed" if suppressed else "")
                + (f" · {len(findings)} finding{'s' if len(findings) != 1 else ''} ({merged} "
                   f"report{'s' if merged != 1 else ''} merged)" if merged else ""))
        write_triage_counts(tr, findings)
        write_suppressed_counts(tr, findings)
        muted = sum(1 for f in findings if f.below_min_confidence)
        if muted:
            tr.line(f"below --secreview-min-confidence: {muted} finding(s) (kept in JSON and "
                    "SARIF, marked; they fail nothing and get no inline comment)")
        # Every item's findings, also those of skipped items and those below the threshold.
        for f in findings[:MAX_LISTED]:
            mark = _suppressed_mark(f) or (_below_mark(f) if f.below_min_confidence else "")
            rules = ", ".join(f.rules or [f.rule])  # several: one problem, merged
            tr.write(f"  {one_line(f.path)}:{f.line}  ")
            # Coloured when the terminal supports it (pytest's --color decides).
            severity = f.severity.value
            tr.write(severity, **({} if mark else SEVERITY_MARKUP.get(severity, {})))
            tr.line(f"  {one_line(f.title)}  ({one_line(rules)}){mark}")
        if len(findings) > MAX_LISTED:
            tr.line(f"  ... and {len(findings) - MAX_LISTED} more in the report")
    _write_disagreements(tr, summary)
    write_unjudged_evidence(tr, review)
    cached = sum(1 for r in summary.items.values() if r.cached)
    if cached:
        tr.line(f"cache: {cached} item(s) reused a stored model review (no model call)")
    usage = summary.usage_totals()
    if usage["model_calls"]:
        cost = "unknown" if usage["cost_usd"] is None else f"${usage['cost_usd']:.4f}"
        tr.line(
            f"usage: {usage['model_calls']} model call(s), {usage['tool_calls']} tool call(s), "
            f"{usage['input_tokens']} input tokens ({usage['cached_tokens']} cached, "
            f"{usage['cache_write_tokens']} cache writes), "
            f"{usage['output_tokens']} output tokens ({usage['reasoning_tokens']} reasoning), "
            f"estimated cost {cost}"
        )
    _write_unreviewed(tr, summary, review.settings.unreviewed)
    write_not_reviewed(tr, review, summary)
    for line in outputs:
        tr.line(one_line(line))
    for note in review.rule_files.notes:
        if note not in review.warnings:
            tr.line(f"note: {one_line(note)}", yellow=True)
    write_coverage(tr, review)
    write_not_preloaded(tr, summary)
    if review.deselected or (review.selection and not summary.items):
        given = " ".join(f"{k}={v!r}" for k, v in sorted(review.selection.items()))
        tr.line(f"{review.deselected} review item(s) deselected ({given or 'selection options'})"
                ": they were not reviewed", yellow=True, bold=True)
    elif not summary.items and not tr.stats.get("error"):
        tr.line(review.triage.nothing_to_review(), green=True)


def _write_disagreements(tr: TerminalReporter, summary: Summary) -> None:
    """Several models: which model said what where they did not all say the same."""
    for result in sorted(summary.items.values(), key=lambda r: r.nodeid):
        lines = disagreements(result.assessments)
        if lines:
            tr.line(f"models disagree on {_label(result)}:", yellow=True)
            for line in lines:
                tr.line(f"  {one_line(line)}")


def write_unjudged_evidence(tr: TerminalReporter, review: ReviewView) -> None:
    """No model: the intent audit's risk evidence (computed once: the review's
    ``intent_evidence``) when it holds any signal, said to be no verdict."""
    evidence = review.intent_evidence
    if evidence is None or not evidence.items:
        return
    counts = ", ".join(f"{one_line(name)} ({count})" for name, count in evidence.counts)
    tr.line(f"intent audit risk evidence (deterministic; not judged: no model is configured, so "
            f"this is no verdict and fails nothing): {counts}", yellow=True)
    for item in evidence.items[:MAX_EVIDENCE]:
        tr.line(f"  {one_line(item.describe())}")
    hidden = max(0, len(evidence.items) - MAX_EVIDENCE) + evidence.truncated
    if hidden > 0:
        tr.line(f"  ... and {hidden} more in summary.json (risk_evidence)")


def _write_unreviewed(tr: TerminalReporter, summary: Summary, policy: str) -> None:
    """Skipped, errored and failed items that were not fully reviewed (under
    ``--secreview-unreviewed=fail``, or failed by their findings anyway), grouped by reason:
    each reason once, then one line per item saying what its deterministic checks found, so
    a skipped item with findings below the threshold is not mistaken for a clean one."""
    groups: dict[tuple[str, str], list[ItemResult]] = defaultdict(list)
    for result in summary.items.values():
        if result.outcome == "skipped":
            groups[("skipped", result.not_reviewed or result.reason or "skipped")].append(result)
        elif result.outcome == "error":
            groups[("error", result.reason or "error")].append(result)
        elif result.outcome == "failed" and result.not_reviewed:
            groups[("failed", result.not_reviewed)].append(result)
    titles = {
        "skipped": ("skipped (not reviewed):", {"yellow": True}),
        "failed": ("failed, and not fully reviewed:", {"red": True}),
        "error": ("errors:", {"red": True}),
    }
    for kind, (title, markup) in titles.items():
        reasons = sorted((reason, items) for (k, reason), items in groups.items() if k == kind)
        if not reasons:
            continue
        tr.line(title, **markup)
        for reason, items in reasons:
            tr.line(f"  {len(items)} x {one_line(reason)}")
            ordered = sorted(items, key=lambda r: r.nodeid)
            for result in ordered[:MAX_PER_REASON]:
                tr.line(f"      {_label(result)}{_findings_note(result)}")
            if len(ordered) > MAX_PER_REASON:
                tr.line(f"      ... and {len(ordered) - MAX_PER_REASON} more in the report")
    unreviewed = sum(len(items) for (kind, _), items in groups.items() if kind == "skipped")
    if unreviewed and policy == "warn":
        tr.line(
            f"warning: {unreviewed} item(s) could not be fully reviewed and were skipped; a skip "
            "is not a pass. Use --secreview-unreviewed=fail (recommended for CI) to fail them",
            yellow=True, bold=True,
        )


def write_not_reviewed(tr: TerminalReporter, review: ReviewView, summary: Summary) -> None:
    """What was not reviewed, counted as summary.md and summary.json count it (one list:
    :func:`~.build.not_reviewed_entries`), each reason once with its number of paths; then
    the binary media that is not code (:func:`~.build.not_code`), which fails nothing."""
    from .build import not_code, not_reviewed_entries  # the report model loads only when used
    from .model import files_not_reviewed

    entries = not_reviewed_entries(review, summary)
    if entries:
        reasons: dict[str, set[str]] = defaultdict(set)
        for entry in entries:
            reasons[entry.reason].add(entry.path)
        tr.line(f"not reviewed: {files_not_reviewed(entries)} (listed in summary.md): "
                + "; ".join(f"{len(paths)} x {one_line(reason)}" for reason, paths in sorted(
                    reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))), yellow=True)
    media = not_code(review, summary)
    if media:
        kinds = Counter(media.values())
        tr.line(f"not code: {len(media)} (binary media by name and content, scanned for "
                "credentials; listed in summary.md): " + "; ".join(
                    f"{n} x {kind}" for kind, n in sorted(kinds.items(),
                                                          key=lambda kv: (-kv[1], kv[0]))))


def _label(result: ItemResult) -> str:
    path = one_line(result.path)
    return f"{one_line(result.rule)}[{path}]" if result.rule else path


def _findings_note(result: ItemResult) -> str:
    """`` (2 deterministic finding(s), worst HIGH)`` for an item whose checks found something."""
    found = [f for f in result.findings if not f.suppressed
             and any(not s.startswith("model:") for s in f.source.split("+"))]
    if not found:
        return ""
    worst = max((f.severity for f in found), key=lambda s: s.rank)
    return f"  ({len(found)} deterministic finding(s), worst {worst.value})"


def write_coverage(tr: TerminalReporter, review: ReviewView) -> None:
    """The coverage line and what the general review left out (grouped by reason)."""
    from .build import coverage_notes  # the report model loads only when a review ran

    for note in coverage_notes(review):
        tr.line(note, yellow=note.startswith("no general"))
    left: dict[str, list[str]] = defaultdict(list)
    for item in review.left_out:
        left[item.reason].append(item.path)
    if left:
        tr.line("not in front of a model:", yellow=True)
        for reason, paths in sorted(left.items()):
            shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5
                                            else "")
            tr.line(f"  {len(paths)} x {one_line(reason)}: {one_line(shown)}")


def write_triage_counts(tr: TerminalReporter, findings: Sequence[Finding]) -> None:
    """How many pattern and scanner findings the model confirmed, dismissed or left."""
    counts = {state: sum(1 for f in findings if f.triage == state)
              for state in ("confirmed", "dismissed", "untriaged")}
    if any(counts.values()):
        tr.line("finding triage: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
                + (" (dismissed ones are kept as suppressed in JSON and SARIF, with the "
                   "reason, and fail nothing)" if counts["dismissed"] else ""))


def write_not_preloaded(tr: TerminalReporter, summary: Summary) -> None:
    """The hunks left out of items' prompts by ``--secreview-max-context-chars`` (the model
    could still read them with its tools)."""
    items = [(r, r.usage.get("not_preloaded") or []) for r in summary.items.values()]
    items = [(r, left) for r, left in items if left]
    if not items:
        return
    tr.line(f"not pre-loaded into the prompt (over --secreview-max-context-chars; reachable "
            f"through the tools): {sum(len(left) for _, left in items)} hunk(s) in "
            f"{len(items)} item(s)", yellow=True)
    for result, left in items[:MAX_PER_REASON]:
        shown = "; ".join(str(x) for x in left[:3]) + (
            f" and {len(left) - 3} more" if len(left) > 3 else "")
        tr.line(f"  {result.rule} on {one_line(result.path)}: {one_line(shown)}")
def _suppressed_mark(finding: Finding) -> str:
    if finding.suppression == "inline":
        added = ", added by this pull request" if finding.suppression_added else ""
        return f"  [suppressed inline{added}]"
    if finding.suppression == "baseline":
        return "  [in the baseline]"
    if finding.suppression == "excluded":
        return "  [excluded: the rule does not see this file]"
    if finding.suppression == "filtered":
        return "  [dropped by the pytest_secreview_filter_finding hook]"
    return "  [dismissed by the model]" if finding.dismissed else ""


def _below_mark(finding: Finding) -> str:
    confidence = finding.confidence
    value = f"{confidence:.2f}" if confidence is not None else "none stated"
    return f"  [below --secreview-min-confidence: {value}]"


def write_suppressed_counts(tr: TerminalReporter, findings: Sequence[Finding]) -> None:
    """How many findings inline suppressions and the baseline muted (never silently), and
    how many of those the baseline muted without a note."""
    from ..suppression.baseline import muted_without_note  # loads only when a review ran

    inline = [f for f in findings if f.suppression == "inline"]
    baseline = sum(1 for f in findings if f.suppression == "baseline")
    added = sum(1 for f in inline if f.suppression_added)
    noteless = sum(1 for f in findings
                   if muted_without_note(f.suppression, f.suppression_reason))
    if inline or baseline:
        parts = [f"{len(inline)} inline" + (f" ({added} added by this pull request)"
                                            if added else ""), f"{baseline} baseline"
                 + (f" ({noteless} muted by baseline entries without a note: give them one)"
                    if noteless else "")]
        tr.line("suppressed: " + ", ".join(parts) + " (kept in JSON and SARIF with the reason; "
                "they fail nothing)", yellow=bool(added))
