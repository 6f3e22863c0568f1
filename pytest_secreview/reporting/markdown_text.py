"""Markdown for untrusted text: everything that comes from the pull request or a model
(titles, paths, explanations, suggestions, skip reasons) is redacted of secrets and stripped of
control characters first, then rendered as inert text: HTML and markdown punctuation are
escaped, ``@mentions``, ``#123`` references and bare URLs are broken with a zero-width space so
they neither ping nor link, and code goes into fences longer than any backtick run it
contains. The only links are the ones built here: file links from ``link_base`` and the rules'
``documentation_link`` (links are appended by code, never taken from a model).

Shared by the summary (:mod:`.markdown`) and the PR comment writer (:mod:`..github`).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ..core.severity import Severity
from ..tools.redaction import sanitize
from .model import FindingReport, RuleReport

#: GitHub's maximum length of an issue or review comment body, in characters.
GITHUB_COMMENT_LIMIT = 65_536

ICONS = {
    Severity.CRITICAL: "🔴",
    Severity.HIGH: "🟠",
    Severity.MEDIUM: "🟡",
    Severity.LOW: "🔵",
    Severity.INFO: "⚪",
}
SEVERITY_ORDER = sorted(Severity, key=lambda s: -s.rank)

# Per-field caps keep one hostile field from crowding out every other finding.
_TEXT_LIMIT = 3_000
TITLE_LIMIT = 300
_CODE_LIMIT = 8_000
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


def display_safe(text: str) -> str:
    """Untrusted text a person reads on GitHub: sanitized (:func:`~..tools.redaction.sanitize`)
    and without bidirectional overrides, which make text read differently than it is."""
    return _BIDI.sub("", sanitize(text))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def escape_text(text: str, limit: int = _TEXT_LIMIT, *, one_line: bool = False) -> str:
    """Untrusted text as inert markdown prose (paragraphs kept unless ``one_line``)."""
    clean = _cut(display_safe(text).strip(), limit)
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
    clean = _cut(" ".join(display_safe(text).split()), limit)
    if not clean:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(clean)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if clean.startswith("`") or clean.endswith("`") else ""
    return f"{fence}{pad}{clean}{pad}{fence}"


def code_block(text: str, info: str = "", limit: int = _CODE_LIMIT) -> str:
    """Untrusted text as a fenced code block no line of it can close."""
    clean = display_safe(text).replace("\r", "")
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

    return display_safe(_PLACEHOLDER.sub(fill, template)).strip()


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


def headline(finding: FindingReport) -> str:
    icon = ICONS[finding.severity]
    return (f"{icon} **{finding.severity.value}** · "
            f"{escape_text(finding.title, TITLE_LIMIT, one_line=True)}")
