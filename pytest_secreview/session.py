"""The review session's pytest hooks: one object, registered by ``plugin.py`` only when the
review is on (``--secreview``, its ini key or ``SECREVIEW``), as pytest-xdist registers its
``DSession`` only under ``-n``. Every method below runs for a review; none asks whether the
review is enabled.

Each hook hands the work to the module that does it: start-up (``startup.py``), collection
(``collection.py``, the items in ``items/``), the phases (``phases/``), the outputs
(``reporting/``)."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.junitxml import xml_key

from . import activity
from .collection import RuleFile, announce_collected, intent_items, mention_item
from .diff.prefetch import DiffPrefetch
from .handoff import Handoff
from .heap import freeze_long_lived, release_earlier_run
from .items.base import ReviewItem
from .items.rule import RuleItem
from .items.unreviewed_file import UnreviewedItem
from .modes import resolve_mode
from .options import Settings
from .reporting.output_paths import refuse_linked_outputs
from .reporting.spill import ItemSpill
from .reporting.summary import Summary
from .reporting.terminal import write_summary
from .shared import HANDOFF_KEY, WORKERINPUT_KEY, create_session_dir, remove_session_dir
from .startup import start_review
from .state import REVIEW_KEY, ReviewState, review_state
from .steering import count_review_items

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from .phases.inputs import StoredDiff
    from .phases.run import PhasePlugin

#: The name the session object is registered under.
SESSION_PLUGIN = "secreview-session"


def register_session(config: pytest.Config, settings: Settings) -> ReviewSession:
    """Start the review's session in this process (controller, worker or a plain run) and
    register its hooks. Raises ``pytest.UsageError`` when the review cannot run as asked."""
    if config.option.setuponly or config.option.setupplan:
        # Items are evaluated in setup and judged in call: without the call, nothing is judged.
        raise pytest.UsageError("--secreview cannot run with --setup-only or --setup-plan: "
                                "items are judged in their call phase")
    session = ReviewSession(config, settings)
    config.pluginmanager.register(session, SESSION_PLUGIN)
    session.configure()
    return session


class ReviewSession:
    """The review's hooks in one process, and what they share: the settings (the trusted
    ones once the session starts), the summary, the session directory, the background diff
    (controller only) and, once the session starts, the review state."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
        self.workerinput = workerinput or {}
        self.controller = workerinput is None
        self.summary = Summary()
        self.session_dir = (Path(workerinput[WORKERINPUT_KEY]) if workerinput
                            else create_session_dir())
        self.prefetch: DiffPrefetch | StoredDiff | None = None
        self.phases: PhasePlugin | None = None
        self.review: ReviewState | None = None
        self.mention = False
        self.collected = 0  # review items selected, for --collect-only's line
        self.output_lines: list[str] = []

    def configure(self) -> None:
        """What the review needs before the session starts (pytest's ``configure``)."""
        config, settings = self.config, self.settings
        if self.controller:
            # The checkout is the pull request's: no output may go through a link it committed.
            refuse_linked_outputs(config, settings)
        release_earlier_run()
        # The summary folds every item report it sees: all of them in a plain run, and on
        # the xdist controller the ones each worker ships.
        config.pluginmanager.register(self.summary, "secreview-summary")
        if self.controller:  # the controller writes the artifacts, each as its item ends
            self.summary.spill = ItemSpill(config.invocation_params.dir / settings.artifacts)
        if self.controller and os.environ.get("GITHUB_ACTIONS") == "true":
            from .reporting.actions import ACTIONS_LOG_PLUGIN, ActionsLog  # the GitHub client

            # Workflow commands are off while pytest prints text from the PR and models.
            config.pluginmanager.register(ActionsLog(config), ACTIONS_LOG_PLUGIN)
        if HANDOFF_KEY in self.workerinput:
            return  # an xdist worker: the controller's diff is handed over (handoff.Handoff)
        if settings.stop_after or settings.from_phase:  # one phase at a time (see phases/)
            from .phases.run import register_phases  # its outputs: the report's layers

            self.phases = register_phases(config, settings)
        # git works on the diff while pytest and the plugin finish starting.
        self.prefetch = self.phases.prefetch(settings) if self.phases else DiffPrefetch(
            config.invocation_params.dir, settings.base, settings.head, os.environ
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        # xdist controller: every worker shares the session directory (budget, rate limits)
        # and takes the controller's start-up (diff, settings, rule files) instead of redoing
        # it.
        node.workerinput[WORKERINPUT_KEY] = str(self.session_dir)
        if self.review is not None:
            node.workerinput[HANDOFF_KEY] = str(Handoff.of(self.review).write(self.session_dir))

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        activity.uninstall()  # this process's tool calls are no longer recorded
        if self.controller:
            remove_session_dir(self.session_dir)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = session.config
        handed = self.workerinput.get(HANDOFF_KEY)
        review = start_review(config, self.settings, self.session_dir, self.prefetch,
                              Handoff.read(Path(handed)) if handed else None)
        self.review = review
        config.stash[REVIEW_KEY] = review
        self.settings = review.settings  # with the base revision's ini values
        xml = config.stash.get(xml_key, None)
        if xml is not None:  # --junitxml, on the process that writes it
            from .reporting.junit import JUnitNames

            config.pluginmanager.register(JUnitNames(xml), "secreview-junit")
        # From the trusted settings: the pull request's own ini cannot choose the mode.
        self.mention = resolve_mode(review.settings.mode, review.settings.mention_handle,
                                    os.environ) == "mention"
        freeze_long_lived()  # the diff and the rules: they live as long as the session
        self._start_mode(config, review)
        if self.phases is not None:
            self.phases.start(review)  # the stored inputs of a run that starts later

    def _start_mode(self, config: pytest.Config, review: ReviewState) -> None:
        """A mention's session, or the review's model triage and progress comment."""
        if self.mention:
            if self.controller:
                from .mention.session import PLUGIN_NAME, MentionSession

                artifacts = config.invocation_params.dir / review.settings.artifacts
                config.pluginmanager.register(MentionSession(artifacts), PLUGIN_NAME)
            return  # a question is answered: no triage, no progress comment
        phases = self.phases
        collecting_only = config.option.collectonly
        if (review.settings.triage == "model" and self.controller and not collecting_only
                and (phases is None or phases.runs_model_triage)):
            review.run_model_triage()  # before any worker collects: they read its result
        evaluates = phases is None or phases.runs("evaluate")
        if not review.settings.progress or collecting_only or not evaluates:
            return
        # Every process records its tool calls; the controller's comment counts them.
        activity_dir = self.session_dir / "activity"
        activity.install(activity_dir)
        if self.controller:
            from .publish.live import ProgressPlugin
            from .publish.outputs import github_client, pull_request
            from .publish.progress import ProgressComment

            pr = pull_request(review, os.environ)
            client = github_client(review.settings, config.invocation_params.dir, pr)
            if client is not None:
                comment = ProgressComment(client, pr, total=0,
                                          min_interval=review.settings.progress_interval)
                config.pluginmanager.register(ProgressPlugin(comment, activity_dir),
                                              "secreview-progress")

    def pytest_ignore_collect(self, collection_path: Any, config: pytest.Config) -> bool | None:
        # Without explicit paths, `pytest --secreview` reviews only: it does not collect (and
        # so does not import) the pull request's own test files.
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            return True
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        # tryfirst: our items must exist before -k/-m deselection runs.
        review = review_state(config)
        if self.mention:
            items.append(announce_collected(session, [mention_item(session)])[0])  # the only
            return
        review.prepared.index(review.rules)
        for source, parsed in review.parsed_rules:
            items.extend(session.genitems(RuleFile.for_rule(session, source, parsed)))
        made: list[pytest.Item] = []  # items of the session itself, not of a rule file
        if not review.deterministic_review:  # the intent audit needs a model's verdict
            made.extend(intent_items(session, review))  # one per change
        from .triage.gaps import gap_name

        for gap in review.gaps:  # too large, binary, submodules, over the budget
            made.append(UnreviewedItem.from_parent(
                session, name=gap_name(gap.file.path), nodeid=gap.nodeid, file=gap.file,
                reason=gap.reason, scan=gap.scan, not_code=gap.not_code,
            ))
        items.extend(announce_collected(session, made))

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if items and self.review is not None:
            self.review.deselected += count_review_items(items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After -k/-m deselection: what --collect-only says was collected.
        self.collected = sum(
            1 for item in session.items if item.get_closest_marker("secreview") is not None)
        freeze_long_lived()  # the items
        self._start_scanners(session)

    def _start_scanners(self, session: pytest.Session) -> None:
        """Start the scanners of the items this process will run, so they scan while the
        other items run (:meth:`~.scanners.session.ScannerSession.start`)."""
        phases = self.phases
        if session.config.option.collectonly or not (phases is None or phases.runs("evaluate")):
            return
        rules = [item.target.rule for item in session.items
                 if isinstance(item, RuleItem) and item.target.rule.scanner is not None]
        if rules:
            review_state(session.config).scanners.start(rules)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # An empty diff, or one no rule applies to, is "nothing to review": success, not 5. A
        # run whose selection options (-k, -m...) removed review items is not: it keeps
        # pytest's 5.
        config = session.config
        review = self.review
        if review is not None and "scanners" in vars(review):  # started by _start_scanners
            review.scanners.wait()
        selected_away = review is not None and bool(review.deselected or review.selection)
        if (exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and session.testscollected == 0
                and not selected_away):
            session.exitstatus = pytest.ExitCode.OK
        # Only the controller writes files and posts comments; --collect-only reviews nothing.
        if not self.controller or config.option.collectonly:
            return
        mention = config.pluginmanager.get_plugin("secreview-mention")
        if mention is not None:
            mention.finish()  # mention.json only: no review report, no summary comment
        elif review is not None and self.phases is not None:
            self.output_lines = self.phases.deliver(session, review, self.summary)
        elif review is not None:
            from .publish.outputs import deliver

            _report, self.output_lines = deliver(review, self.summary)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if isinstance(item, ReviewItem):  # its failure text, skip location, record, artifact
            item.finish_report(report, call)
        return report

    def pytest_terminal_summary(self, terminalreporter: TerminalReporter,
                                config: pytest.Config) -> None:
        if not self.controller:
            return  # an xdist worker's terminal is nobody's: the controller's summary counts
        mention = config.pluginmanager.get_plugin("secreview-mention")
        if mention is not None:
            mention.write_summary(terminalreporter)
        elif self.review is not None:
            write_summary(terminalreporter, self.review, self.summary, self.output_lines,
                          self.collected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_runtest_metadata(self, item: pytest.Item,
                                     call: pytest.CallInfo[None]) -> Any:
        if call.when == "setup":
            data = review_state(item.config).metadata.get(item.nodeid)
            if data is not None:
                return {"secreview": data}
        return None
