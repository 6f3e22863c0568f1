"""The terminal summary: what was reviewed, outcomes, findings, and what was not reviewed."""

from __future__ import annotations

from collections import defaultdict

from _pytest.terminal import TerminalReporter

from ..severity import Severity, one_line
from ..state import ReviewState
from .build import coverage_notes
from .summary import Summary

#: Findings listed one per line in the terminal; the rest are in the report files.
MAX_LISTED = 30


def write_summary(
    tr: TerminalReporter, review: ReviewState, summary: Summary, outputs: list[str]
) -> None:
    """Write the ``secreview`` section of pytest's terminal summary."""
    tr.section("secreview", sep="=", bold=True)
    diff = review.diff
    files = diff.files
    tr.line(
        f"reviewed {review.base_ref}...{review.settings.head} (merge base "
        f"{diff.base_sha[:12]}, head {diff.head_sha[:12]}): {len(files)} changed file(s)"
    )
    origin = "base revision" if review.settings.rules_from == "base" else "head revision"
    tr.line(f"rules: {len(review.rule_files.sources)} rule file(s) (repository rules read "
            f"from the {origin}); fail on {review.settings.fail_on.value} and above")
    counts = summary.outcomes()
    tr.line("items: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in ("passed", "failed", "skipped", "error")
    ))
    findings = summary.findings()
    if findings:
        by_sev = {s.value: 0 for s in Severity}
        for f in findings:
            by_sev[f["severity"]] += 1
        tr.line("findings: " + ", ".join(f"{n} {s}" for s, n in by_sev.items() if n))
        write_triage_counts(tr, findings)
        # Every item's findings, also those of skipped items and those below the threshold.
        for f in findings[:MAX_LISTED]:
            mark = "  [dismissed by the model]" if f.get("triage") == "dismissed" else ""
            tr.line(f"  {one_line(f['path'])}:{f['line']}  {f['severity']}  "
                    f"{one_line(f['title'])}  ({f['rule']}){mark}")
        if len(findings) > MAX_LISTED:
            tr.line(f"  ... and {len(findings) - MAX_LISTED} more in the report")
    cached = sum(1 for r in summary.items.values() if r.cached)
    if cached:
        tr.line(f"cache: {cached} item(s) reused a stored model review (no model call)")
    usage = summary.usage_totals()
    if usage["model_calls"]:
        cost = "unknown" if usage["cost_usd"] is None else f"${usage['cost_usd']:.4f}"
        tr.line(
            f"usage: {usage['model_calls']} model call(s), {usage['tool_calls']} tool call(s), "
            f"{usage['input_tokens']} input tokens ({usage['cached_tokens']} cached), "
            f"{usage['output_tokens']} output tokens ({usage['reasoning_tokens']} reasoning), "
            f"estimated cost {cost}"
        )
    skipped: dict[str, list[str]] = defaultdict(list)
    errors: dict[str, list[str]] = defaultdict(list)
    for result in summary.items.values():
        label = result.rule or result.path
        if result.outcome == "skipped":
            skipped[result.reason or "skipped"].append(label)
        elif result.outcome == "error":
            errors[result.reason or "error"].append(label)
    for title, groups in (("skipped (not reviewed)", skipped), ("errors", errors)):
        if groups:
            tr.line(f"{title}:", yellow=title.startswith("skipped"), red=title == "errors")
            for reason, labels in sorted(groups.items()):
                names = ", ".join(sorted(set(labels)))
                tr.line(f"  {len(labels)} x {one_line(reason)}")
                tr.line(f"      {one_line(names)}")
    left_out = {
        "binary": sum(1 for f in files if f.binary),
        "deleted": sum(1 for f in files if f.kind.value == "deleted" and not f.binary),
        "submodule": sum(1 for f in files if f.submodule),
    }
    if any(left_out.values()):
        tr.line("files without items: " + ", ".join(
            f"{n} {kind}" for kind, n in left_out.items() if n
        ))
    for line in outputs:
        tr.line(one_line(line))
    for note in review.rule_files.notes:
        tr.line(f"note: {note}", yellow=True)
    write_coverage(tr, review)
    if not summary.items and not tr.stats.get("error"):
        tr.line(review.triage.nothing_to_review(), green=True)


def write_coverage(tr: TerminalReporter, review: ReviewState) -> None:
    """The coverage line and what the general review left out (grouped by reason)."""
    for note in coverage_notes(review):
        tr.line(note, yellow=note.startswith("no general"))
    left: dict[str, list[str]] = defaultdict(list)
    for item in review.triage.left_out():
        left[item.reason].append(item.path)
    if left:
        tr.line("not in front of a model:", yellow=True)
        for reason, paths in sorted(left.items()):
            shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5
                                            else "")
            tr.line(f"  {len(paths)} x {one_line(reason)}: {one_line(shown)}")


def write_triage_counts(tr: TerminalReporter, findings: list[dict[str, object]]) -> None:
    """How many pattern and scanner findings the model confirmed, dismissed or left."""
    counts = {state: sum(1 for f in findings if f.get("triage") == state)
              for state in ("confirmed", "dismissed", "untriaged")}
    if any(counts.values()):
        tr.line("finding triage: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
                + (" (dismissed ones are kept as suppressed in JSON and SARIF, with the "
                   "reason, and fail nothing)" if counts["dismissed"] else ""))
