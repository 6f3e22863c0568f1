"""Find and redact secrets in any text the product shows or writes.

Every tool result, PR comment, JUnit/JSON/SARIF report, artifact and log line goes through
:func:`redact`; the deterministic secret rules use :func:`find_secrets` to report each secret by
kind and location. Secrets are replaced by ``[REDACTED:<kind>]``.

The patterns run on RE2 (linear time) over the UTF-8 bytes of the text: one pass of all of them
together (an RE2 ``Set``) says which can match, then one pass per pattern that can.
Every part of a pattern that can fail late is bounded, so a hostile text cannot make repeated
searches rescan it: the cost stays linear in the text's size (megabytes in well under a second).
Overlapping matches are merged, so a secret caught by two rules is redacted once, whole.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..safe_regex import compile_re2, search_set

# Values that are obviously not secrets: template references and well-known placeholders.
# Skipping them keeps code like ``password = "${DB_PASSWORD}"`` readable for the reviewer and
# keeps the deterministic secret rule from reporting it.
_PLACEHOLDER_PREFIXES = (
    b"${", b"{{", b"%(", b"<", b"$(", b"#{", b"{%", b"process.env", b"os.environ",
)
_PLACEHOLDERS = frozenset(
    {
        b"password", b"passwd", b"secret", b"token", b"changeme", b"change-me", b"example",
        b"none", b"null", b"nil", b"true", b"false", b"undefined", b"redacted", b"your-password",
        b"your_password", b"your-token", b"your_token", b"your-api-key", b"your_api_key",
        b"placeholder", b"dummy", b"required", b"optional", b"str", b"string", b"bytes",
    }
)
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z_.]*\Z")


def _is_placeholder(value: bytes) -> bool:
    low = value.strip().lower()
    if low in _PLACEHOLDERS or low.startswith(_PLACEHOLDER_PREFIXES) or b"[redacted:" in low:
        return True
    return len(set(low)) <= 1  # "****", "xxxxxxxx"


def _quoted_value(value: bytes) -> bool:
    return len(value) >= 4 and not _is_placeholder(value)


def _unquoted_value(value: bytes) -> bool:
    # Unquoted right-hand sides are usually code (``password = user.password``, ``token =
    # None``): only values that do not read as an identifier count, unless long.
    if len(value) < 6 or _is_placeholder(value):
        return False
    return not (_IDENTIFIER.match(value) and len(value) < 16)


def _has_digit(value: bytes) -> bool:
    return any(48 <= byte <= 57 for byte in value)


def _entropy(value: bytes) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


_HEX_OR_UUID = re.compile(
    rb"(?:[0-9a-fA-F]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
    rb"[0-9a-fA-F]{12})\Z"
)


def _random_looking(value: bytes, min_entropy: float) -> bool:
    """True for a value that reads as generated key material, not as code or data.

    Hashes, git SHAs and UUIDs (hex only) are ordinary content, never a secret by shape
    alone; a key has letters and digits mixed with high entropy.
    """
    if _HEX_OR_UUID.match(value):
        return False
    letters = any(65 <= b <= 90 or 97 <= b <= 122 for b in value)
    return letters and _has_digit(value) and _entropy(value) >= min_entropy


def _aws_secret_shape(value: bytes) -> bool:
    # Generated base64: both cases, digits, high entropy. A lower-case path or an upper-case
    # constant of 40 characters is not one (a random key has both cases all but always).
    mixed = value.lower() != value and value.upper() != value
    return mixed and _random_looking(value, 4.0)


def _default_value(value: bytes) -> bool:
    # The default of a credential lookup: anything but a path, a URL, a number or a word.
    if len(value) < 8 or _is_placeholder(value) or value.isdigit():
        return False
    if value.startswith((b"/", b"./", b"../", b"~")) or b"://" in value:
        return False
    return _random_looking(value, 2.5) or not _IDENTIFIER.match(value)


_LOOKUP_NAME = re.compile(
    rb"""([A-Za-z0-9_.-]+)["'`]?[ \t]*\)?[ \t]*(?:,|\|\||\?\?|\bor\b)[ \t]*"""
    rb"""(?:[A-Za-z_]{1,20}[ \t]*=[ \t]*)?["'`]\Z"""
)
_NOT_SECRET_NAME = re.compile(
    rb"(?i)(?:id|ids|rev|sha|hash|digest|version|ttl|ttl_seconds|seconds|timeout|length|len"
    rb"|size|name|file|path|dir|url|uri|host|header|field|prefix|policy|type|mode)\Z"
)


def _credential_lookup(data: bytes, start: int, end: int) -> bool:
    """The looked-up name is a credential, not its id, path, size or version: a hash or a
    UUID is the default of ``TOKEN_REV`` or ``SECRET_ID`` without being a secret."""
    found = _LOOKUP_NAME.search(data[max(start - 120, 0):start])
    name = found.group(1).rstrip(b".-_") if found else b""
    return not _NOT_SECRET_NAME.search(name)


# Names that say "this value is a credential" when they appear just before a bare value.
_CREDENTIAL_NAME = re.compile(rb"(?i)secret|passw|pwd|token|cred|private|key|aws")
_AWS_KEY_ID = re.compile(rb"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b")
_NAME_WINDOW = 120  # bytes before the value, on its line, where a credential name counts
_KEY_ID_WINDOW = 300  # bytes on either side where an AWS access key id counts


def _near_credential(data: bytes, start: int, end: int) -> bool:
    """A bare 40-character value is an AWS secret key when a credential name precedes it on
    its line, or an AWS access key id is close by (the two halves of one key pair)."""
    line_start = data.rfind(b"\n", max(start - _NAME_WINDOW, 0), start) + 1
    if _CREDENTIAL_NAME.search(data, max(line_start, start - _NAME_WINDOW), start):
        return True
    return _AWS_KEY_ID.search(
        data[max(start - _KEY_ID_WINDOW, 0):end + _KEY_ID_WINDOW]
    ) is not None


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: Any  # a compiled re2 pattern
    accept: Callable[[bytes], bool] | None = None
    # Group whose span is redacted (0 = the whole match).
    group: int = 0
    # Judges the value by what surrounds it: (whole text, value start, value end).
    context: Callable[[bytes, int, int], bool] | None = None


def _rule(
    kind: str,
    pattern: bytes,
    *,
    accept: Callable[[bytes], bool] | None = None,
    context: Callable[[bytes, int, int], bool] | None = None,
) -> _Rule:
    compiled = compile_re2(pattern, max_mem=64 << 20)  # a few large patterns
    group = compiled.groupindex.get(b"v", 0)
    return _Rule(kind, compiled, accept, group, context)


_B64 = rb"[A-Za-z0-9+/=]"
# Optional closing quote of the key, an optional type annotation (``password: str = ...``),
# then the operator of assignment, mapping or comparison.
_ASSIGN = (
    rb"""["'\]]?[ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_.\[\], |]{0,60}[ \t]*)?"""
    rb"(?:=>|:=|==|[:=])[ \t]*"
)
_QUOTED = (
    rb"""(?:"(?P<v>(?:[^"\\\n]|\\.){1,200})"|'(?P<v2>(?:[^'\\\n]|\\.){1,200})'"""
    rb"""|`(?P<v3>[^`\n]{1,200})`)"""
)
_UNQUOTED = rb"""(?P<v>[^\s"'`#,;(){}\[\]<>]{1,200})(?:[\s,;#)}\]]|\z)"""
_KEYWORDS = (
    rb"(?i)(passwd|password|passphrase|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key"
    rb"|secret[_.-]?key|private[_.-]?key|client[_.-]?secret|auth[_.-]?key)"
)
_LOOKUP_DEFAULT = (
    rb"(?i)(passwd|password|passphrase|secret|token|credential|api[_.-]?key|apikey"
    rb"|access[_.-]?key|private[_.-]?key|auth[_.-]?key)[A-Za-z0-9_.-]{0,40}"
    # A quoted name then a comma (an argument list), or a fallback operator.
    rb"""(?:["'`][ \t]*\)?[ \t]*,|["'`]?[ \t]*\)?[ \t]*(?:\|\||\?\?|\bor\b))[ \t]*"""
    rb"(?:[A-Za-z_]{1,20}[ \t]*=[ \t]*)?"
)

# Order matters only for ties (same start): the earlier, more specific rule names the kind.
_RULES: tuple[_Rule, ...] = (
    _rule(
        "gcp_service_account_key",
        rb'"private_key"\s*:\s*"(?P<v>-----BEGIN(?:[^"\\]|\\.)*)"',
    ),
    _rule(
        "private_key",
        rb"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        rb"""(?:\s|\\[nr]|["'+,]|[A-Za-z][A-Za-z0-9-]{0,40}:[^\n\\]{0,300})*"""
        + _B64 + rb"{16}"
        + rb"""(?:[A-Za-z0-9+/=\s"'+,]|\\[nrt])*"""
        rb"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    _rule("gcp_private_key_id", rb'"private_key_id"\s*:\s*"(?P<v>[0-9a-f]{40})"'),
    _rule("aws_access_key_id", rb"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    _rule(
        "aws_secret_access_key",
        rb"(?i)aws.{0,20}(?:secret|private)[a-z_. -]{0,20}" + _ASSIGN
        + rb"""["']?(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|\z)""",
    ),
    # A bare secret key (no key name right before it, e.g. the default of an environment
    # lookup): 40 random-looking characters next to a credential name or an access key id.
    _rule(
        "aws_secret_access_key",
        rb"(?:\A|[^A-Za-z0-9/+=])(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        accept=_aws_secret_shape,
        context=_near_credential,
    ),
    _rule("gcp_api_key", rb"AIza[0-9A-Za-z_\-]{35}"),
    _rule("google_oauth_token", rb"\bya29\.[0-9A-Za-z_\-]{20,1000}"),
    _rule("google_oauth_client_secret", rb"\bGOCSPX-[0-9A-Za-z_\-]{28}"),
    _rule("github_token", rb"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
    _rule("github_token", rb"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    _rule("gitlab_token", rb"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_\-]{20,255}"),
    _rule("slack_token", rb"\bxox[baprs]-[A-Za-z0-9-]{10,255}"),
    _rule(
        "slack_webhook",
        rb"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{8,512}",
    ),
    _rule("stripe_key", rb"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}"),
    _rule("anthropic_api_key", rb"\bsk-ant-[A-Za-z0-9_\-]{20,512}"),
    _rule(
        "openai_api_key",
        rb"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,512}",
        accept=_has_digit,
    ),
    _rule("npm_token", rb"\bnpm_[A-Za-z0-9]{36}\b"),
    _rule("pypi_token", rb"\bpypi-AgE[A-Za-z0-9_\-]{50,1000}"),
    _rule("huggingface_token", rb"\bhf_[A-Za-z0-9]{30,40}\b"),
    _rule("sendgrid_api_key", rb"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _rule(
        "jwt",
        rb"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    _rule(
        "authorization_header",
        rb"""(?i)\bauthorization["']?\]?[ \t]*[:=][ \t]*["']?(?:basic|token|bearer)[ \t]+"""
        rb"(?P<v>[A-Za-z0-9._~+/-]{8,1000}=*)",
        accept=lambda value: not _is_placeholder(value),
    ),
    _rule(
        "bearer_token",
        rb"(?i)\bbearer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,1000}=*)",
        accept=_has_digit,
    ),
    _rule(
        "url_credentials",
        rb"""\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s/?#@:"'<>]{1,256}:(?P<v>[^\s/?#@"'<>]{1,256})@""",
        accept=lambda value: not _is_placeholder(value),
    ),
    _rule("secret_assignment", _KEYWORDS + _ASSIGN + _QUOTED, accept=_quoted_value),
    # The default value of a lookup keyed by a credential name: ``getenv("DB_PASSWORD",
    # "...")``, ``cfg.get("api_token", default="...")``, ``env.SECRET || "..."``.
    _rule("secret_assignment", _LOOKUP_DEFAULT + _QUOTED, accept=_default_value,
          context=_credential_lookup),
    _rule("secret_assignment", _KEYWORDS + _ASSIGN + _UNQUOTED, accept=_unquoted_value),
)


def _assignment_kind(keyword: bytes) -> str:
    word = keyword.lower()
    if word.startswith((b"pass", b"pwd")):
        return "password"
    if word == b"token":
        return "token"
    if word.startswith((b"api", b"access", b"auth")):
        return "api_key"
    return "secret"


@dataclass(frozen=True)
class SecretMatch:
    """A secret found in a text: ``text[start:end]`` is the secret value, ``line`` is 1-based."""

    kind: str
    start: int
    end: int
    line: int


def _value_span(rule: _Rule, match: Any) -> tuple[int, int] | None:
    if rule.group:
        for name in (b"v", b"v2", b"v3"):
            index = rule.pattern.groupindex.get(name)
            if index is not None and match.start(index) >= 0:
                return int(match.start(index)), int(match.end(index))
        return None
    return int(match.start()), int(match.end())


def _rule_set() -> Any:
    """Every rule's pattern in one RE2 ``Set``: one pass over a text says which rules can
    match it, and only those run their own search (a rule it does not name has no match)."""
    return search_set((rule.pattern.pattern for rule in _RULES), max_mem=256 << 20)


_ALL_RULES = _rule_set()


def _byte_spans(data: bytes, rules: Iterable[int] | None = None) -> list[tuple[int, int, str]]:
    """All secret spans in ``data`` (UTF-8), merged: sorted, non-overlapping. ``rules``
    (indices into the rule table) limits the search, for tests: by default the rules the
    ``Set`` says can match."""
    found: list[tuple[int, int, int, str]] = []
    if rules is None:
        rules = sorted(_ALL_RULES.Match(data) or ())
    for priority in rules:
        rule = _RULES[priority]
        for match in rule.pattern.finditer(data):
            span = _value_span(rule, match)
            if span is None or span[0] == span[1]:
                continue
            value = data[span[0] : span[1]]
            if rule.accept is not None and not rule.accept(value):
                continue
            if rule.context is not None and not rule.context(data, span[0], span[1]):
                continue
            kind = rule.kind
            if kind == "secret_assignment":
                kind = _assignment_kind(match.group(1))
            found.append((span[0], priority, span[1], kind))
    found.sort()
    merged: list[tuple[int, int, str]] = []
    for start, _priority, end, kind in found:
        if merged and start < merged[-1][1]:
            # Overlap: one redaction covers both (never leave part of a secret visible),
            # named after the earliest match, the more specific rule on a tie.
            last_start, last_end, last_kind = merged[-1]
            merged[-1] = (last_start, max(last_end, end), last_kind)
        else:
            merged.append((start, end, kind))
    return merged


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a span cut through a lone surrogate; never through UTF-8
        return data.decode("utf-8", "replace")


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret in ``text``, in order, as character offsets with their line number.

    Exactly the spans :func:`redact` replaces.
    """
    data = _encode(text)
    matches: list[SecretMatch] = []
    char_pos = 0
    byte_pos = 0
    line = 1
    for start, end, kind in _byte_spans(data):
        # Walk forward once: offsets and line numbers stay linear in the text's size.
        line += data.count(b"\n", byte_pos, start)
        char_start = char_pos + len(_decode(data[byte_pos:start]))
        char_end = char_start + len(_decode(data[start:end]))
        matches.append(SecretMatch(kind, char_start, char_end, line))
        line += data.count(b"\n", start, end)
        char_pos, byte_pos = char_end, end
    return matches


def redact(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    if not text:
        return text
    if len(text) <= _CACHED_CHARS:
        # Reports repeat the same short strings (titles, rule descriptions, a line quoted in
        # several places): each is searched once.
        return _redact_cached(text)
    return _redact(text)


#: Texts up to this long are remembered by :func:`redact` (at most 8,192 of them).
_CACHED_CHARS = 4096


@lru_cache(maxsize=8192)
def _redact_cached(text: str) -> str:
    return _redact(text)


def _redact(text: str) -> str:
    data = _encode(text)
    spans = _byte_spans(data)
    if not spans:
        return text
    pieces: list[bytes] = []
    pos = 0
    for start, end, kind in spans:
        pieces.append(data[pos:start])
        pieces.append(f"[REDACTED:{kind}]".encode())
        pos = end
    pieces.append(data[pos:])
    return _decode(b"".join(pieces))


# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-character escapes. Each
# alternative is bounded by characters it cannot contain, so the scan stays linear.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROL = {code: None for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]}
del _CONTROL[0x09], _CONTROL[0x0A]


def strip_control(text: str) -> str:
    """Remove ANSI escape sequences and control characters, keeping ``\\n`` and ``\\t``.

    A terminal escape in a file or commit message could rewrite what a person sees in a log;
    a carriage return could hide a line. Printable text is left untouched.
    """
    return _ANSI.sub("", text).translate(_CONTROL)


def sanitize(text: str) -> str:
    """The one cleaning of untrusted text before it is kept, shown or handed on: terminal
    escapes and control characters removed (``\\n`` and ``\\t`` kept), then secrets redacted.

    In this order, and before any escaping for an output format: a secret split by a control
    character, or assigned with a tab, is still recognised whole."""
    return redact(strip_control(text))
