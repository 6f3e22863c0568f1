"""The markdown summary: ``summary.md``, ``GITHUB_STEP_SUMMARY`` and the PR summary comment.

:func:`to_markdown` renders a :class:`~.model.Report` deterministically (same report, same
bytes) and within a size limit (GitHub refuses comment bodies over 65,536 characters).

Everything that comes from the pull request or a model (titles, paths, explanations,
suggestions, skip reasons) is untrusted. It is redacted of secrets and stripped of control
characters first, then rendered as inert text: HTML and markdown punctuation are escaped,
``@mentions``, ``#123`` references and bare URLs are broken with a zero-width space so they
neither ping nor link, and code goes into fences longer than any backtick run it contains.
The only links in the output are the ones built here: file links from ``link_base`` and the
rules' ``documentation_link`` (seed 004: links are appended by code, never taken from a model).

The helpers :func:`escape_text`, :func:`inline_code`, :func:`code_block`, :func:`safe_url`,
:func:`documentation_line`, :func:`finding_location` and :func:`render_comment_template` are
shared with the PR comment writer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..severity import Severity
from ..tools.redaction import redact, strip_control
from .model import FindingReport, Outcome, Report, RuleReport

__all__ = [
    "GITHUB_COMMENT_LIMIT",
    "ICONS",
    "code_block",
    "documentation_line",
    "escape_text",
    "finding_location",
    "finding_prose",
    "inline_code",
    "language_for",
    "notable_threshold",
    "render_comment_template",
    "safe_url",
    "sanitize",
    "to_markdown",
]

#: GitHub's maximum length of an issue or review comment body, in characters.
GITHUB_COMMENT_LIMIT = 65_536

ICONS = {
    Severity.CRITICAL: "🔴",
    Severity.HIGH: "🟠",
    Severity.MEDIUM: "🟡",
    Severity.LOW: "🔵",
    Severity.INFO: "⚪",
}
_ORDER = sorted(Severity, key=lambda s: -s.rank)

# Per-field caps keep one hostile field from crowding out every other finding.
_TEXT_LIMIT = 3_000
_TITLE_LIMIT = 300
_CODE_LIMIT = 8_000
_LIST_LIMIT = 10  # paths shown per "not reviewed" reason
_REASONS_LIMIT = 25
_RESOLVED_LIMIT = 100
_NOTES_LIMIT = 30
_NOTE_CHARS = 600
DEFAULT_FULL_REPORT = "in `summary.json` and the other report files of this run"

_ZWSP = "\u200b"
# Trojan-source style bidirectional overrides: they make text read differently than it is.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_ESCAPES = str.maketrans({
    "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|",
    "~": "\\~", "!": "\\!", "$": "\\$", "<": "&lt;", ">": "&gt;", "&": "&amp;",
})
# ``$`` would start GitHub's math rendering. After escaping: things GitHub turns into
# notifications, cross-references or links.
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_REFERENCE = re.compile(r"(#|\bGH-)(?=\d)", re.IGNORECASE)
_SCHEME = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]{0,20})(?=://)")
_WWW = re.compile(r"\b(www)(?=\.)", re.IGNORECASE)
_LINE_START = re.compile(r"^(?:([#+=-])|(\d{1,9})([.)]))")
_BACKTICKS = re.compile(r"`+")
_HEX_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)
_LANGUAGES = {
    "py": "python", "js": "javascript", "mjs": "javascript", "cjs": "javascript",
    "jsx": "jsx", "ts": "typescript", "tsx": "tsx", "go": "go", "java": "java",
    "kt": "kotlin", "rb": "ruby", "rs": "rust", "php": "php", "cs": "csharp", "c": "c",
    "h": "c", "cpp": "cpp", "cc": "cpp", "sh": "bash", "yml": "yaml", "yaml": "yaml",
    "json": "json", "tf": "hcl", "sql": "sql", "html": "html", "xml": "xml",
    "swift": "swift", "scala": "scala", "dockerfile": "dockerfile",
}


def sanitize(text: str) -> str:
    """Redact secrets and remove control characters and bidirectional overrides."""
    return _BIDI.sub("", strip_control(redact(text)))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def escape_text(text: str, limit: int = _TEXT_LIMIT, *, one_line: bool = False) -> str:
    """Untrusted text as inert markdown prose (paragraphs kept unless ``one_line``)."""
    clean = _cut(sanitize(text).strip(), limit)
    lines = []
    for raw in clean.split("\n"):
        # Leading blanks would make an indented code block; the text itself stays readable.
        line = raw.strip(" \t").translate(_ESCAPES)
        line = _LINE_START.sub(_escape_line_start, line)
        line = _MENTION.sub("@" + _ZWSP, line)
        line = _REFERENCE.sub(lambda m: m.group(1) + _ZWSP, line)
        line = _SCHEME.sub(lambda m: m.group(1) + _ZWSP, line)
        line = _WWW.sub(lambda m: m.group(1) + _ZWSP, line)
        lines.append(line)
    if one_line:
        return " ".join(part for part in lines if part)
    # Collapse runs of blank lines: paragraphs, never a layout the text controls.
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def _escape_line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return f"{match.group(2)}\\{match.group(3)}"


def inline_code(text: str, limit: int = 500) -> str:
    """Untrusted text as one inline code span (nothing inside a code span is interpreted)."""
    clean = _cut(" ".join(sanitize(text).split()), limit)
    if not clean:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(clean)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if clean.startswith("`") or clean.endswith("`") else ""
    return f"{fence}{pad}{clean}{pad}{fence}"


def code_block(text: str, info: str = "", limit: int = _CODE_LIMIT) -> str:
    """Untrusted text as a fenced code block no line of it can close."""
    clean = sanitize(text).replace("\r", "")
    if len(clean) > limit:
        clean = clean[:limit].rstrip("\n") + "\n… (cut)"
    longest = max((len(run) for run in _BACKTICKS.findall(clean)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{clean.rstrip(chr(10))}\n{fence}"


def language_for(path: str) -> str:
    """A fence info string for ``path`` from a fixed table (never the path's own text)."""
    name = path.rsplit("/", 1)[-1].lower()
    if name == "dockerfile":
        return "dockerfile"
    return _LANGUAGES.get(name.rsplit(".", 1)[-1], "") if "." in name else ""


def safe_url(url: str | None) -> str | None:
    """``url`` if it is a plain http(s) URL, with characters that could end a markdown link
    percent-encoded; ``None`` otherwise."""
    if not url:
        return None
    url = url.strip()
    if not _URL.fullmatch(url):
        return None
    return quote(url, safe="/:?#[]@!$&*+,;=%-._~")


def _blob_link(link_base: str | None, head_sha: str, path: str, line: int,
               end_line: int | None) -> str | None:
    base = safe_url(link_base)
    if base is None or not _HEX_SHA.fullmatch(head_sha):
        return None
    parts = path.split("/")
    # A path of "..", "." or "" segments would resolve to another page on the same host.
    if not path or any(part in ("", ".", "..") for part in parts):
        return None
    anchor = f"#L{line}" + (f"-L{end_line}" if end_line and end_line > line else "")
    return f"{base.rstrip('/')}/blob/{head_sha}/{quote(path, safe='/')}{anchor}"


def finding_location(finding: FindingReport, *, head_sha: str = "",
                     link_base: str | None = None) -> str:
    """``path:line`` as inline code, linked to the head revision when ``link_base`` is set."""
    span = f"{finding.line}-{finding.end_line}" if (
        finding.end_line and finding.end_line > finding.line) else f"{finding.line}"
    code = inline_code(f"{finding.path}:{span}")
    link = _blob_link(link_base, head_sha, finding.path, finding.line, finding.end_line)
    return f"[{code}]({link})" if link else code


def documentation_line(rule: RuleReport | None) -> str | None:
    """``📖 [Learn more: <rule title>](<documentation_link>)`` built from rule metadata."""
    if rule is None:
        return None
    url = safe_url(rule.documentation_link)
    if url is None:
        return None
    return f"📖 [Learn more: {escape_text(rule.title, 200, one_line=True)}]({url})"


def notable_threshold(fail_on: Severity) -> Severity:
    """The lower of ``fail_on`` and MEDIUM: findings at or above it are shown expanded in the
    summary and commented inline; lower ones are collapsed and stay in the summary only."""
    return fail_on if fail_on.rank < Severity.MEDIUM.rank else Severity.MEDIUM


_PLACEHOLDER = re.compile(
    r"(`?)\{(path|line|end_line|title|explanation|exploit_scenario|recommendation|severity"
    r"|rule|cwe|category)\}(`?)"
)


def render_comment_template(template: str, finding: FindingReport) -> str:
    """Fill a rule's ``## GitHub Comment`` template (trusted: it comes from the rule pack).

    Placeholders take the finding's untrusted values: as an inline code span when the
    template wraps them in backticks (`` `{path}` ``), as escaped prose otherwise. Unknown
    ``{...}`` are left as written; no ``str.format`` (attribute lookups) is involved.
    """

    def fill(match: re.Match[str]) -> str:
        value = getattr(finding, match.group(2))
        text = "" if value is None else str(value)
        if match.group(1) and match.group(3):
            return inline_code(text)
        return match.group(1) + escape_text(text, one_line=False) + match.group(3)

    return sanitize(_PLACEHOLDER.sub(fill, template)).strip()


def _meta(finding: FindingReport) -> str:
    parts = [f"rule {inline_code(finding.rule, 120)}"]
    if finding.cwe:
        parts.append(inline_code(finding.cwe, 40))
    if finding.category:
        parts.append(escape_text(finding.category, 80, one_line=True))
    parts.append(f"confidence {finding.confidence:.2f}")
    parts.append(f"source {inline_code(finding.source, 120)}")
    return " · ".join(parts)


def finding_prose(finding: FindingReport, *, suggestion_block: bool = True) -> list[str]:
    """Explanation, exploit scenario, recommendation and the suggestion (plain fence)."""
    blocks = []
    if finding.explanation.strip():
        blocks.append(escape_text(finding.explanation))
    if finding.exploit_scenario.strip():
        blocks.append("**Exploit scenario:** " + escape_text(finding.exploit_scenario))
    if finding.recommendation.strip():
        blocks.append("**Recommendation:** " + escape_text(finding.recommendation))
    if suggestion_block and finding.suggestion and finding.suggestion.strip():
        blocks.append("**Suggested fix:**\n\n"
                      + code_block(finding.suggestion, language_for(finding.path)))
    return blocks


def _headline(finding: FindingReport) -> str:
    icon = ICONS[finding.severity]
    return (f"{icon} **{finding.severity.value}** · "
            f"{escape_text(finding.title, _TITLE_LIMIT, one_line=True)}")


def _finding_blocks(finding: FindingReport, rule: RuleReport | None, report: Report,
                    link_base: str | None) -> tuple[str, str]:
    """The full block and the one-line brief of a finding."""
    where = finding_location(finding, head_sha=report.head_sha, link_base=link_base)
    brief = f"- {_headline(finding)} — {where} · rule {inline_code(finding.rule, 120)}"
    parts = [f"#### {_headline(finding)}", f"{where} · {_meta(finding)}",
             *finding_prose(finding)]
    doc = documentation_line(rule)
    if doc:
        parts.append(doc)
    return "\n\n".join(parts), brief


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
        rows.append((-severity.rank, path, line_no, str(_field(entry, "title") or ""),
                     str(_field(entry, "rule") or ""), severity))
    if not rows:
        return None
    rows.sort(key=lambda r: r[:5])
    lines = [f"### ✅ Resolved since the last run ({len(rows)})", ""]
    for _rank, path, line_no, title, rule, severity in rows[:_RESOLVED_LIMIT]:
        where = inline_code(f"{path}:{line_no}" if line_no else path)
        lines.append(f"- ~~{ICONS[severity]} {severity.value} · "
                     f"{escape_text(title, _TITLE_LIMIT, one_line=True)}~~ — {where}"
                     + (f" · rule {inline_code(rule, 120)}" if rule else ""))
    if len(rows) > _RESOLVED_LIMIT:
        lines.append(f"- … and {len(rows) - _RESOLVED_LIMIT} more")
    return "\n".join(lines)


def _not_reviewed_block(report: Report) -> str | None:
    if not report.not_reviewed:
        return None
    groups: dict[str, list[tuple[str, str]]] = {}
    for entry in report.not_reviewed:
        groups.setdefault(entry.reason, []).append((entry.path, entry.rule or ""))
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = [f"### ⚠️ Not reviewed ({len(report.not_reviewed)})", ""]
    for reason, entries in ordered[:_REASONS_LIMIT]:
        # Only the paths shown are rendered: thousands of skipped files stay cheap.
        shown = ", ".join(
            inline_code(path, 160) + (f" (rule {inline_code(rule, 120)})" if rule else "")
            for path, rule in sorted(entries)[:_LIST_LIMIT])
        more = f", … and {len(entries) - _LIST_LIMIT} more" if len(entries) > _LIST_LIMIT else ""
        lines.append(f"- **{escape_text(reason, 400, one_line=True)}** ({len(entries)}): "
                     f"{shown}{more}")
    if len(ordered) > _REASONS_LIMIT:
        rest = sum(len(e) for _r, e in ordered[_REASONS_LIMIT:])
        lines.append(f"- … and {rest} more for {len(ordered) - _REASONS_LIMIT} other reasons")
    return "\n".join(lines)


def _usage_block(report: Report) -> str:
    u = report.usage
    # Escaped: two dollar signs on a line would start GitHub's math rendering.
    cost = "unknown" if u.cost_usd is None else f"\\${u.cost_usd:,.4f}"
    reused = sum(1 for item in report.items if item.cached)
    cache = f" · {reused:,} items from the evaluation cache (no model call)" if reused else ""
    return (
        "### Usage\n\n"
        f"{u.model_calls:,} model calls · {u.tool_calls:,} tool calls · "
        f"{u.input_tokens:,} input tokens ({u.cached_tokens:,} cached) · "
        f"{u.output_tokens:,} output tokens ({u.reasoning_tokens:,} reasoning) · cost {cost}"
        f"{cache}"
    )


def _notes_block(report: Report) -> str | None:
    if not report.notes:
        return None
    lines = ["### Notes", ""]
    lines += [f"- {escape_text(note, _NOTE_CHARS, one_line=True)}"
              for note in report.notes[:_NOTES_LIMIT]]
    if len(report.notes) > _NOTES_LIMIT:
        lines.append(f"- … and {len(report.notes) - _NOTES_LIMIT} more notes")
    return "\n".join(lines)


def _header(report: Report) -> str:
    failing = len(report.failing)
    errors = report.outcomes.get("error", 0)
    skipped = report.outcomes.get("skipped", 0)
    threshold = report.fail_on.value
    noun = "finding" if failing == 1 else "findings"
    if failing or errors:
        icon = "🔴"
    elif skipped or report.not_reviewed:
        icon = "🟡"
    else:
        icon = "🟢"
    head = f"## {icon} pytest-secreview: {failing} {noun} at or above {threshold}"
    if errors:
        head += f", {errors} item{'s' if errors != 1 else ''} could not be evaluated"
    if report.not_reviewed and not errors:
        head += f", {len(report.not_reviewed)} not reviewed"
    where = []
    if report.repository:
        where.append(inline_code(report.repository, 200))
    if report.pull_request:
        where.append(f"pull request {report.pull_request}")
    labels: tuple[tuple[Outcome, str], ...] = (
        ("passed", "passed"), ("failed", "failed"), ("skipped", "skipped"), ("error", "errors"))
    counts = ", ".join(f"{report.outcomes.get(k, 0)} {label}" for k, label in labels)
    by_severity = ", ".join(
        f"{n} {s.value}" for s in _ORDER
        if (n := sum(1 for f in report.findings if f.severity is s))
    ) or "none"
    stats = (
        " · ".join([*where, f"head {inline_code(report.head_sha[:12])}",
                    f"base {inline_code(report.base_ref, 200)}"])
        + f"\n\nItems: {counts} · findings: {by_severity} · fail on {threshold} and above"
    )
    return head + "\n\n" + stats


@dataclass
class _Entry:
    finding: FindingReport
    full: str
    brief: str
    level: int = 2  # 2 full, 1 brief, 0 omitted


def _sort_key(f: FindingReport) -> tuple[int, str, int, str, str, str]:
    return (-f.severity.rank, f.path, f.line, f.rule, f.title, f.fingerprint)


def _truncation_note(entries: list[_Entry], dropped_sections: list[str], max_chars: int,
                     full_report: str) -> str:
    brief = {s: 0 for s in _ORDER}
    gone = {s: 0 for s in _ORDER}
    for e in entries:
        if e.level == 1:
            brief[e.finding.severity] += 1
        elif e.level == 0:
            gone[e.finding.severity] += 1
    said = []
    if any(brief.values()):
        said.append("the details of " + ", ".join(
            f"{n} {s.value}" for s, n in brief.items() if n) + " findings were left out")
    if any(gone.values()):
        said.append(", ".join(f"{n} {s.value}" for s, n in gone.items() if n)
                    + " findings were omitted")
    said += [f"the {name} section was left out" for name in dropped_sections]
    return ("> [!WARNING]\n> This summary was shortened to fit "
            f"{max_chars:,} characters: {'; '.join(said) or 'it was cut'}. "
            f"The full report is {full_report}.")


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

    Shortening order: details of findings below ``fail_on`` (lowest severity first), the notes
    and resolved sections, findings below the notable threshold, details of failing findings
    (last first), the remaining findings below ``fail_on``, the not-reviewed section, and last
    failing findings themselves. Room left afterwards is given back worst first. A hard cut
    at a line is the last resort (a tiny ``max_chars``).
    """
    from .intent_markdown import intent_block  # it builds on this module's escaping

    rules = {r.id: r for r in report.rules}
    threshold = notable_threshold(report.fail_on)
    entries = []
    for finding in sorted(report.findings, key=_sort_key):
        full, brief = _finding_blocks(finding, rules.get(finding.rule), report, link_base)
        entries.append(_Entry(finding, full, brief))
    tail = {
        "resolved": _resolved_block(resolved),
        "not reviewed": _not_reviewed_block(report),
        "notes": _notes_block(report),
        "intent": intent_block(report),
    }
    version = re.sub(r"[^0-9A-Za-z.+-]", "", report.tool_version)[:40]
    footer = f"<sub>pytest-secreview {version}</sub>"

    def assemble(note: str | None, dropped: Sequence[str]) -> str:
        blocks = [_header(report)]
        if note:
            blocks.append(note)
        blocks += _findings_section(entries, threshold)
        blocks += [tail[name] or "" for name in ("intent", "resolved", "not reviewed")
                   if tail[name] and name not in dropped]
        blocks.append(_usage_block(report))
        if tail["notes"] and "notes" not in dropped:
            blocks.append(tail["notes"])
        blocks.append(footer)
        return "\n\n".join(blocks) + "\n"

    text = assemble(None, ())
    if len(text) > max_chars:
        text = _shorten(entries, tail, assemble, max_chars, full_report, report.fail_on)
    # A last pass over the whole text: cheap, and a secret can never slip through a seam.
    text = sanitize(text)
    return text if len(text) <= max_chars else _hard_cut(text, max_chars, full_report)


@dataclass
class _Step:
    """One reduction: an entry down to ``level`` (2 full, 1 brief, 0 omitted) or a section
    dropped (``entry`` None, ``section`` named)."""

    entry: _Entry | None
    level: int = 0
    section: str = ""
    previous: int = 0


def _plan(entries: list[_Entry], fail_on: Severity) -> list[_Step]:
    """Reductions, least valuable first. What fails the check stays longest; what was not
    reviewed goes nearly last (fail closed: say what was not checked)."""
    notable = notable_threshold(fail_on)
    lowest_first = list(reversed(entries))  # entries are sorted worst first
    failing = [e for e in lowest_first if e.finding.severity.at_least(fail_on)]
    passing = [e for e in lowest_first if not e.finding.severity.at_least(fail_on)]
    minor = [e for e in passing if not e.finding.severity.at_least(notable)]
    notable_passing = [e for e in passing if e.finding.severity.at_least(notable)]
    return [
        *(_Step(e, 1) for e in passing),
        _Step(None, section="notes"),
        _Step(None, section="resolved"),
        *(_Step(e, 0) for e in minor),
        *(_Step(e, 1) for e in failing),
        *(_Step(e, 0) for e in notable_passing),
        _Step(None, section="not reviewed"),
        _Step(None, section="intent"),
        *(_Step(e, 0) for e in failing),
    ]


def _apply(step: _Step, tail: dict[str, str | None], dropped: list[str]) -> int:
    """Apply ``step``; returns the characters it saved (estimated)."""
    if step.entry is None:
        block = tail[step.section]
        if not block or step.section in dropped:
            return 0
        dropped.append(step.section)
        return len(block) + 2
    entry = step.entry
    if entry.level <= step.level:
        return 0
    before = _entry_size(entry)
    step.previous, entry.level = entry.level, step.level
    return before - _entry_size(entry)


def _shorten(entries: list[_Entry], tail: dict[str, str | None],
             assemble: Callable[[str | None, Sequence[str]], str], max_chars: int,
             full_report: str, fail_on: Severity) -> str:
    """Reduce detail until the document fits (see :func:`_plan`), then use the room left
    to undo reductions, most valuable first. Sizes are tracked arithmetically between
    renders, so thousands of findings stay fast; each render measures exactly."""
    dropped: list[str] = []
    steps = _plan(entries, fail_on)
    applied: list[_Step] = []
    position = 0
    text = ""
    for _render in range(20):
        # The note grows as counts appear in it, so a few renders may be needed.
        text = assemble(_truncation_note(entries, dropped, max_chars, full_report), dropped)
        excess = len(text) - max_chars
        if excess <= 0 or position >= len(steps):
            break
        while excess > 0 and position < len(steps):
            step = steps[position]
            position += 1
            saved = _apply(step, tail, dropped)
            if saved:
                applied.append(step)
                excess -= saved
    if len(text) > max_chars:
        return text
    return _refill(applied, tail, dropped, assemble, text, max_chars, full_report, entries)


def _refill(applied: list[_Step], tail: dict[str, str | None], dropped: list[str],
            assemble: Callable[[str | None, Sequence[str]], str], text: str, max_chars: int,
            full_report: str, entries: list[_Entry]) -> str:
    """Undo reductions (the last applied, most valuable, first) while they fit."""
    spare = max_chars - len(text) - 300  # room for the note to change
    undone: list[_Step] = []
    for step in reversed(applied):
        if step.entry is None:
            cost = len(tail[step.section] or "") + 2
            if cost <= spare:
                dropped.remove(step.section)
                spare -= cost
                undone.append(step)
            continue
        entry = step.entry
        current = entry.level
        entry.level = step.previous
        cost = _entry_size(entry) - _entry_size(_Entry(entry.finding, entry.full, entry.brief,
                                                       current))
        if cost <= spare:
            spare -= cost
            undone.append(step)
        else:
            entry.level = current
    if not undone:
        return text
    candidate = assemble(_truncation_note(entries, dropped, max_chars, full_report), dropped)
    if len(candidate) <= max_chars:
        return candidate
    for step in undone:  # the estimate was wrong: keep the shorter text
        if step.entry is None:
            dropped.append(step.section)
        else:
            step.entry.level = step.level
    return text


def _hard_cut(text: str, max_chars: int, full_report: str) -> str:
    """Last resort (a tiny ``max_chars``): cut at a line and say so."""
    note = (f"\n\n> [!WARNING]\n> Cut at {max_chars:,} characters. "
            f"The full report is {full_report}.\n")
    keep = text[: max(0, max_chars - len(note))]
    if "\n" in keep:
        keep = keep[: keep.rindex("\n")]
    # An unclosed fence would swallow the note: count fences of the kept text.
    if len(re.findall(r"^`{3,}", keep, re.MULTILINE)) % 2:
        keep = keep[: keep.rfind("\n```")] if "\n```" in keep else ""
    return (keep + note)[:max_chars]


def _entry_size(entry: _Entry) -> int:
    if entry.level == 2:
        return len(entry.full) + 2
    if entry.level == 1:
        return len(entry.brief) + 1
    return 0


def _findings_section(entries: list[_Entry], threshold: Severity) -> list[str]:
    """Findings grouped by severity, worst first; groups below ``threshold`` collapsed."""
    blocks: list[str] = []
    omitted = sum(1 for e in entries if e.level == 0)
    for severity in _ORDER:
        group = [e for e in entries if e.finding.severity is severity and e.level > 0]
        if not group:
            continue
        total = sum(1 for e in entries if e.finding.severity is severity)
        title = f"{ICONS[severity]} {severity.value} ({total})"
        collapsed = not severity.at_least(threshold)
        parts: list[str] = []
        briefs: list[str] = []
        for entry in group:
            if entry.level == 2:
                if briefs:
                    parts.append("\n".join(briefs))
                    briefs = []
                parts.append(entry.full)
            else:
                briefs.append(entry.brief)
        if briefs:
            parts.append("\n".join(briefs))
        body = "\n\n".join(parts)
        if collapsed:
            blocks.append(f"<details><summary><b>{title}</b></summary>\n\n{body}\n\n</details>")
        else:
            blocks.append(f"### {title}\n\n{body}")
    if omitted:
        blocks.append(f"_… and {omitted} more findings not shown here._")
    if not entries:
        blocks.append("No findings.")
    return blocks
