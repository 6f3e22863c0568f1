"""The markdown summary: ``summary.md``, ``GITHUB_STEP_SUMMARY`` and the PR summary comment.

:func:`to_markdown` renders a :class:`~.model.Report` deterministically (same report, same
bytes): the header, the findings (:mod:`.markdown_finding`, laid out and fitted into the size
limit by :mod:`.markdown_layout`), and the sections: suppressions the pull request adds, the
intent audit, where models disagree, proposed fixes, other suppressed findings, what was
resolved and what was not reviewed, usage and notes. Every text from the pull request or a
model goes through the escaping helpers of :mod:`.markdown_text`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.problems import merged_reports
from ..core.severity import Severity, worst_first
from ..suppression.baseline import muted_without_note
from .disagreement import disagreements
from .fixes import fixes_block
from .markdown_finding import ICONS, TITLE_LIMIT, finding_blocks, finding_location, suppressed_label
from .markdown_layout import (
    DEFAULT_FULL_REPORT,
    GITHUB_COMMENT_LIMIT,
    SEVERITY_ORDER,
    Entry,
    findings_section,
    hard_cut,
    notable_threshold,
    shorten,
)
from .markdown_text import display_safe, escape_text, inline_code
from .model import FindingReport, ItemReport, Outcome, Report, RiskEvidenceReport

_LIST_LIMIT = 10  # paths shown per "not reviewed" reason
_REASONS_LIMIT = 25
_RESOLVED_LIMIT = 100
_NOTES_LIMIT = 30
_NOTE_CHARS = 600


def to_markdown(
    report: Report,
    *,
    resolved: Sequence[FindingReport | Mapping[str, Any]] = (),
    max_chars: int = GITHUB_COMMENT_LIMIT,
    link_base: str | None = None,
    full_report: str = DEFAULT_FULL_REPORT,
) -> str:
    """Render ``report`` as GitHub-flavoured markdown of at most ``max_chars`` characters.

    ``resolved``: findings of the previous run that are gone now (:class:`FindingReport` or
    mappings with ``title``, ``path``, ``line``, ``rule``, ``severity``); shown struck through.
    ``link_base``: ``https://github.com/owner/repo`` (or a GHE server's equivalent) to link
    each location to ``blob/<head_sha>/<path>#L<line>``; plain ``path:line`` without it.
    ``full_report``: where the complete report is (trusted markdown), for the note shown when
    the summary had to be shortened.

    Shortening order: details of findings below ``fail_on`` (lowest severity first), the
    not-code list, the notes and resolved sections, findings below the notable threshold,
    details of failing findings (last first), the remaining findings below ``fail_on``, the
    not-reviewed section, and last failing findings themselves. Room left afterwards is given
    back worst first. A hard cut at a line is the last resort (a tiny ``max_chars``).
    """
    rules = {r.id: r for r in report.rules}
    threshold = notable_threshold(report.fail_on)
    entries = []
    # Suppressed findings are listed in their own blocks, with the reason.
    for finding in sorted((f for f in report.findings if not f.suppressed),
                          key=FindingReport.sort_key):
        full, brief = finding_blocks(finding, rules.get(finding.rule), report, link_base)
        entries.append(Entry(finding, full, brief))
    tail = {
        "resolved": _resolved_block(resolved),
        "not reviewed": _not_reviewed_block(report),
        "not code": _not_code_block(report),
        "notes": _notes_block(report),
        "intent": _intent_block(report),
        "models": _models_block(report),
        "fixes": fixes_block(report),
        "suppressed": _suppressed_block(report, link_base),
    }
    added = _added_block(report, link_base)  # never dropped: the reviewer must see these
    version = re.sub(r"[^0-9A-Za-z.+-]", "", report.tool_version)[:40]
    footer = f"<sub>pytest-secreview {version}</sub>"

    def assemble(note: str | None, dropped: Sequence[str]) -> str:
        blocks = [_header(report)]
        if report.review_kind:  # trusted text of ours: what kind of review this was
            blocks.append(f"> {report.review_kind}")
        if note:
            blocks.append(note)
        blocks += findings_section(entries, threshold)
        if added:
            blocks.append(added)
        blocks += [tail[name] or "" for name in ("intent", "models", "fixes", "suppressed",
                                                 "resolved",
                                                 "not reviewed", "not code")
                   if tail[name] and name not in dropped]
        blocks.append(_usage_block(report))
        if tail["notes"] and "notes" not in dropped:
            blocks.append(tail["notes"])
        blocks.append(footer + "\n")  # not added to the joined text: one copy less of it
        return "\n\n".join(blocks)

    text = assemble(None, ())
    if len(text) > max_chars:
        text = shorten(entries, tail, assemble, max_chars, full_report, report.fail_on)
    # A last pass over the whole text: cheap, and a secret can never slip through a seam.
    text = display_safe(text)
    return text if len(text) <= max_chars else hard_cut(text, max_chars, full_report)


def _header(report: Report) -> str:
    failing = len(report.failing)
    errors = report.outcomes.get("error", 0)
    skipped = report.outcomes.get("skipped", 0)
    threshold = report.fail_on.value
    noun = "finding" if failing == 1 else "findings"
    if failing or errors:
        icon = "🔴"
    elif skipped or report.not_reviewed or any(f.suppression_added for f in report.findings):
        icon = "🟡"  # something needs a look: also a suppression the pull request adds
    else:
        icon = "🟢"
    head = f"## {icon} pytest-secreview: {failing} {noun} at or above {threshold}"
    if errors:
        head += f", {errors} item{'s' if errors != 1 else ''} could not be evaluated"
    if report.not_reviewed and not errors:
        head += f", {report.files_not_reviewed} not reviewed"
    where = []
    if report.repository:
        where.append(inline_code(report.repository, 200))
    if report.pull_request:
        where.append(f"pull request {report.pull_request}")
    labels: tuple[tuple[Outcome, str], ...] = (
        ("passed", "passed"), ("failed", "failed"), ("skipped", "skipped"), ("error", "errors"))
    counts = ", ".join(f"{report.outcomes.get(k, 0)} {label}" for k, label in labels)
    by_severity = ", ".join(
        f"{n} {s.value}" for s in SEVERITY_ORDER
        if (n := sum(1 for f in report.findings if f.severity is s and not f.suppressed))
    ) or "none"
    if merged := merged_reports(report.findings):  # one finding per problem, said how
        by_severity += (f" · {len(report.findings)} finding"
                        f"{'s' if len(report.findings) != 1 else ''} ({merged} "
                        f"report{'s' if merged != 1 else ''} merged)")
    suppressed = sum(1 for f in report.findings if f.suppressed)
    if suppressed:  # never silent: counted here, listed below
        by_severity += f" · {suppressed} suppressed"
        noteless = sum(1 for f in report.findings
                       if muted_without_note(f.suppression, f.suppression_reason))
        if noteless:  # an unexplained mute is visible, so someone writes the note
            by_severity += f" ({noteless} muted by baseline entries without a note)"
    stats = (
        " · ".join([*where, f"head {inline_code(report.head_sha[:12])}",
                    f"base {inline_code(report.base_ref, 200)}"])
        + f"\n\nItems: {counts} · findings: {by_severity} · fail on {threshold} and above"
    )
    return head + "\n\n" + stats


def _field(entry: FindingReport | Mapping[str, Any], name: str) -> Any:
    if isinstance(entry, FindingReport):
        return getattr(entry, name, None)
    return entry.get(name)


def _resolved_block(resolved: Sequence[FindingReport | Mapping[str, Any]]) -> str | None:
    rows = []
    for entry in resolved:
        try:
            severity = Severity.parse(str(_field(entry, "severity") or "INFO"))
        except ValueError:
            severity = Severity.INFO
        line = _field(entry, "line")
        line_no = line if isinstance(line, int) and not isinstance(line, bool) else 0
        path = str(_field(entry, "path") or "")
        title, rule = str(_field(entry, "title") or ""), str(_field(entry, "rule") or "")
        rows.append((worst_first(severity, path, line_no, title, rule), path, line_no, title,
                     rule, severity))
    if not rows:
        return None
    rows.sort(key=lambda r: r[0])
    lines = [f"### ✅ Resolved since the last run ({len(rows)})", ""]
    for _order, path, line_no, title, rule, severity in rows[:_RESOLVED_LIMIT]:
        where = inline_code(f"{path}:{line_no}" if line_no else path)
        lines.append(f"- ~~{ICONS[severity]} {severity.value} · "
                     f"{escape_text(title, TITLE_LIMIT, one_line=True)}~~ — {where}"
                     + (f" · rule {inline_code(rule, 120)}" if rule else ""))
    if len(rows) > _RESOLVED_LIMIT:
        lines.append(f"- … and {len(rows) - _RESOLVED_LIMIT} more")
    return "\n".join(lines)


def _grouped_lines(groups: Mapping[str, Sequence[tuple[str, str]]], label_chars: int,
                   other: str) -> list[str]:
    """One line per group, the largest first: its label, its count and its first members
    (``(path, rule)``; rule may be empty), then one line summing the groups past the limit."""
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = []
    for label, members in ordered[:_REASONS_LIMIT]:
        # Only the paths shown are rendered: thousands of listed files stay cheap.
        shown = ", ".join(
            inline_code(path, 160) + (f" (rule {inline_code(rule, 120)})" if rule else "")
            for path, rule in sorted(members)[:_LIST_LIMIT])
        more = f", … and {len(members) - _LIST_LIMIT} more" if len(members) > _LIST_LIMIT else ""
        lines.append(f"- **{escape_text(label, label_chars, one_line=True)}** ({len(members)}): "
                     f"{shown}{more}")
    if len(ordered) > _REASONS_LIMIT:
        rest = sum(len(m) for _label, m in ordered[_REASONS_LIMIT:])
        lines.append(f"- … and {rest} more {other.format(len(ordered) - _REASONS_LIMIT)}")
    return lines


def _not_reviewed_block(report: Report) -> str | None:
    if not report.not_reviewed:
        return None
    groups: dict[str, list[tuple[str, str]]] = {}
    for entry in report.not_reviewed:
        groups.setdefault(entry.reason, []).append((entry.path, entry.rule or ""))
    return "\n".join([f"### ⚠️ Not reviewed ({report.files_not_reviewed})", "",
                      *_grouped_lines(groups, 400, "for {} other reasons")])


def _not_code_block(report: Report) -> str | None:
    """Binary media that is not code: a list apart from what was not reviewed, that fails
    nothing (the credential rules scanned each file; a finding is listed with the others)."""
    if not report.not_code:
        return None
    groups: dict[str, list[tuple[str, str]]] = {}
    for entry in report.not_code:
        groups.setdefault(entry.content, []).append((entry.path, ""))
    return "\n".join([f"### Not code ({len(report.not_code)})", "",
                      "Binary media, by name and content (images, fonts, compiled "
                      "translations, audio and video): no code to review. The credential "
                      "rules scanned them.", "",
                      *_grouped_lines(groups, 100, "of {} other kinds")])


def _models_block(report: Report) -> str | None:
    """Several models: which model said what, where they did not all say the same."""
    lines: list[str] = []
    for item in report.items:
        said = disagreements([a.model_dump(mode="json") for a in item.assessments
                              if a.findings is not None])
        lines += [f"- {escape_text(line, 500, one_line=True)}" for line in said]
    if not lines:
        return None
    return "\n".join(["### Models disagree: which model said what", "", *lines])


def _usage_block(report: Report) -> str:
    u = report.usage
    # Escaped: two dollar signs on a line would start GitHub's math rendering.
    cost = "unknown" if u.cost_usd is None else f"\\${u.cost_usd:,.4f}"
    reused = sum(1 for item in report.items if item.cached)
    cache = f" · {reused:,} items from the evaluation cache (no model call)" if reused else ""
    return (
        "### Usage\n\n"
        f"**Total cost {cost}** (estimated) · {u.model_calls:,} model calls · "
        f"{u.tool_calls:,} tool calls · {u.input_tokens:,} input tokens "
        f"({u.cached_tokens:,} cached, {u.cache_write_tokens:,} cache writes) · "
        f"{u.output_tokens:,} output tokens ({u.reasoning_tokens:,} reasoning)"
        f"{cache}{_limits_line(report)}"
    )


def _limits_line(report: Report) -> str:
    """What the precision and size levers held back, counted (the JSON report lists each)."""
    left = [len(item.usage.get("not_preloaded") or []) for item in report.items]
    hunks, items = sum(left), sum(1 for n in left if n)
    below = sum(1 for f in report.findings if f.below_min_confidence)
    parts = []
    if hunks:
        parts.append(f"{hunks:,} hunk(s) in {items:,} item(s) not pre-loaded into the prompt "
                     "(over --secreview-max-context-chars; read through the tools)")
    if below:
        parts.append(f"{below:,} finding(s) below --secreview-min-confidence (fail nothing)")
    return "\n\n" + " · ".join(parts) if parts else ""


def _notes_block(report: Report) -> str | None:
    if not report.notes:
        return None
    lines = ["### Notes", ""]
    lines += [f"- {escape_text(note, _NOTE_CHARS, one_line=True)}"
              for note in report.notes[:_NOTES_LIMIT]]
    if len(report.notes) > _NOTES_LIMIT:
        lines.append(f"- … and {len(report.notes) - _NOTES_LIMIT} more notes")
    return "\n".join(lines)


# -- suppressed findings: never silent. They are counted in the header and listed with why
# they do not count; what the pull request mutes itself gets a block of its own, near the top
# and never dropped to fit the size limit, so the reviewer sees what the author muted.

_SUPPRESSED_LIMIT = 20  # findings listed per block; the rest are counted
_REASON_CHARS = 300


def _suppression_reason(finding: FindingReport) -> str:
    return finding.suppression_reason if finding.suppression else finding.triage_reason


def _suppressed_line(finding: FindingReport, report: Report, link_base: str | None) -> str:
    where = finding_location(finding, head_sha=report.head_sha, link_base=link_base)
    reason = (escape_text(_suppression_reason(finding), _REASON_CHARS, one_line=True)
              or "no reason given")
    return (f"- {ICONS[finding.severity]} {finding.severity.value} · "
            f"{escape_text(finding.title, 200, one_line=True)} — {where} · rule "
            f"{inline_code(finding.rule, 120)} · {suppressed_label(finding)}: {reason}")


def _suppressed_listing(findings: list[FindingReport], report: Report,
                        link_base: str | None) -> list[str]:
    ordered = sorted(findings, key=FindingReport.sort_key)
    lines = [_suppressed_line(f, report, link_base) for f in ordered[:_SUPPRESSED_LIMIT]]
    if len(ordered) > _SUPPRESSED_LIMIT:
        lines.append(f"- … and {len(ordered) - _SUPPRESSED_LIMIT} more in `summary.json`")
    return lines


def _added_block(report: Report, link_base: str | None) -> str | None:
    """Findings muted by a suppression comment the pull request itself adds."""
    added = [f for f in report.findings if f.suppression == "inline" and f.suppression_added]
    if not added:
        return None
    return "\n".join([
        f"### 🔕 Suppressions added by this pull request ({len(added)})", "",
        "> [!IMPORTANT]\n> These findings are muted by `secreview: ignore` comments this pull "
        "request adds. Check each reason before approving.", "",
        *_suppressed_listing(added, report, link_base)])


def _suppressed_block(report: Report, link_base: str | None) -> str | None:
    """Every other suppressed finding: kept, with the reason, failing nothing."""
    rest = [f for f in report.findings if f.suppressed
            and not (f.suppression == "inline" and f.suppression_added)]
    if not rest:
        return None
    return "\n".join([
        f"<details><summary><b>🔕 Suppressed ({len(rest)})</b>: reported, failing nothing"
        "</summary>", "", *_suppressed_listing(rest, report, link_base), "", "</details>"])


# -- the intent audit: the deterministic risk evidence and each model's judgment shown apart,
# so a reader who trusts only the math reads the first part.

#: Evidence lines shown per audit item (the JSON report has all of them).
_EVIDENCE_LIMIT = 15
_VERDICT_ICON = {"MATCH": "✅", "SUSPICIOUS": "⚠️", "LIE": "🛑", "ERROR": "❗"}


def _evidence_lines(evidence: RiskEvidenceReport) -> list[str]:
    """The deterministic evidence: its counts, then its first places (every text from the
    pull request escaped)."""
    counts = ", ".join(f"{escape_text(name, 40, one_line=True)} ({count})"
                       for name, count in sorted(evidence.counts.items()))
    lines = [f"**Risk evidence** (deterministic, from the diff alone): {counts or 'none'}", ""]
    for entry in evidence.items[:_EVIDENCE_LIMIT]:
        where = f"{entry.path}:{entry.line}" if entry.line else entry.path
        side = " (removed)" if entry.side == "removed" else ""
        lines.append(f"- {inline_code(where, 200)} {escape_text(entry.category, 40, one_line=True)}"
                     f" · {escape_text(entry.signal, 100, one_line=True)}{side}: "
                     f"{inline_code(entry.text, 200)}")
    # Past the listed ones, and the matches the caps kept out of items altogether.
    hidden = max(0, len(evidence.items) - _EVIDENCE_LIMIT) + evidence.truncated
    if hidden > 0:
        lines.append(f"- … and {hidden} more in the JSON report")
    return [*lines, ""]


def _intent_lines(item: ItemReport) -> list[str]:
    lines: list[str] = []
    if item.risk_evidence is not None:
        lines += _evidence_lines(item.risk_evidence)
    if not item.assessments:
        why = escape_text(item.reason or item.outcome, 300, one_line=True)
        lines.append(f"**Judgment:** none ({why})")
    for assessment in item.assessments:
        icon = _VERDICT_ICON.get(assessment.verdict or "", "")
        lines.append(f"**Judgment** by {inline_code(assessment.model, 120)}: {icon} "
                     f"**{assessment.verdict}**")
        if assessment.summary:
            lines.append(f"> {escape_text(assessment.summary, 2_000, one_line=True)}")
        if assessment.error:
            lines.append(f"> error: {escape_text(assessment.error, 500, one_line=True)}")
    return lines


#: Said above the evidence no model judged: what it is not.
UNJUDGED = ("No model judged whether the change does what its title and description say (no "
            "model is configured): these signals come from the diff alone and carry no "
            "verdict; they pass and fail nothing. Set `--secreview-model` to have the intent "
            "audit judge them.")


def _intent_block(report: Report) -> str | None:
    """The ``Intent audit`` section: each audit item's evidence and judgment; with no model,
    the evidence no model judged when it holds any signal; else None."""
    audited = [item for item in report.items
               if item.risk_evidence is not None
               or any(a.verdict is not None for a in item.assessments)]
    unjudged = report.risk_evidence
    if not audited and unjudged is not None and unjudged.items:
        return "\n".join(["### Intent audit: risk evidence, not judged", "",
                          f"> {UNJUDGED}", "", *_evidence_lines(unjudged)]).rstrip()
    if not audited:
        return None
    lines = ["### Intent audit: does the change do what it says?", ""]
    for item in audited:
        lines += [*_intent_lines(item), ""]
    return "\n".join(lines).rstrip()
