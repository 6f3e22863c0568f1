"""One finding in markdown, the same in the summary and in its inline comment: the headline
(severity icon, level and title), the location (linked to the head revision when a link base
is known), the metadata line, the prose (explanation, exploit scenario, recommendation, the
suggested fix), the rule's documentation link and its comment template, and why a suppressed
finding does not count. Every untrusted field goes through :mod:`.markdown_text`.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ..core.severity import Severity
from .markdown_text import (
    code_block,
    display_safe,
    escape_text,
    inline_code,
    language_for,
    safe_url,
)
from .model import FindingReport, Report, RuleReport

ICONS = {
    Severity.CRITICAL: "🔴",
    Severity.HIGH: "🟠",
    Severity.MEDIUM: "🟡",
    Severity.LOW: "🔵",
    Severity.INFO: "⚪",
}
#: A title's cap wherever a finding is shown (the other fields have theirs in markdown_text).
TITLE_LIMIT = 300
_HEX_SHA = re.compile(r"[0-9a-fA-F]{7,64}")


def headline(finding: FindingReport) -> str:
    icon = ICONS[finding.severity]
    return (f"{icon} **{finding.severity.value}** · "
            f"{escape_text(finding.title, TITLE_LIMIT, one_line=True)}")


def finding_meta(finding: FindingReport) -> str:
    if finding.rules:  # several items reported it: one problem, every rule named
        parts = ["rules " + ", ".join(inline_code(r, 120) for r in finding.rules[:8])]
    else:
        parts = [f"rule {inline_code(finding.rule, 120)}"]
    if finding.cwe:
        parts.append(inline_code(finding.cwe, 40))
    if finding.category:
        parts.append(escape_text(finding.category, 80, one_line=True))
    parts.append(finding.confidence_text())
    if finding.below_min_confidence:
        parts.append("below --secreview-min-confidence: fails nothing")
    parts.append(f"source {inline_code(finding.source, 120)}")
    if finding.reports > 1:
        parts.append(f"{finding.reports} reports merged into one")
    return " · ".join(parts)


def finding_prose(finding: FindingReport, *, suggestion_block: bool = True) -> list[str]:
    """Explanation, exploit scenario, recommendation and the suggestion (plain fence)."""
    blocks = []
    if finding.overruled:  # a lowering that did not count: a reviewer should see it
        blocks.append("**Not accepted:** " + escape_text(finding.overruled, 600, one_line=True))
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


def finding_blocks(finding: FindingReport, rule: RuleReport | None, report: Report,
                    link_base: str | None) -> tuple[str, str]:
    """The full block and the one-line brief of a finding."""
    where = finding_location(finding, head_sha=report.head_sha, link_base=link_base)
    brief = f"- {headline(finding)} — {where} · rule {inline_code(finding.rule, 120)}"
    parts = [f"#### {headline(finding)}", f"{where} · {finding_meta(finding)}",
             *finding_prose(finding)]
    doc = documentation_line(rule)
    if doc:
        parts.append(doc)
    return "\n\n".join(parts), brief


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

    return display_safe(_PLACEHOLDER.sub(fill, template)).strip()


def suppressed_label(finding: FindingReport) -> str:
    """Why a suppressed finding does not count, in a few words."""
    if finding.suppression == "inline":
        return ("suppressed by a comment this pull request adds" if finding.suppression_added
                else "suppressed by a comment in the code")
    if finding.suppression == "baseline":
        return "in the baseline"
    if finding.suppression == "excluded":
        return "excluded: the rule does not see this file"
    if finding.suppression == "filtered":
        return "dropped by the pytest_secreview_filter_finding hook"
    return "dismissed by the model"
