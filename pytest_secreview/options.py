"""Options and settings: one ``--secreview-*`` group, each option also an ini key
(``secreview_*``) and an environment variable (``SECREVIEW_*``), CLI over ini over env,
parsed once into the frozen :class:`Settings`.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

import pytest

from .core.severity import Severity
from .invocation import CommandLine, parse_command_line, trusted_args
from .modes import DEFAULT_HANDLE, MODES, parse_handle
from .option_values import (
    advisory_source,
    choice,
    flag,
    local_semgrep_config,
    non_negative_float,
    osv_url,
    positive_float,
    positive_int,
    unit_float,
)
from .phase_names import PHASES
from .unreviewed import DEFAULT_POLICY, POLICIES

if TYPE_CHECKING:
    from .llm.pricing import Price

_T = TypeVar("_T")


#: Characters of hunks pre-loaded into one item's prompt (``--secreview-max-context-chars``);
#: above a coverage batch's 40,000, so the general review's batches fit whole by default.
DEFAULT_MAX_CONTEXT_CHARS = 60_000

#: With several models, which model findings count (``--secreview-consensus``); the
#: evaluation's consensus and the cache key read them from here.
ConsensusPolicy = Literal["any", "majority", "all"]
CONSENSUS_POLICIES: tuple[ConsensusPolicy, ...] = get_args(ConsensusPolicy)
#: What is posted on the pull request (``--secreview-comment``); publishing reads it from here.
#: Which intent-audit verdicts fail the item (``--secreview-intent-gate``); the audit reads it.
IntentGate = Literal["suspicious", "lie"]
INTENT_GATES: tuple[IntentGate, ...] = get_args(IntentGate)
#: SUSPICIOUS fails by default (the audit states an opinion, and it fails the item); teams
#: whose descriptions are terse lower the gate to ``lie`` and get a warning instead.
DEFAULT_INTENT_GATE: IntentGate = "suspicious"
CommentMode = Literal["off", "summary", "inline", "all"]
COMMENT_MODES: tuple[CommentMode, ...] = get_args(CommentMode)


def _price(value: str) -> tuple[str, Price]:
    # Imported here: the provider layer is not loaded unless the review needs it.
    from .llm.pricing import price_from_mapping

    model, *pairs = value.split()
    if not pairs:
        raise ValueError("expected 'MODEL input=N output=N [cached_input=N] [cache_write=N]'")
    values: dict[str, object] = {}
    for pair in pairs:
        key, sep, number = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair!r} is not key=value")
        values[key] = number
    return model, price_from_mapping(values)


def _severity(value: str) -> Severity:
    return Severity.parse(value)


@dataclass(frozen=True)
class OptionSpec:
    """One setting, declared once: its flag(s), ini key, env var and :class:`Settings` field
    are derived from ``name``, its parser and metavar from ``choices`` when it has some, and a
    subcommand's flag for it from the whole spec (:func:`.cli.flags.add_setting`)."""

    name: str  # e.g. "fail-on" -> --secreview-fail-on, secreview_fail_on, SECREVIEW_FAIL_ON
    help: str
    parse: Callable[[str], Any] = str
    #: The value when nothing sets it (``None``: unset; a flag is then false and a repeatable
    #: setting empty, see :attr:`value_default`).
    default: Any = None
    metavar: str | None = None
    #: The values it takes, when it is one of a few words: the parser (unless ``parse`` is
    #: given) and the ``{a,b}`` metavar are made from them.
    choices: tuple[str, ...] = ()
    multiple: bool = False
    separator: str = os.pathsep  # between values of a multiple setting in its env variable
    flag: bool = False  # a switch: --secreview-x, ini/env true/false
    aliases: tuple[str, ...] = ()
    #: False for the range under review: the checkout's ini file belongs to the pull request,
    #: which must not choose what it is compared against (base = HEAD reviews nothing).
    from_ini: bool = True
    #: True for what decides where a credential goes or what the verdict is (the range, the
    #: rules, the model and its endpoint, the thresholds, the pull request to post on). Such a
    #: setting is taken only from the trusted command line (the arguments pytest was started
    #: with, ``PYTEST_ADDOPTS``, the base revision's ``addopts``), the environment or the base
    #: revision's ini file: never from the ``addopts`` of the checkout's ini file.
    gate: bool = False
    #: A real value for the "Example:" of an error message, when the metavar is a shape
    #: (``0..1``, ``T``) rather than a value; a numeric default is one already.
    example: str | None = None
    #: The :class:`Settings` field, when it is not the name's (``model`` fills ``models``).
    attribute: str | None = None

    def __post_init__(self) -> None:
        if self.choices and self.parse is str:
            object.__setattr__(self, "parse", choice(*self.choices))
        if self.choices and self.metavar is None:
            object.__setattr__(self, "metavar", "{" + ",".join(self.choices) + "}")

    @property
    def setting_field(self) -> str:
        """The :class:`Settings` field that holds the value."""
        return self.attribute or self.name.replace("-", "_")

    @property
    def value_default(self) -> Any:
        """The :class:`Settings` value when nothing sets it."""
        if self.multiple:
            return ()
        if self.flag and self.default is None:
            return False
        return self.default

    @property
    def dest(self) -> str:
        return "secreview_" + self.name.replace("-", "_")

    @property
    def cli(self) -> str:
        return "--secreview-" + self.name

    @property
    def env(self) -> str:
        return "SECREVIEW_" + self.name.replace("-", "_").upper()

    def example_value(self) -> str:
        """A value that parses, for error messages: ``example``, a numeric default, the
        first choice, or the metavar."""
        if self.example is not None:
            return self.example
        if isinstance(self.default, (int, float)) and not isinstance(self.default, bool):
            return str(self.default)
        if self.flag:
            return "true"
        if self.choices:
            return self.choices[0]
        return self.metavar or "VALUE"


#: The option table: every setting, once.
SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("base", "base revision of the pull request (default: origin/$GITHUB_BASE_REF "
               "in GitHub Actions, else origin/HEAD)",
               metavar="REF", aliases=("--base",), from_ini=False, gate=True),
    OptionSpec("head", "head revision of the pull request", default="HEAD", metavar="REF",
               from_ini=False, gate=True),
    OptionSpec("rules", "rules directory or file; repeatable. Default: the bundled pack (with "
               "security-review, which reviews every changed hunk no other rule matched) plus "
               "the repository's secreview/rules/ if it exists; ':bundled' names the bundled "
               "pack", metavar="PATH", multiple=True, gate=True),
    OptionSpec("rules-from", "read rule files that live in the repository from base "
               "(default: the base revision, so a pull request cannot weaken them) or from "
               "head", choices=("base", "head"), default="base", gate=True),
    OptionSpec("semgrep-config", "local semgrep rule file or directory for the bundled "
               "scanner-semgrep rule; repeatable (without one, that rule makes no item and the "
               "summary's notes say so). Registry configs (auto, p/...) are refused: semgrep runs "
               "offline", parse=local_semgrep_config, multiple=True, metavar="PATH",
               gate=True),
    # Dependency review (deps/): where the bundled vulnerable-dependency rule reads advisories.
    OptionSpec("advisories", "directory of OSV advisory records (JSON), or OSV's ecosystem "
               "archive (all.zip), for the bundled vulnerable-dependency rule; repeatable; read "
               "offline. Without it or --secreview-osv-url that rule makes no item and the "
               "summary's notes say so", parse=advisory_source, multiple=True, metavar="DIR",
               gate=True, example="osv/PyPI"),
    OptionSpec("osv-url", "base URL of the OSV API (https://api.osv.dev) the "
               "vulnerable-dependency rule queries, opt-in: it receives the changed "
               "packages' names and versions; --secreview-advisories is used instead when "
               "both are set", parse=osv_url, metavar="URL", gate=True,
               example="https://api.osv.dev"),
    OptionSpec("fail-on", "lowest severity that fails an item", parse=_severity,
               default=Severity.CRITICAL, choices=tuple(s.value.lower() for s in Severity),
               gate=True),
    OptionSpec("on-error", "what an infrastructure failure (provider outage, budget spent, "
               "no verdict) becomes: error (default) or skip",
               choices=("error", "skip"), default="error",
               gate=True),
    OptionSpec("unreviewed", "what an item that could not be evaluated (no model for a rule "
               "that needs one, budget spent, file too large, provider down under "
               "--secreview-on-error=skip) becomes: fail (recommended for CI), warn (default: "
               "skipped, with a warning in the summary) or skip (skipped quietly)",
               choices=POLICIES, default=DEFAULT_POLICY, gate=True),
    OptionSpec("intent-gate", "which intent-audit verdicts fail the item: suspicious "
               "(default: SUSPICIOUS and LIE fail) or lie (only LIE fails, SUSPICIOUS warns)",
               choices=INTENT_GATES, default=DEFAULT_INTENT_GATE, gate=True),
    # Keeping it quiet (suppression/): the baseline of accepted findings.
    OptionSpec("baseline", "JSON file of accepted findings (fingerprint, rule, path, note): "
               "they are reported as suppressed and fail nothing. A file inside the repository "
               "is read from the base revision, so a pull request cannot mute its own findings",
               parse=Path, metavar="FILE", gate=True),
    OptionSpec("baseline-update", "write the current findings into the --secreview-baseline "
               "file on disk (notes already there are kept) at the end of the run",
               parse=flag, flag=True),
    OptionSpec("model", "model for the agentic review, e.g. google/gemini-2.5-pro, "
               "anthropic:claude-sonnet-4-5, openai:gpt-4.1; none: deterministic rules only. "
               "Repeatable (ini: one per line; env: comma-separated): each model reviews every "
               "item on its own and --secreview-consensus decides",
               metavar="MODEL", multiple=True, separator=",", gate=True, attribute="models"),
    OptionSpec("consensus", "with several models, which model findings count: any (default: "
               "a location reported by any model), majority (by more than half of the models) "
               "or all (by every model); deterministic findings always count",
               choices=CONSENSUS_POLICIES, default="any", gate=True),
    OptionSpec("triage", "how rules are chosen for the changed files: rules (default: each "
               "rule's globs and patterns, plus the general security-review of every hunk no "
               "rule matched) or model (the model also reads the PR's file list and may add "
               "rules on files, never drop one)", choices=("rules", "model"),
               default="rules"),
    OptionSpec("mode", "what the run does: review (default), fix (also propose a patch for "
               "each confirmed finding, written to the artifacts, never pushed) or mention "
               "(answer an @secreview question on the pull request; chosen by itself on a "
               "comment event that mentions the handle)",
               choices=MODES, default=None, gate=True),
    # -- precision: the second look, team instructions, confidence, prompt budget --------
    OptionSpec("verify", "the model's second look before a finding can fail an item: pattern "
               "and scanner findings are confirmed or dismissed, and each model finding at or "
               "above --secreview-fail-on goes to an independent, skeptical verifier that sees "
               "the whole file. Dismissed findings stay in JSON and SARIF as suppressed, with "
               "the reason. Default true when a model is set; false turns both checks off",
               parse=flag, metavar="{true,false}", gate=True, example="true"),
    OptionSpec("instructions", "the team's instructions (markdown) added to every model "
               "prompt as team policy: what is in scope, trusted inputs, internal frameworks. "
               "Read from the base revision like the rules (--secreview-rules-from). Default: "
               ".secreview/instructions.md when the base revision has it",
               parse=Path, metavar="FILE", gate=True),
    OptionSpec("min-confidence", "findings whose stated confidence (0..1) is below this "
               "neither fail an item nor become inline comments; they stay in JSON and SARIF, "
               "marked. A finding that states no confidence is kept and shown as 'no "
               "confidence stated'", parse=unit_float, metavar="0..1", gate=True,
               example="0.5"),
    OptionSpec("max-context-chars", "characters of changed hunks pre-loaded into one item's "
               "review prompt; hunks over it are listed by name in the prompt and the summary "
               f"and stay reachable through the tools (default: {DEFAULT_MAX_CONTEXT_CHARS})",
               parse=positive_int,
               default=DEFAULT_MAX_CONTEXT_CHARS, metavar="N"),
    OptionSpec("fallback-model", "model to use when the first is unavailable",
               metavar="MODEL", gate=True),
    OptionSpec("max-turns", "model round-trips allowed per item", parse=positive_int,
               default=10, metavar="N"),
    OptionSpec("max-output-tokens", "output token cap per model call", parse=positive_int,
               default=4096, metavar="N"),
    OptionSpec("max-tool-calls", "repository tool calls allowed per item; past it the model "
               "is told to report, and an item that keeps calling tools is an error",
               parse=positive_int, default=40, metavar="N"),
    OptionSpec("max-tokens", "input plus output tokens allowed per item over all its model "
               "calls; reaching it without a verdict is an error (default: no cap)",
               parse=positive_int, metavar="N", example="200000"),
    OptionSpec("temperature", "sampling temperature (provider default when unset)",
               parse=non_negative_float, metavar="T", example="0.2"),
    OptionSpec("timeout", "seconds allowed for one model call", parse=positive_float,
               default=120.0, metavar="SECONDS"),
    OptionSpec("api-base", "base URL replacing the provider's on every route (proxy, private "
               "endpoint, local server)", metavar="URL", gate=True),
    OptionSpec("project", "Google Cloud project for Vertex AI (else GOOGLE_CLOUD_PROJECT)",
               metavar="PROJECT", gate=True),
    OptionSpec("location", "Vertex AI location (else GOOGLE_CLOUD_LOCATION, default global)",
               metavar="LOCATION", gate=True),
    OptionSpec("prices", "price override per model-id prefix, USD per million tokens, e.g. "
               "'gemini-2.5-pro input=1.25 output=10 cached_input=0.125' (cache_write=N prices "
               "prompt-cache writes, default the input price); repeatable (';' "
               "between entries in SECREVIEW_PRICES)", parse=_price, multiple=True,
               separator=";", metavar="'MODEL input=N output=N'",
               example="gemini-2.5-pro input=1.25 output=10"),
    OptionSpec("pr", "pull request number (default: from GITHUB_EVENT_PATH)",
               parse=positive_int, metavar="N", gate=True, example="7"),
    OptionSpec("repo", "repository owner/name (default: GITHUB_REPOSITORY)",
               metavar="OWNER/NAME", gate=True),
    OptionSpec("cache-dir", "evaluation cache directory, shareable between CI runs "
               "(default: secreview/ in pytest's cache directory)", parse=Path, metavar="DIR"),
    OptionSpec("no-cache", "neither read nor write the evaluation cache", parse=flag,
               flag=True),
    OptionSpec("cache-replay", "which stored model reviews stand in for a fresh one: all "
               "(default: a re-run of unchanged content makes no model call, and a review "
               "the pull request steered once is replayed) or failing (only one that found "
               "something at or above --secreview-fail-on, or whose second look dismissed "
               "nothing there; the rest are asked again)", choices=("all", "failing"),
               default="all", gate=True),
    OptionSpec("max-cost", "session budget in USD shared by all workers; items not started "
               "when it is spent end as errors", parse=non_negative_float, metavar="USD",
               example="5"),
    OptionSpec("max-concurrency", "model requests in flight at once, across all workers",
               parse=positive_int, metavar="N", example="4"),
    OptionSpec("rpm", "model requests per minute, across all workers", parse=positive_int,
               metavar="N", example="60"),
    OptionSpec("artifacts", "directory that receives the diff, the rules, per-item tasks and "
               "evaluations and the report (default: secreview-artifacts)", parse=Path,
               default=Path("secreview-artifacts"), metavar="DIR"),
    OptionSpec("report", "directory for summary.json and summary.md (default: "
               "<artifacts>/report)", parse=Path, metavar="DIR"),
    OptionSpec("sarif", "write a SARIF 2.1.0 log for GitHub code scanning to PATH",
               parse=Path, metavar="PATH"),
    OptionSpec("comment", "what to post on the pull request: off, summary, inline or all "
               "(default: summary when a token and a PR are known)",
               choices=COMMENT_MODES),
    OptionSpec("progress", "post a 'reviewing N of M' comment that becomes the summary",
               parse=flag, flag=True),
    OptionSpec("progress-interval", "least seconds between two edits of the progress "
               "comment; it is edited as items finish and as the model's tool calls complete "
               "(default 5)", parse=non_negative_float, default=5.0, metavar="SECONDS"),
    OptionSpec("mention-handle", "the handle a comment mentions to ask a question in mention "
               f"mode, without the @ (default: {DEFAULT_HANDLE})", parse=parse_handle,
               default=DEFAULT_HANDLE, metavar="NAME", gate=True),
    OptionSpec("dry-run", "write the GitHub requests that would be sent to the artifacts "
               "directory instead of sending them", parse=flag, flag=True),
    # Phases: run the review one phase at a time, with artifacts in between.
    # Command line or environment only, like the range: a checkout's ini file must not make
    # the review trust a stored (forgeable) result instead of evaluating.
    OptionSpec("stop-after", "stop after this phase: diff, rules, evaluate, comment or report "
               "(default: report, the whole review); its artifacts go to "
               "<artifacts>/phases/ for `secreview <next phase>` or --secreview-from-phase",
               choices=PHASES,
               aliases=("--stop-after",), from_ini=False, gate=True),
    OptionSpec("from-phase", "start at this phase, reading the earlier phases' artifacts from "
               "<artifacts>/phases/ instead of recomputing them (refused when they do not "
               "match the repository)", choices=PHASES, aliases=("--from-phase",),
               from_ini=False, gate=True),
)


#: The table by option name (``"fail-on"``).
BY_NAME: Mapping[str, OptionSpec] = {spec.name: spec for spec in SPECS}


def add_options(parser: pytest.Parser) -> None:
    """Register the option group and ini keys."""
    group = parser.getgroup("secreview", "security review of a pull request (pytest-secreview)")
    group.addoption("--secreview", action="store_true", dest="secreview", default=None,
                    help="review the pull request's diff with security rules")
    parser.addini("secreview", "enable the security review (true/false)", default=None)
    for spec in SPECS:
        # Derived, so no setting kept out of ini files can forget to say so (flag and ini key).
        text = spec.help if spec.from_ini else f"{spec.help}; command line or {spec.env} only"
        kwargs: dict[str, Any] = {"dest": spec.dest, "default": None, "help": text}
        if spec.metavar and not spec.flag:
            kwargs["metavar"] = spec.metavar
        if spec.flag:
            kwargs.update(action="store_const", const="true")
        else:
            kwargs["action"] = "append" if spec.multiple else "store"
        group.addoption(spec.cli, *spec.aliases, **kwargs)
        if spec.multiple:
            parser.addini(spec.dest, text, type="linelist", default=None)
        elif spec.flag:
            # A flag's ini key is a boolean (``--help`` says so); it parses like the rest.
            parser.addini(spec.dest, text, type="bool", default=None)
        else:
            parser.addini(spec.dest, text, type="string", default=None)


#: The default of a :class:`Settings` field that holds an option: the table's (``SPECS``).
FROM_TABLE: Any = object()


def _defaults_from_table(cls: type[_T]) -> type[_T]:
    """Give each ``FROM_TABLE`` field of ``cls`` its option's default; refuse, at import, a
    field without an option and an option without a field (the table is the declaration)."""
    options = {spec.setting_field: spec for spec in SPECS}
    for name in cls.__annotations__:
        if getattr(cls, name, None) is not FROM_TABLE:
            continue
        spec = options.pop(name, None)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{name} takes its default from the option table, "
                            "which has no option for it")
        setattr(cls, name, spec.value_default)
    if options:
        raise TypeError(f"{cls.__name__} has no field for the option(s) "
                        + ", ".join(spec.cli for spec in options.values()))
    return cls


@dataclass(frozen=True)
@_defaults_from_table
class Settings:
    """Every ``--secreview-*`` setting, resolved once (CLI over ini over env). Each field's
    default comes from its :class:`OptionSpec` (``FROM_TABLE``); its type is the one the
    spec's parser returns (``tests/test_option_table.py`` checks they agree)."""

    enabled: bool
    base: str | None = FROM_TABLE
    head: str = FROM_TABLE
    rules: tuple[str, ...] = FROM_TABLE
    rules_from: str = FROM_TABLE
    semgrep_config: tuple[Path, ...] = FROM_TABLE
    advisories: tuple[Path, ...] = FROM_TABLE
    osv_url: str | None = FROM_TABLE
    fail_on: Severity = FROM_TABLE
    on_error: str = FROM_TABLE
    unreviewed: str = FROM_TABLE
    intent_gate: str = FROM_TABLE
    baseline: Path | None = FROM_TABLE
    baseline_update: bool = FROM_TABLE
    model: str | None = None  # the first of ``models``
    #: Every ``--secreview-model``, in order; one reviewer each (see :mod:`..evaluation.consensus`).
    models: tuple[str, ...] = FROM_TABLE
    consensus: str = FROM_TABLE
    fallback_model: str | None = FROM_TABLE
    triage: str = FROM_TABLE
    mode: str | None = FROM_TABLE  # None: chosen by the event (see :mod:`.modes`)
    verify: bool | None = FROM_TABLE  # None: on when a model is set
    instructions: Path | None = FROM_TABLE
    min_confidence: float | None = FROM_TABLE
    max_context_chars: int = FROM_TABLE
    max_turns: int = FROM_TABLE
    max_output_tokens: int = FROM_TABLE
    max_tool_calls: int = FROM_TABLE
    max_tokens: int | None = FROM_TABLE
    temperature: float | None = FROM_TABLE
    timeout: float = FROM_TABLE
    api_base: str | None = FROM_TABLE
    project: str | None = FROM_TABLE
    location: str | None = FROM_TABLE
    prices: tuple[tuple[str, Price], ...] = FROM_TABLE
    pr: int | None = FROM_TABLE
    repo: str | None = FROM_TABLE
    cache_dir: Path | None = FROM_TABLE
    no_cache: bool = FROM_TABLE
    cache_replay: str = FROM_TABLE
    max_cost: float | None = FROM_TABLE
    max_concurrency: int | None = FROM_TABLE
    rpm: int | None = FROM_TABLE
    artifacts: Path = FROM_TABLE
    report: Path | None = FROM_TABLE
    sarif: Path | None = FROM_TABLE
    comment: str | None = FROM_TABLE
    progress: bool = FROM_TABLE
    progress_interval: float = FROM_TABLE
    mention_handle: str = FROM_TABLE
    dry_run: bool = FROM_TABLE
    stop_after: str | None = FROM_TABLE
    from_phase: str | None = FROM_TABLE

    def __post_init__(self) -> None:
        # ``model`` and ``models`` say the same thing: whichever was given fills the other
        # (``Settings(model=...)`` and ``replace(settings, model=...)`` stay one model).
        if self.model is not None and (not self.models or self.models[0] != self.model):
            object.__setattr__(self, "models", (self.model,))
        elif self.model is None and self.models:
            object.__setattr__(self, "model", self.models[0])


def parse_value(spec: OptionSpec, raw: Any, origin: str, flag: str | None = None) -> Any:
    """``raw`` (a string, or a list of them for a repeatable setting) parsed by ``spec``.
    Raises :class:`ValueError` naming ``origin`` (where the value came from), the value and a
    valid example for ``flag`` (default: the ``--secreview-*`` flag)."""
    try:
        if spec.multiple:
            return tuple(spec.parse(str(v).strip()) for v in raw)
        return spec.parse(str(raw).strip())
    except ValueError as exc:
        raise ValueError(f"{origin}: invalid value {raw!r}: {exc}. Example: {flag or spec.cli}="
                         f"{shlex.quote(spec.example_value())}") from None


def environment_value(spec: OptionSpec, env: Mapping[str, str],
                      flag: str | None = None) -> Any:
    """The setting's value from its environment variable, parsed; ``None`` when unset or
    empty. Raises :class:`ValueError` like :func:`parse_value`."""
    raw = _environment_raw(spec, env)
    if raw is None:
        return None
    return parse_value(spec, raw, f"environment variable {spec.env}", flag)


def _environment_raw(spec: OptionSpec, env: Mapping[str, str]) -> str | list[str] | None:
    """The setting's environment variable, split when repeatable; ``None`` when unset."""
    value = env.get(spec.env)
    if value is None or value == "":
        return None
    return [v for v in value.split(spec.separator) if v] if spec.multiple else value


def ini_values(config: pytest.Config) -> dict[str, Any]:
    """Every ``secreview_*`` ini value as pytest read it from the checkout's ini file."""
    return {spec.dest: config.getini(spec.dest) for spec in SPECS if spec.from_ini}


def trusted_command_line(
    config: pytest.Config, env: Mapping[str, str] | None = None,
    base_addopts: Sequence[str] = (),
) -> CommandLine:
    """The options the CI job gave: pytest's own arguments, ``PYTEST_ADDOPTS`` and the base
    revision's ``addopts``; never the checkout's ``addopts`` (see :mod:`..invocation`)."""
    args = trusted_args(config.invocation_params.args, env, base_addopts)
    return parse_command_line(SPECS, args)


def _raw(
    config: pytest.Config, spec: OptionSpec, env: Mapping[str, str],
    ini_override: Mapping[str, Any] | None, trusted: CommandLine,
) -> tuple[Any, str]:
    """The raw value of a setting and where it came from (for error messages)."""
    # A gate setting from the checkout's addopts would be the pull request's choice.
    cli = trusted.values.get(spec.dest) if spec.gate else config.getoption(spec.dest)
    if cli is not None:
        return cli, spec.cli
    if not spec.from_ini:
        if config.getini(spec.dest) not in (None, ""):
            raise pytest.UsageError(
                f"ini key {spec.dest} is not used: the checkout's ini file is part of the pull "
                f"request under review, which must not choose its own range. Remove it and "
                f"pass {spec.cli} or set {spec.env}"
            )
        ini = None
    elif ini_override is None:
        ini = config.getini(spec.dest)
    else:
        ini = ini_override.get(spec.dest)
        if spec.multiple and isinstance(ini, str):
            ini = [line.strip() for line in ini.splitlines() if line.strip()]
    if ini not in (None, "", []):
        return ini, f"ini key {spec.dest}"
    from_env = _environment_raw(spec, env)
    if from_env is not None:
        return from_env, f"environment variable {spec.env}"
    return None, ""


def load_settings(
    config: pytest.Config,
    env: Mapping[str, str] | None = None,
    ini_override: Mapping[str, Any] | None = None,
    trusted: CommandLine | None = None,
) -> Settings:
    """Resolve all settings; a bad value raises ``pytest.UsageError`` that says how to fix it.

    ``ini_override`` replaces the ini values pytest read (the base revision's, see
    :mod:`pytest_secreview.trust`); ``trusted`` is the command line gate settings come from
    (default: :func:`trusted_command_line` without the base revision's ``addopts``).
    """
    env = os.environ if env is None else env
    trusted = trusted_command_line(config, env) if trusted is None else trusted
    enabled = bool(config.getoption("secreview"))
    if not enabled:
        ini = config.getini("secreview")
        raw = ini if ini not in (None, "") else env.get("SECREVIEW", "")
        try:
            enabled = flag(str(raw))
        except ValueError:
            raise pytest.UsageError(
                f"secreview: enable flag {raw!r} is not a boolean; use true or false"
            ) from None
    values: dict[str, Any] = {}
    for spec in SPECS:
        raw_value, origin = _raw(config, spec, env, ini_override, trusted)
        if raw_value is None:
            continue  # the field's default is the table's
        try:
            values[spec.setting_field] = parse_value(spec, raw_value, origin)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    if "models" in values:  # a model named twice reviews once
        values["models"] = tuple(dict.fromkeys(values["models"]))
    return Settings(enabled=enabled, **values)
