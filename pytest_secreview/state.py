"""The review's per-process state, kept in ``config.stash``: settings, the repository, the
diff (computed once per process), the rule files and per-item metadata.

:func:`review_state` is the one way to reach it from a node (items, the session's hooks);
``startup.py`` builds it, ``handoff.py`` carries the controller's start-up to the workers,
``reviewer.py`` builds its model review."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .core.decide import Policy, decide
from .core.findings import Finding
from .core.record import ItemRecord, Origin
from .diff.model import Diff, FileDiff
from .errors import RuleError
from .evaluation.evaluate import KEEP_ALL, Evaluation, FindingFilter, Reviewer, evaluate
from .evaluation.record import item_record
from .options import Settings
from .rules.loader import RuleFiles, RuleSource
from .rules.matcher import PreparedDiff, Target
from .rules.model import Rule
from .rules.parse import parse_rules

if TYPE_CHECKING:  # each layer loads when the review first needs it
    from .agent.guidance import Guidance
    from .analysis.session import TaintSession
    from .audit.evidence import RiskEvidence
    from .fix.run import Fixer
    from .scanners.session import ScannerSession
    from .suppression.apply import Quiet
    from .suppression.authority import Authority
    from .triage.coverage import LeftOut
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
    #: The base revision's ``.secreviewignore`` (read from the pinned base commit by the
    #: controller; xdist workers take it from the hand-off, so every process agrees).
    ignore: IgnoreFile
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)
    agent: Reviewer | None = None
    #: The team's instructions and precedents the model review reads (None without a model).
    guidance: Guidance | None = None
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
                      on_error=self.settings.on_error, intent_gate=self.settings.intent_gate)

    @property
    def author_writes(self) -> bool:
        """True when the pull request's author has write access (its suppressions count)."""
        return self.authority is not None and self.authority.writes

    @cached_property
    def scanners(self) -> ScannerSession:
        """The external scanners of ``scanner:`` rules, run once per session."""
        from .scanners.builtin import DependencySettings
        from .scanners.session import ScannerSession

        return ScannerSession(
            repo=self.repo, head_sha=self.diff.head_sha,
            # Semgrep configs in the repository are trusted like its rules (--secreview-rules-from).
            base_sha=self.diff.base_sha if self.settings.rules_from == "base" else None,
            targets=lambda rule: [part.file.path for target in self.triage.targets(
                rule, self.prepared) for part in target.parts],
            shared_dir=self.session_dir, semgrep_configs=self.settings.semgrep_config,
            change_base=self.diff.base_sha,
            dependencies=DependencySettings(self.settings.advisories, self.settings.osv_url),
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
        from .triage.plan import plan_triage
        from .triage.store import load_model_triage

        added, record = load_model_triage(self.session_dir)
        idle = frozenset(name for name, configured in (
            ("semgrep", self.settings.semgrep_config),
            ("osv", self.settings.advisories or self.settings.osv_url)) if not configured)
        # Every rule in one scan of the diff (collection did it, except on the xdist
        # controller, which collects nothing and reaches the plan when it writes the report).
        self.prepared.ensure_indexed(self.rules)
        return plan_triage(self.diff, self.prepared, self.rules, added, record, idle,
                           self.ignore)

    @property
    def left_out(self) -> tuple[LeftOut, ...]:
        """What the general review left out of the model's view in this run (documentation,
        lock files, hunks over its budget...): nothing when it makes no item. Without a model
        nothing is in front of one, the review-kind line says so once, and a budget line for
        a rule that did not run would name a gap no setting of it can close."""
        return () if self.deterministic_review else self.triage.left_out()

    @cached_property
    def gaps(self) -> list[Gap]:
        """What no item reviews: each an unreviewed item, and a line of the report."""
        from .triage.gaps import review_gaps

        return review_gaps(self.repo, self.diff, self.left_out, self.links)

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

    @cached_property
    def intent_evidence(self) -> RiskEvidence | None:
        """Without a model: the intent audit's deterministic risk evidence, computed once (on
        the controller, when the outputs first ask) and reported apart from every item, with
        no verdict (no model judged the intent; it passes and fails nothing). None with a
        model (the intent item carries its evidence with its verdict), when no
        pull-request-scoped rule is loaded, or when the change has no file: when an intent
        item would not have been made (:func:`~.collection.intent_items`)."""
        if not self.deterministic_review or not self.diff.files:
            return None
        if not any(rule.scope == "pull_request" for rule in self.rules):
            return None
        from .audit.evidence import collect_evidence

        return collect_evidence(self.diff)

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

    @cached_property
    def pr_code_ran(self) -> bool:
        """True when pytest's start-up imported, read or loaded something this pull request
        changes (a ``conftest.py``, its configuration file, a plugin entry point: the
        summary's first lines name it), so the job's hooks may be the pull request's."""
        import os

        from . import steering

        return any(e.ran for e in steering.exposure(
            steering.touched(self.diff), steering.hardening_of(self.config, self.repo,
                                                               os.environ)))

    def finding_filter(self, item: pytest.Item) -> FindingFilter:
        """The job's ``pytest_secreview_filter_finding`` hook (given ``item``) as a judge:
        trusted as the job's own (origin ``conftest``) unless code of the pull request ran in
        pytest's start-up (:attr:`pr_code_ran`; origin ``pr-files``)."""
        hook = self.config.hook.pytest_secreview_filter_finding
        if not hook.get_hookimpls():
            return KEEP_ALL

        def keeps(finding: Finding) -> bool:
            return hook(finding=finding, item=item) is not False

        if self.pr_code_ran:
            return FindingFilter(keeps, Origin.PR_FILES, (
                "dropped by the pytest_secreview_filter_finding hook in a job where pytest "
                "ran code this pull request changes (named at the top of the summary)"))
        return FindingFilter(keeps)

    def evaluate(self, item: pytest.Item, target: Target) -> Evaluation:
        """Evaluate ``item``'s ``target``, judged by the job's
        ``pytest_secreview_filter_finding`` hook (:meth:`finding_filter`)."""
        keep = self.finding_filter(item)
        if self.agent is not None:
            from .evaluation.review import share_rules

            share_rules(self.agent.reviewers, self.rules)  # what other rules found, per prompt
        files = [part.file for part in target.parts]
        evaluation = evaluate(target, self.agent, keep, scanners=self.scanners,
                              taint=self.taint, deterministic_review=self.deterministic_review)
        if self.quiet is not None:
            # Found after evaluation, from the code and the baseline: never by a model.
            quieted = self.quiet.apply(evaluation.findings, target.rule.id, files,
                                       writer=self.author_writes)
            evaluation = replace(evaluation, findings=quieted.findings,
                                 changes=(*evaluation.changes, *quieted.changes))
        if self.settings.mode == "fix" and self.agent is not None and evaluation.error is None:
            # Patches for the findings that fail the item, as decide says.
            failing = decide(self.record(item.nodeid, target, evaluation), self.policy).failing
            evaluation = self.fixer.fix(target, evaluation, failing)
        return evaluation

    def record(self, nodeid: str, target: Target, evaluation: Evaluation) -> ItemRecord:
        """The record of the item ``nodeid`` that evaluated ``target``
        (:func:`~.evaluation.record.item_record`, under the session's settings)."""
        parts = target.parts
        return item_record(
            nodeid, evaluation, rule=target.rule.id, category=target.rule.category,
            path=target.file.path,
            # A batch of the general review: every file it holds.
            paths=tuple(dict.fromkeys(p.file.path for p in parts)) if len(parts) > 1 else (),
            min_confidence=self.settings.min_confidence)

    @cached_property
    def fixer(self) -> Fixer:
        """Fix mode's patches for confirmed findings (built on first use, once per process)."""
        from .fix.run import Fixer

        return Fixer(agent=self.agent, repo=self.repo, diff=self.diff, rules=self.rules,
                     threshold=self.settings.fail_on,
                     semgrep_configs=self.settings.semgrep_config)


REVIEW_KEY = pytest.StashKey[ReviewState]()


def review_state(config: pytest.Config) -> ReviewState:
    """The review of this process (set when the session starts; items and the session's
    hooks read it here, never through the stash key)."""
    return config.stash[REVIEW_KEY]
