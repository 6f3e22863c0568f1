"""The review's per-process state, kept in ``config.stash``: settings, the repository, the
diff (computed once per process), the rule files and per-item metadata."""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .atomic import write_bytes_atomic
from .core.decide import Policy
from .core.findings import Finding
from .diff.model import Diff, FileDiff
from .diff.prefetch import DiffPrefetch
from .errors import ConfigError, EvaluationError, RuleError, SecreviewError
from .evaluation.evaluate import AgentReview, Evaluation, evaluate
from .options import Settings
from .rules.loader import RuleFiles, RuleSource, find_rule_files
from .rules.matcher import PreparedDiff, Target
from .rules.model import Rule
from .rules.parse import parse_rules
from .trust import tracked_under

if TYPE_CHECKING:  # each layer loads when the review first needs it
    from collections.abc import Callable

    from .agent.guidance import Guidance
    from .analysis.session import TaintSession
    from .evaluation.review import ModelReviewer
    from .fix.run import Fixer
    from .llm.base import ChatModel
    from .scanners.session import ScannerSession
    from .suppression.apply import Quiet
    from .suppression.authority import Authority
    from .suppression.baseline import Baseline
    from .triage.gaps import Gap
    from .triage.ignore import IgnoreFile
    from .triage.links import Links
    from .triage.plan import TriagePlan


@dataclass
class ReviewState:
    """Everything one process knows about the review under way."""

    config: pytest.Config
    settings: Settings
    repo: Path
    base_ref: str
    diff: Diff
    prepared: PreparedDiff
    rule_files: RuleFiles
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)
    agent: AgentReview | None = None
    #: What the pull request changed in pytest's own configuration (shown first).
    warnings: list[str] = field(default_factory=list)
    #: Selection options the job gave (-k, -m, --deselect...) and review items they removed.
    selection: dict[str, Any] = field(default_factory=dict)
    deselected: int = 0
    session_dir: Path | None = None  # shared by the xdist controller and its workers
    #: Inline suppressions and the baseline, applied to every item's findings.
    quiet: Quiet | None = None
    #: The head revision's symlinks that matter to this diff (aliases, refused links).
    links: Links | None = None
    #: Whether the suppressions the pull request adds are a maintainer's (asked once, on the
    #: controller; None when it adds none).
    authority: Authority | None = None

    @property
    def policy(self) -> Policy:
        """The trusted settings :func:`~.core.decide.decide` reads."""
        return Policy(fail_on=self.settings.fail_on, unreviewed=self.settings.unreviewed,
                      on_error=self.settings.on_error)

    @property
    def author_writes(self) -> bool:
        """True when the pull request's author has write access (its suppressions count)."""
        return self.authority is not None and self.authority.writes

    @cached_property
    def scanners(self) -> ScannerSession:
        """The external scanners of ``scanner:`` rules, run once per session."""
        from .scanners.session import ScannerSession

        return ScannerSession(
            repo=self.repo, head_sha=self.diff.head_sha,
            # Semgrep configs in the repository are trusted like its rules (--secreview-rules-from).
            base_sha=self.diff.base_sha if self.settings.rules_from == "base" else None,
            targets=lambda rule: [part.file.path for target in self.triage.targets(
                rule, self.prepared) for part in target.parts],
            shared_dir=self.session_dir, semgrep_configs=self.settings.semgrep_config,
        )

    @cached_property
    def parsed_rules(self) -> list[tuple[RuleSource, Rule | RuleError]]:
        """Every rule file parsed once, sorted by display path; errors kept per file."""
        return parse_rules(self.rule_files.sources)

    @property
    def rules(self) -> list[Rule]:
        """The rules that parsed."""
        return [r for _, r in self.parsed_rules if isinstance(r, Rule)]

    @cached_property
    def triage(self) -> TriagePlan:
        """Which rules run on which files, and the general review's batches (computed once,
        after the rules are indexed, from pinned inputs only: every xdist worker agrees)."""
        from .rules.scanner_spec import NEEDS_CONFIG
        from .triage.plan import plan_triage
        from .triage.store import load_model_triage

        added, record = load_model_triage(self.session_dir)
        idle = frozenset() if self.settings.semgrep_config else NEEDS_CONFIG
        return plan_triage(self.diff, self.prepared, self.rules, added, record, idle,
                           self.ignore)

    @cached_property
    def ignore(self) -> IgnoreFile:
        """The base revision's ``.secreviewignore`` (read by every process from the pinned
        base commit, so xdist workers agree)."""
        from .triage.ignore import read_ignore_file

        return read_ignore_file(self.repo, self.diff.base_sha)

    @cached_property
    def gaps(self) -> list[Gap]:
        """What no item reviews: each an unreviewed item, and a line of the report."""
        from .triage.gaps import review_gaps
        # Without a model the general review does not run: its budget leaves nothing out.
        left_out = () if self.deterministic_review else self.triage.left_out()
        return review_gaps(self.repo, self.diff, left_out, self.links)

    def run_model_triage(self) -> None:
        """``--secreview-triage=model``: ask the model which rules to add, once, on the
        controller, before collection; the result is shared through the session directory."""
        from .triage.model_triage import run_for_review

        note = run_for_review(self)
        if note:
            self.rule_files.notes.append(note)

    @cached_property
    def taint(self) -> TaintSession | None:
        """The dataflow analysis of the changed Python files (built on first use, once per
        process; None when no rule has a ``taint:`` section)."""
        from .evaluation.files import taint_session

        return taint_session(self.repo, self.diff, self.rules)

    @cached_property
    def taint_files(self) -> tuple[FileDiff, ...]:
        """The changed files the dataflow analysis reads (from the diff: collection never
        builds the analysis itself)."""
        from .triage.plan import taint_files

        return taint_files(self.diff)

    @property
    def deterministic_review(self) -> bool:
        """No model is configured: what only a model can do is not collected."""
        return not self.settings.model

    def targets(self, rule: Rule) -> list[Target]:
        """The items of ``rule``: the triage plan's targets, plus one item for the files where
        the rule's dataflow may find a flow the pull request introduced (a removed guard
        matches no grep). None for a rule that needs a model when none is configured: such
        an item would have nothing to run (the summary says the review is deterministic)."""
        from .triage.plan import runs_without_model, with_dataflow_target

        if self.deterministic_review and not runs_without_model(rule):
            return []
        return with_dataflow_target(rule, self.triage.targets(rule, self.prepared),
                                    self.triage.dataflow_files(rule, self.taint_files),
                                    self.prepared)

    def evaluate(self, item: pytest.Item, target: Target) -> Evaluation:
        """Evaluate ``item``'s ``target``, applying the team's
        ``pytest_secreview_filter_finding`` hook (which is given the item)."""

        def keep(finding: Finding) -> bool:
            verdict = self.config.hook.pytest_secreview_filter_finding(
                finding=finding, item=item
            )
            return verdict is not False

        verify = getattr(self.agent, "verify_findings", None)  # the model's check, if any
        if self.agent is not None:
            from .evaluation.review import share_rules

            share_rules(self.agent, self.rules)  # what other rules found, for each prompt
        files = [part.file for part in target.parts]
        try:
            evaluation = evaluate(target, self.agent, keep, scanners=self.scanners,
                                  taint=self.taint, verify=verify,
                                  min_confidence=self.settings.min_confidence,
                                  deterministic_review=self.deterministic_review)
        except EvaluationError as exc:
            if self.quiet is not None:  # what stands after a failure is suppressed the same way
                exc.findings = self.quiet.apply(exc.findings, target.rule.id, files,
                                                category=target.rule.category)
            raise
        if self.quiet is not None:
            # Decided after evaluation, from the code and the baseline: never by a model.
            evaluation = replace(evaluation, findings=self.quiet.apply(
                evaluation.findings, target.rule.id, files, category=target.rule.category))
        if self.settings.mode == "fix" and self.agent is not None:
            evaluation = self.fixer.fix(target, evaluation)
        return evaluation

    @cached_property
    def fixer(self) -> Fixer:
        """Fix mode's patches for confirmed findings (built on first use, once per process)."""
        from .fix.run import Fixer

        return Fixer(agent=self.agent, repo=self.repo, diff=self.diff, rules=self.rules,
                     threshold=self.settings.fail_on,
                     semgrep_configs=self.settings.semgrep_config)


EVALUATION_KEY = pytest.StashKey[Evaluation]()
#: An item's record and what ``decide`` made of it (JSON-safe: it travels with the setup
#: report to the xdist controller, as ``report.secreview_record``).
RECORD_KEY = pytest.StashKey[dict[str, Any]]()
#: What an item sent and received, for the artifacts directory (no file bodies).
ARTIFACT_KEY = pytest.StashKey[dict[str, Any]]()
REVIEW_KEY = pytest.StashKey[ReviewState]()


@dataclass(frozen=True)
class Handoff:
    """What the xdist controller computed at start-up, handed to its workers so that none of
    them runs ``git diff``, re-reads the base revision's configuration or looks for the rule
    files again: the range, the parsed diff, the trusted settings and the rule files' bytes.
    (The rules are parsed and indexed again in each worker: compiled patterns do not cross
    processes, and parsing is cheap next to the diff.)"""

    repo: Path
    base_ref: str
    diff: Diff
    settings: Settings
    rule_files: RuleFiles
    warnings: tuple[str, ...]
    selection: dict[str, Any]
    baseline: Baseline | None = None  # --secreview-baseline as the controller read it
    authority: Authority | None = None  # the pull request author's, asked by the controller

    #: The file in the session directory (a private ``mkdtemp`` directory of this user, made
    #: by the controller: the only writer of what workers unpickle).
    FILE = "handoff.pickle"

    @classmethod
    def of(cls, review: ReviewState) -> Handoff:
        """The controller's start-up results."""
        return cls(review.repo, review.base_ref, review.diff, review.settings,
                   review.rule_files, tuple(review.warnings), dict(review.selection),
                   review.quiet.baseline if review.quiet is not None else None,
                   review.authority)

    def write(self, session_dir: Path) -> Path:
        """Store the hand-off in the session directory (once per session)."""
        path = session_dir / self.FILE
        if not path.exists():
            write_bytes_atomic(path, pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))
        return path

    @classmethod
    def read(cls, path: Path) -> Handoff:
        """The controller's hand-off, in a worker."""
        handoff = pickle.loads(path.read_bytes())  # noqa: S301 - written by our controller
        if not isinstance(handoff, cls):
            raise TypeError(f"{path} does not hold a secreview hand-off")
        return handoff


def start_review(
    config: pytest.Config, settings: Settings, session_dir: Path,
    prefetch: DiffPrefetch | None, handoff: Handoff | None = None,
) -> ReviewState:
    """Resolve the range, run the diff once and find the rule files; an xdist worker takes
    them from the controller's ``handoff`` instead.

    Raises ``pytest.UsageError`` with an actionable message for every bad input.
    """
    if handoff is not None:
        return _from_handoff(config, handoff, session_dir)
    assert prefetch is not None
    from . import steering

    invocation = config.invocation_params.dir
    notes: list[str] = []
    try:
        repo, base_ref, diff = prefetch.result()
        settings, command_line = steering.trusted_settings(config, settings, repo,
                                                           diff.base_sha, notes)
        exposed = steering.exposure(steering.touched(diff),
                                    steering.hardening_of(config, repo, os.environ))
        steering.warn_exposure(config, exposed)
        warnings = [*(e.text for e in exposed), *notes]
        notes = list(warnings)
        rule_files = find_rule_files(
            settings.rules, repo, settings.rules_from, diff.base_sha, invocation
        )
        agent = (
            build_reviewer(config, settings, repo, diff, session_dir, notes)
            if settings.model else None
        )
        if agent is None and settings.instructions is not None:
            # Nothing reads them without a model, but a named file that exists nowhere is a
            # usage error all the same (the run would otherwise pass, silently unguided).
            from .agent.guidance import load_guidance

            load_guidance(repo, diff.base_sha, config.invocation_params.dir,
                          settings.instructions, settings.rules_from, [])
        if settings.mode == "fix" and agent is None:
            notes.append("--secreview-mode=fix proposes patches with a model, and none is "
                         "configured: no patch was proposed; set --secreview-model")
        from .suppression.setup import load_quiet

        quiet = load_quiet(settings, repo, diff, invocation, notes)
        authority = _authority(settings, diff, notes)
        from .triage.ignore import read_ignore_file

        notes += read_ignore_file(repo, diff.base_sha).notes(diff)
        rule_files.notes[:0] = notes
    except SecreviewError as exc:
        raise pytest.UsageError(f"secreview: {exc}") from None
    from .diff.kinds import default_exclusions
    from .triage.links import read_links

    links = read_links(repo, diff.head_sha, diff.files)
    excluded = default_exclusions(diff.files)
    return ReviewState(
        config=config,
        settings=settings,
        repo=repo,
        base_ref=base_ref,
        diff=diff,
        prepared=PreparedDiff(diff.files, links.aliases, excluded),
        links=links,
        rule_files=rule_files,
        agent=agent,
        warnings=warnings,
        selection=command_line.selection(),
        session_dir=session_dir,
        quiet=quiet,
        authority=authority,
    )


def _authority(settings: Settings, diff: Diff, notes: list[str]) -> Authority | None:
    """Whether the suppressions the pull request adds are a maintainer's, asked once."""
    from .suppression.authority import author_authority

    authority = author_authority(diff, os.environ, number=settings.pr, repository=settings.repo)
    if authority is not None and not authority.writes:
        notes.append("suppressions this pull request adds mute only findings below "
                     f"--secreview-fail-on ({settings.fail_on.value}); the others await a "
                     f"maintainer: {authority.reason}")
    return authority


def _from_handoff(config: pytest.Config, handoff: Handoff, session_dir: Path) -> ReviewState:
    """A worker's review state from the controller's start-up: only the model review (its
    clients and credentials stay in each process) is built here."""
    from .suppression.apply import Quiet

    settings = handoff.settings
    notes: list[str] = []
    try:
        agent = (build_reviewer(config, settings, handoff.repo, handoff.diff, session_dir,
                                notes) if settings.model else None)
    except SecreviewError as exc:
        raise pytest.UsageError(f"secreview: {exc}") from None
    from .diff.kinds import default_exclusions
    from .triage.links import read_links

    links = read_links(handoff.repo, handoff.diff.head_sha, handoff.diff.files)
    excluded = default_exclusions(handoff.diff.files)
    return ReviewState(
        config=config, settings=settings, repo=handoff.repo, base_ref=handoff.base_ref,
        diff=handoff.diff, prepared=PreparedDiff(handoff.diff.files, links.aliases, excluded),
        links=links,
        rule_files=RuleFiles(list(handoff.rule_files.sources),
                             [*handoff.rule_files.notes, *notes]),
        agent=agent, warnings=list(handoff.warnings), selection=dict(handoff.selection),
        session_dir=session_dir, quiet=Quiet(handoff.repo, handoff.diff, handoff.baseline),
        authority=handoff.authority,
    )


def _cache_dir(config: pytest.Config, settings: Settings, repo: Path, head_sha: str,
               notes: list[str]) -> Path | None:
    if settings.no_cache:
        return None
    if settings.cache_dir is not None:
        directory = config.invocation_params.dir / settings.cache_dir
    else:
        cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
        if cache is None:
            return None
        directory = Path(cache.mkdir("secreview"))
    if tracked_under(repo, head_sha, directory):
        # Entries committed by the pull request could be forged "no findings" reviews.
        notes.append(f"evaluation cache {directory} holds files committed in this pull "
                     "request's head; the cache was not used")
        return None
    return directory


def build_reviewer(
    config: pytest.Config, settings: Settings, repo: Path, diff: Diff, session_dir: Path,
    notes: list[str],
) -> AgentReview:
    """The model review for this process: a team's ``pytest_secreview_make_model`` hook, or
    the built-in routes behind the session's shared throttle. Nothing is sent and no
    credential is loaded here."""
    from .llm.base import LLMSettings
    from .llm.http import RetryPolicy
    from .llm.pricing import lookup_price
    from .llm.routing import resolve_model
    from .ratelimit import Throttle

    llm = LLMSettings(
        model=settings.model,
        fallback_model=settings.fallback_model,
        api_base=settings.api_base,
        project=settings.project,
        location=settings.location,
        timeout=settings.timeout,
        max_output_tokens=settings.max_output_tokens,
        temperature=settings.temperature,
        prices=dict(settings.prices),
    )

    throttle = Throttle(session_dir, max_concurrency=settings.max_concurrency, rpm=settings.rpm)
    retry = RetryPolicy(max_attempts=llm.max_attempts, throttle=throttle)

    def make(name: str) -> ChatModel:
        custom = config.hook.pytest_secreview_make_model(config=config, model=name)
        model: ChatModel = custom if custom is not None else resolve_model(
            name, llm, os.environ, retry=retry)
        # A budget that cannot price a model's calls would never be spent: refuse it.
        if settings.max_cost is not None and lookup_price(model.model_id, llm.prices) is None:
            short = model.model_id.split(":")[-1].split("/")[-1]
            raise ConfigError(
                f"--secreview-max-cost needs a price for {model.model_id}, and none is known; "
                f"add one with --secreview-prices '{short} input=N output=N' (USD per million "
                "tokens)"
            )
        return model

    from .agent.guidance import load_guidance
    from .evaluation.consensus import consensus_review

    cache_dir = _cache_dir(config, settings, repo, diff.head_sha, notes)
    # The team's instructions and precedents, from the base revision like the rules.
    guidance = load_guidance(repo, diff.base_sha, config.invocation_params.dir,
                             settings.instructions, settings.rules_from, notes)
    # One reviewer per model, each with its own cache entries (keyed by its model id).
    return consensus_review([_reviewer(settings, repo, diff, session_dir, cache_dir, make, name,
                                       guidance)
                             for name in settings.models], settings.consensus)


def _reviewer(settings: Settings, repo: Path, diff: Diff, session_dir: Path,
              cache_dir: Path | None, make: Callable[[str], ChatModel],
              name: str, guidance: Guidance) -> ModelReviewer:
    from .budget import Budget
    from .cache import EvaluationCache
    from .evaluation.review import ModelReviewer
    from .github.context import pull_request_from_env

    return ModelReviewer(
        repo=repo,
        diff=diff,
        model=make(name),
        fallback=make(settings.fallback_model) if settings.fallback_model else None,
        pull_request=pull_request_from_env(os.environ, number=settings.pr,
                                           repository=settings.repo),
        max_turns=settings.max_turns,
        max_output_tokens=settings.max_output_tokens,
        max_tool_calls=settings.max_tool_calls,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        prices=dict(settings.prices),
        cache=EvaluationCache(cache_dir) if cache_dir is not None else None,
        budget=Budget(session_dir, settings.max_cost) if settings.max_cost is not None else None,
        session_dir=session_dir,
        make_model=make,
        guidance=guidance,
        verify=settings.verify is not False,  # default on when a model is set
        verify_at=settings.fail_on,
        max_context_chars=settings.max_context_chars,
    )
