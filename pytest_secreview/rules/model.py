"""The rule format: markdown with YAML frontmatter, validated with pydantic.

``RuleFrontmatter`` is the trust boundary (its JSON Schema is published in
``schemas/rule.schema.json``); ``Rule`` is the frozen domain value built from it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from ..analysis.spec import TaintSpec
from ..core.severity import Severity, severity_text
from ..safe_regex import SafePattern
from .scanner_spec import check_args
from .taint import TaintSection

_ID_RE = r"^[a-z0-9][a-z0-9._-]{0,79}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AppliesTo(_Strict):
    """Which changed files a rule looks at (gitignore-style globs, relative to the repo root)."""

    paths: list[str] = Field(default_factory=list, description="Globs a file must match (any).")
    exclude: list[str] = Field(default_factory=list, description="Globs that rule a file out.")
    file_extensions: list[str] = Field(
        default_factory=list, description='Extensions such as ".py"; any must match.'
    )

    @field_validator("file_extensions")
    @classmethod
    def _dotted(cls, value: list[str]) -> list[str]:
        for ext in value:
            if not ext.startswith("."):
                raise ValueError(f"extension {ext!r} must start with a dot, like '.{ext}'")
        return value


class Grep(_Strict):
    """Regexes (RE2 syntax) a hunk must match for the rule to apply."""

    all: list[str] = Field(default_factory=list, description="All must match the added lines.")
    any: list[str] = Field(default_factory=list, description="One must match the added lines.")
    removed: list[str] = Field(
        default_factory=list,
        description="One must match the removed lines (a deleted safeguard).",
    )


_Delimiter = Annotated[str, Field(min_length=1)]


class DetectPattern(_Strict):
    """A deterministic check: a regex on added (or removed) lines that yields a finding."""

    pattern: str = Field(description="RE2 regex matched against each line.")
    message: str = Field(min_length=3, description="The finding's title.")
    severity: Severity | None = Field(default=None, description="Default: the rule's severity.")
    on: Literal["added", "removed"] = Field(
        default="added", description="Match added lines, or removed lines (a deleted safeguard)."
    )
    unless: str | None = Field(
        default=None, description="RE2 regex; a line that also matches it is not reported."
    )
    setting: bool = Field(
        default=False,
        description="A dangerous setting or API use whatever data reaches it (autoescape off, "
        "ECB mode, an unfiltered tar extraction): it stands on files the rule's taint: section "
        "analysed, where the other added-line patterns below CRITICAL give way to the flows.",
    )
    within: tuple[_Delimiter, _Delimiter] | None = Field(
        default=None,
        description="Two delimiters (a template's ['{{', '}}']): the pattern and unless judge "
        "each span between them the line is part of on its own, joined over the lines of the "
        "hunk it spans (the finding stays on the line where the pattern matches its piece), "
        "and the rest of the line apart. Added lines only.",
    )
    credential: Literal["known", "generic"] | None = Field(
        default=None,
        description="The match is a credential, judged by its value (the pattern's `value` "
        "group, else the whole match): a value that says it is fake (placeholder words, "
        "filler, sequences, an example token) is never reported. known: a provider's key "
        "format, reported wherever it is; generic: a credential shape (a password field, "
        "URL userinfo), an example in test data and documentation unless the value looks "
        "like a generated key (see pytest_secreview/evaluation/credentials.py).",
    )
    opt_out_parameters: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(
        default_factory=list,
        description="Python: parameters whose caller's opt-out the code honours. A match on "
        "a line that runs only under an if/elif on one of these parameters of its own "
        "function (no default, or a literal default the condition rejects; never assigned "
        "in the function) is not reported: `if not verify: ctx.verify_mode = CERT_NONE` in "
        "`def send(self, request, verify)`. Name only parameters whose opt-out another "
        "pattern reports where the caller writes it (verify=False).",
    )
    recommendation: str = ""

    _severity = field_validator("severity", mode="before")(staticmethod(severity_text))

    @model_validator(mode="after")
    def _within_added(self) -> DetectPattern:
        if self.within is not None and self.on == "removed":
            raise ValueError("'within' judges spans of added lines; a pattern on removed "
                             "lines reads each line alone")
        return self


# -- scanner: an external scanner run as (part of) the rule --------------------------------


class ScannerSpec(_Strict):
    """``scanner:``: an external scanner whose results on the added lines are findings of
    this rule (see ``pytest_secreview/scanners``)."""

    name: Literal["bandit", "semgrep", "osv", "supply-chain"] = Field(
        description="Which scanner to run: bandit and semgrep are external (extra "
        "`scanners`); osv (known vulnerabilities of the dependencies a pull request "
        "introduces) and supply-chain (typosquats, package indexes, hash pinning, unpinned "
        "actions) are built in.")
    args: list[str] = Field(
        default_factory=list,
        description="Extra command-line arguments, from the scanner's allow-list (e.g. "
        "bandit's --severity-level medium, semgrep's --severity ERROR).",
    )
    files_per_item: int = Field(
        default=100, ge=1, le=100_000,
        description="Changed files per item. The scanner still runs once over all of them; "
        "items only group its findings, so a large pull request makes a few items.",
    )
    chars_per_item: int = Field(
        default=40_000, ge=100, le=2_000_000,
        description="Characters of hunk text per item (what a model verifying the findings "
        "reads); a larger file gets an item of its own.",
    )

    @model_validator(mode="after")
    def _allowed(self) -> ScannerSpec:
        check_args(self.name, self.args)
        return self


@dataclass(frozen=True)
class ScannerUse:
    """A rule's validated ``scanner:`` key."""

    name: str
    args: tuple[str, ...] = ()
    files_per_item: int = 100  # items group the one run's findings (see triage/plan.py)
    chars_per_item: int = 40_000


# -- examples: the rule's own test cases (``secreview test-rules``) ------------------------


def _example_path(value: str | None) -> str | None:
    """An example's path is a plain relative path inside the repository."""
    if value is None:
        return None
    parts = value.split("/")
    if value.startswith("/") or "\\" in value or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"example path {value!r} must be a relative path inside the "
                         "repository, like 'src/app.py' (no '..', no leading '/')")
    return value


class ExampleCase(_Strict):
    """One example with its own file path, or the file's content before the change."""

    code: str = Field(min_length=1, description="The added lines (the file's new content).")
    path: str | None = Field(
        default=None, min_length=1,
        description="The changed file's path (one the rule applies to). Default: the "
        "examples' path.")
    before: str = Field(
        default="", description="The file's content before the change (default: a new "
        "file); for a rule that reports removed lines.")

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        return _example_path(value)


def _snippet(value: object) -> object:
    """A bare string is an example with only its code."""
    return {"code": value} if isinstance(value, str) else value


#: An example: a snippet, or a mapping with its code and its own path.
ExampleEntry = Annotated[
    ExampleCase, BeforeValidator(_snippet, json_schema_input_type=str | ExampleCase)
]


class RuleExamples(_Strict):
    """``examples``: code the rule's deterministic part must find (``bad``) and must not
    find (``good``), checked by ``secreview test-rules``."""

    path: str | None = Field(
        default=None, min_length=1,
        description="The path every example is added at unless it names its own. Default: "
        "example<ext> with the rule's first file extension.")
    bad: list[ExampleEntry] = Field(
        default_factory=list, description="Snippets each of which must produce a finding.")
    good: list[ExampleEntry] = Field(
        default_factory=list, description="Snippets none of which may produce a finding.")
    fill: dict[Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]{2,39}$")], str] = Field(
        default_factory=dict,
        description="Placeholders in the examples replaced by a fake credential of the named "
        "kind, built at run time (e.g. {AWS_KEY: aws_access_key_id}): a rule file never "
        "holds a real-looking secret.")

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        return _example_path(value)


@dataclass(frozen=True)
class Example:
    """A rule example, resolved: added at ``path`` over ``before``; ``bad`` when the rule
    must report it."""

    code: str
    path: str
    bad: bool
    before: str = ""
    fill: tuple[tuple[str, str], ...] = ()  # (placeholder, kind of fake credential)


# ------------------------------------------------------------------------------------------

class CoverageBudget(_Strict):
    """``coverage``: this rule reviews every changed hunk of a reviewable file that no
    specific rule put in front of the model, several files per item (see ``triage/``)."""

    lines_per_item: int = Field(
        default=400, ge=1, le=100_000, description="Changed lines (added + removed) per item."
    )
    chars_per_item: int = Field(
        default=40_000, ge=100, le=2_000_000, description="Characters of hunk text per item."
    )
    max_items: int = Field(
        default=40, ge=1, le=10_000,
        description="Items per session; hunks beyond are listed as not reviewed (over budget).",
    )


class RuleFrontmatter(_Strict):
    """The YAML frontmatter of a rule file. Unknown keys are an error."""

    id: str | None = Field(default=None, pattern=_ID_RE, description="Default: the file stem.")
    title: str = Field(min_length=3)
    description: str = ""
    severity: Severity = Severity.HIGH
    category: str | None = None
    cwe: str | None = Field(default=None, pattern=r"^CWE-\d+$")
    owasp: str | None = None
    documentation_link: str | None = Field(default=None, pattern=r"^https?://")
    applies_to: AppliesTo = Field(default_factory=AppliesTo)
    grep: Grep = Field(default_factory=Grep)
    detect: list[DetectPattern] = Field(default_factory=list)
    taint: TaintSection | None = Field(
        default=None,
        description="Dataflow: sources, sinks, sanitizers (see docs/rules.md, Dataflow rules).")
    model: str | None = None
    max_turns: int | None = Field(default=None, ge=1, le=100)
    precedents: list[Annotated[str, Field(min_length=3, max_length=500)]] = Field(
        default_factory=list, max_length=50,
        description="What not to report under this rule: each a one-line precedent the "
        "verifier (--secreview-verify) is shown before it confirms or dismisses a finding.")
    scope: Literal["file", "pull_request"] = Field(
        default="file", description="file: one item per matching changed file; pull_request: "
        "one item for the whole change (the intent audit, pytest_secreview.audit)")
    scanner: ScannerSpec | None = None
    coverage: CoverageBudget | None = Field(
        default=None,
        description="Make this the general review rule: it covers every changed hunk no "
        "specific rule matched, batched into items by this budget.",
    )
    examples: RuleExamples | None = Field(
        default=None,
        description="Code the rule's deterministic part must find (bad) and must not find "
        "(good): `secreview test-rules` checks them.",
    )

    _severity = field_validator("severity", mode="before")(staticmethod(severity_text))


@dataclass(frozen=True)
class Coverage:
    """A coverage rule's batching budget (:class:`CoverageBudget`, frozen)."""

    lines_per_item: int = 400
    chars_per_item: int = 40_000
    max_items: int = 40


@dataclass(frozen=True)
class Detect:
    """A compiled :class:`DetectPattern`."""

    pattern: SafePattern
    message: str
    severity: Severity
    on: Literal["added", "removed"]
    unless: SafePattern | None
    recommendation: str
    setting: bool = False
    within: tuple[str, str] | None = None
    credential: str | None = None  # "known" or "generic": the match is judged by its value
    #: Python: parameters whose caller's opt-out guards a match (see DetectPattern).
    opt_out_parameters: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Rule:
    """A loaded, validated, compiled rule."""

    id: str
    title: str
    source: str  # display path, e.g. "rules/sql-injection.md"; the node id's file part
    severity: Severity
    instructions: str  # the markdown body without the "## GitHub Comment" section
    content_sha: str  # sha256 of the whole file: part of the evaluation cache key
    description: str = ""
    category: str | None = None
    cwe: str | None = None
    owasp: str | None = None
    documentation_link: str | None = None
    paths: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    file_extensions: tuple[str, ...] = ()
    grep_all: tuple[SafePattern, ...] = ()
    grep_any: tuple[SafePattern, ...] = ()
    grep_removed: tuple[SafePattern, ...] = ()
    detect: tuple[Detect, ...] = field(default=())
    taint: TaintSpec | None = None  # the compiled ``taint:`` section
    comment_template: str | None = None
    model: str | None = None
    max_turns: int | None = None
    scope: str = "file"  # "pull_request": one item per change, not per file (see audit/)
    scanner: ScannerUse | None = None
    coverage: Coverage | None = None  # set on the general review rule (``coverage:`` key)
    precedents: tuple[str, ...] = ()  # what not to report (frontmatter ``precedents:``)
    examples: tuple[Example, ...] = ()  # ``examples:``, checked by ``secreview test-rules``

    @property
    def needs_model(self) -> bool:
        """A rule with reviewer instructions needs a model; one without is deterministic-only."""
        return bool(self.instructions.strip())


_COMMENT_HEADING = re.compile(r"^##\s+GitHub Comment\s*$", re.MULTILINE | re.IGNORECASE)
_NEXT_H2 = re.compile(r"^##\s", re.MULTILINE)


def split_body(body: str) -> tuple[str, str | None]:
    """Split a rule body into (instructions, GitHub comment template or None)."""
    match = _COMMENT_HEADING.search(body)
    if not match:
        return body.strip(), None
    rest = body[match.end():]
    nxt = _NEXT_H2.search(rest)
    template = rest[: nxt.start()] if nxt else rest
    instructions = body[: match.start()] + (rest[nxt.start():] if nxt else "")
    return instructions.strip(), template.strip() or None


def content_sha(raw: bytes) -> str:
    """The sha256 of a rule file's bytes."""
    return hashlib.sha256(raw).hexdigest()
