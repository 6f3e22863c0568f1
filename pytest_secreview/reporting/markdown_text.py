"""Markdown for untrusted text: everything that comes from the pull request or a model
(titles, paths, explanations, suggestions, skip reasons) is sanitized first (control characters
stripped, secrets redacted, bidirectional overrides removed), then rendered as inert text: HTML
and markdown punctuation are escaped, ``@mentions``, ``#123`` references and bare URLs are
broken with a zero-width space so they neither ping nor link, code goes into fences longer
than any backtick run it contains, and every field is cut to its own limit. The only URLs
are the ones :func:`safe_url` lets through.

Used by every markdown the product writes: the summary (:mod:`.markdown`), one finding
(:mod:`.markdown_finding`), the PR comments and mention replies.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ..tools.redaction import sanitize

# Per-field caps keep one hostile field from crowding out every other finding.
_TEXT_LIMIT = 3_000
_CODE_LIMIT = 8_000

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
