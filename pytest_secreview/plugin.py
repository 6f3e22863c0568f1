"""pytest entry point ``secreview``: wires pytest hooks to the modules that do the work.

Inert without ``--secreview``: no collection, no git, and nothing heavy imported at load
time (the modules below are imported inside the hooks only when the review is enabled).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import hookspecs
from .options import add_options, load_settings
from .phases.names import PHASES_PLUGIN
from .severity import one_line

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from .reporting.summary import Summary  # noqa: F401 - used in a string annotation

_SETTINGS = pytest.StashKey[Any]()
_SUMMARY = pytest.StashKey["Summary"]()
_OUTPUT_LINES = pytest.StashKey[list[str]]()
_SESSION_DIR = pytest.StashKey[Path]()
_PREFETCH = pytest.StashKey[Any]()
_COLLECTED = pytest.StashKey[int]()
_MODE = pytest.StashKey[str]()


def _mention(config: pytest.Config) -> bool:
    return config.stash.get(_MODE, "") == "mention"


def _enabled(config: pytest.Config) -> bool:
    settings = config.stash.get(_SETTINGS, None)
    return bool(settings and settings.enabled)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    settings = load_settings(config)
    config.stash[_SETTINGS] = settings
    if settings.enabled and (config.option.setuponly or config.option.setupplan):
        # Items are evaluated in setup and judged in call: without the call, nothing is judged.
        raise pytest.UsageError("--secreview cannot run with --setup-only or --setup-plan: "
                                "items are judged in their call phase")
    if settings.enabled and not hasattr(config, "workerinput"):
        from .reporting.output_paths import refuse_linked_outputs

        # The checkout is the pull request's: no output may go through a link it committed.
        refuse_linked_outputs(config, settings)
    if settings.enabled:
        from .heap import release_earlier_run
        from .reporting.summary import Summary

        release_earlier_run()

        config.addinivalue_line("markers", "secreview: a security rule applied to a changed file")
        summary = Summary()
        config.stash[_SUMMARY] = summary
        # The summary folds every item report it sees: all of them in a plain run, and on
        # the xdist controller the ones each worker ships.
        config.pluginmanager.register(summary, "secreview-summary")
        from .shared import HANDOFF_KEY, WORKERINPUT_KEY, create_session_dir

        workerinput = getattr(config, "workerinput", None)
        if not workerinput:  # the controller writes the artifacts, each as its item ends
            from .reporting.spill import ItemSpill

            summary.spill = ItemSpill(config.invocation_params.dir / settings.artifacts)
        config.stash[_SESSION_DIR] = (
            Path(workerinput[WORKERINPUT_KEY]) if workerinput else create_session_dir()
        )
        if not workerinput and os.environ.get("GITHUB_ACTIONS") == "true":
            from .reporting.actions import ACTIONS_LOG_PLUGIN, ActionsLog

            # Workflow commands are off while pytest prints text from the PR and models.
            config.pluginmanager.register(ActionsLog(config), ACTIONS_LOG_PLUGIN)
        if workerinput and HANDOFF_KEY in workerinput:
            return  # an xdist worker: the controller's diff is handed over (state.Handoff)
        from .diff.prefetch import DiffPrefetch

        phases = None
        if settings.stop_after or settings.from_phase:  # one phase at a time (see phases/)
            from .phases.run import register_phases

            phases = register_phases(config, settings)
        # git works on the diff while pytest and the plugin finish starting.
        config.stash[_PREFETCH] = phases.prefetch(settings) if phases else DiffPrefetch(
            config.invocation_params.dir, settings.base, settings.head, os.environ
        )


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    # xdist controller: every worker shares the session directory (budget, rate limits) and
    # takes the controller's start-up (diff, settings, rule files) instead of redoing it.
    if _enabled(node.config):
        from .shared import HANDOFF_KEY, WORKERINPUT_KEY
        from .state import REVIEW_KEY, Handoff

        session_dir = node.config.stash[_SESSION_DIR]
        node.workerinput[WORKERINPUT_KEY] = str(session_dir)
        review = node.config.stash.get(REVIEW_KEY, None)
        if review is not None:
            node.workerinput[HANDOFF_KEY] = str(Handoff.of(review).write(session_dir))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _enabled(config):
        from .activity import uninstall

        uninstall()  # this process's tool calls are no longer recorded
    if _enabled(config) and not hasattr(config, "workerinput"):
        from .shared import remove_session_dir

        session_dir = config.stash.get(_SESSION_DIR, None)
        if session_dir is not None:
            remove_session_dir(session_dir)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if _enabled(config):
        from .shared import HANDOFF_KEY
        from .state import REVIEW_KEY, Handoff, start_review

        handed = getattr(config, "workerinput", {}).get(HANDOFF_KEY)
        review = start_review(config, config.stash[_SETTINGS], config.stash[_SESSION_DIR],
                              config.stash.get(_PREFETCH, None),
                              Handoff.read(Path(handed)) if handed else None)
        config.stash[REVIEW_KEY] = review
        config.stash[_SETTINGS] = review.settings  # with the base revision's ini values
        from _pytest.junitxml import xml_key

        xml = config.stash.get(xml_key, None)
        if xml is not None:  # --junitxml, on the process that writes it
            from .reporting.junit import JUnitNames

            config.pluginmanager.register(JUnitNames(xml), "secreview-junit")
        from .modes import resolve_mode

        # From the trusted settings: the pull request's own ini cannot choose the mode.
        config.stash[_MODE] = resolve_mode(review.settings.mode, review.settings.mention_handle,
                                           os.environ)
        from .heap import freeze_long_lived

        freeze_long_lived()  # the diff and the rules: they live as long as the session
        controller = not hasattr(config, "workerinput")
        if _mention(config):
            if controller:
                from .mention.session import PLUGIN_NAME, MentionSession

                artifacts = config.invocation_params.dir / review.settings.artifacts
                config.pluginmanager.register(MentionSession(artifacts), PLUGIN_NAME)
            return  # a question is answered: no triage, no progress comment
        phases = config.pluginmanager.get_plugin(PHASES_PLUGIN)
        if (review.settings.triage == "model" and controller and not config.option.collectonly
                and (phases is None or phases.runs_model_triage)):
            review.run_model_triage()  # before any worker collects: they read its result
        evaluates = phases is None or phases.runs("evaluate")
        if review.settings.progress and not config.option.collectonly and evaluates:
            from . import activity

            # Every process records its tool calls; the controller's comment counts them.
            activity_dir = config.stash[_SESSION_DIR] / "activity"
            activity.install(activity_dir)
        if (review.settings.progress and controller and not config.option.collectonly
                and evaluates):
            from .github.live import ProgressPlugin
            from .github.progress import ProgressComment
            from .reporting.outputs import github_client, pull_request

            pr = pull_request(review, os.environ)
            client = github_client(review.settings, config.invocation_params.dir, pr)
            if client is not None:
                comment = ProgressComment(client, pr, total=0,
                                          min_interval=review.settings.progress_interval)
                config.pluginmanager.register(ProgressPlugin(comment, activity_dir),
                                              "secreview-progress")


def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    # Without explicit paths, `pytest --secreview` reviews only: it does not collect (and so
    # does not import) the pull request's own test files.
    if _enabled(config) and config.args_source != pytest.Config.ArgsSource.ARGS:
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    # tryfirst: our items must exist before -k/-m deselection runs.
    if _enabled(config):
        from .collection import RuleFile, announce_collected, intent_items
        from .items.unreviewed_file import UnreviewedItem
        from .state import REVIEW_KEY

        review = config.stash[REVIEW_KEY]
        if _mention(config):
            from .collection import mention_item

            items.append(announce_collected(session, [mention_item(session)])[0])  # the only
            return
        review.prepared.index(review.rules)
        for source, parsed in review.parsed_rules:
            items.extend(session.genitems(RuleFile.for_rule(session, source, parsed)))
        made: list[pytest.Item] = []  # items of the session itself, not of a rule file
        if not review.deterministic_review:  # the intent audit needs a model's verdict
            made.extend(intent_items(session, review))  # one per change
        for gap in review.gaps:  # too large, binary, submodules, over the budget
            name = f"unreviewed[{one_line(gap.file.path)}]"
            made.append(UnreviewedItem.from_parent(
                session, name=name, nodeid=f"secreview::{name}", file=gap.file,
                reason=gap.reason, scan=gap.scan,
            ))
        items.extend(announce_collected(session, made))


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items and _enabled(items[0].config):
        from .state import REVIEW_KEY
        from .steering import count_review_items

        review = items[0].config.stash.get(REVIEW_KEY, None)
        if review is not None:
            review.deselected += count_review_items(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    # After -k/-m deselection: what --collect-only says was collected.
    if _enabled(session.config):
        session.config.stash[_COLLECTED] = sum(
            1 for item in session.items if item.get_closest_marker("secreview") is not None)
        from .heap import freeze_long_lived

        freeze_long_lived()  # the items
        _start_scanners(session)


def _start_scanners(session: pytest.Session) -> None:
    """Start the scanners of the items this process will run, so they scan while the other
    items run (:meth:`~.scanners.session.ScannerSession.start`)."""
    config = session.config
    phases = config.pluginmanager.get_plugin(PHASES_PLUGIN)
    if config.option.collectonly or not (phases is None or phases.runs("evaluate")):
        return
    from .items.rule import RuleItem
    from .state import REVIEW_KEY

    rules = [item.target.rule for item in session.items
             if isinstance(item, RuleItem) and item.target.rule.scanner is not None]
    if rules:
        config.stash[REVIEW_KEY].scanners.start(rules)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # An empty diff, or one no rule applies to, is "nothing to review": success, not 5. A run
    # whose selection options (-k, -m...) removed review items is not: it keeps pytest's 5.
    config = session.config
    if not _enabled(config):
        return
    from .state import REVIEW_KEY

    review = config.stash.get(REVIEW_KEY, None)
    if review is not None and "scanners" in vars(review):  # started by _start_scanners
        review.scanners.wait()
    selected_away = review is not None and bool(review.deselected or review.selection)
    if (exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and session.testscollected == 0
            and not selected_away):
        session.exitstatus = pytest.ExitCode.OK
    # Only the controller writes files and posts comments; --collect-only reviews nothing.
    if not hasattr(config, "workerinput") and not config.option.collectonly:
        from .reporting.outputs import deliver

        phases = config.pluginmanager.get_plugin(PHASES_PLUGIN)
        mention = config.pluginmanager.get_plugin("secreview-mention")
        if mention is not None:
            mention.finish()  # mention.json only: no review report, no summary comment
        elif review is not None and phases is not None:
            config.stash[_OUTPUT_LINES] = phases.deliver(session, review, config.stash[_SUMMARY])
        elif review is not None:
            _report, lines = deliver(review, config.stash[_SUMMARY])
            config.stash[_OUTPUT_LINES] = lines


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if _enabled(item.config):
        from .items.base import ReviewItem

        if isinstance(item, ReviewItem):  # its failure text, record and task artifact
            item.finish_report(report, call)
    return report


def pytest_terminal_summary(terminalreporter: TerminalReporter, config: pytest.Config) -> None:
    if _enabled(config):
        from .reporting.terminal import write_summary
        from .state import REVIEW_KEY

        review = config.stash.get(REVIEW_KEY, None)
        mention = config.pluginmanager.get_plugin("secreview-mention")
        if mention is not None:
            mention.write_summary(terminalreporter)
        elif review is not None:
            write_summary(terminalreporter, review, config.stash[_SUMMARY],
                          config.stash.get(_OUTPUT_LINES, []), config.stash.get(_COLLECTED, 0))


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if _enabled(item.config) and call.when == "setup":
        from .state import REVIEW_KEY

        data = item.config.stash[REVIEW_KEY].metadata.get(item.nodeid)
        if data is not None:
            return {"secreview": data}
    return None
