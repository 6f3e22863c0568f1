"""pytest entry point ``secreview``: wires pytest hooks to the modules that do the work.

Inert without ``--secreview``: no collection, no git, and nothing heavy imported at load
time (the modules below are imported inside the hooks only when the review is enabled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from . import hookspecs
from .options import add_options, load_settings

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from .reporting.summary import Summary  # noqa: F401 - used in a string annotation

_SETTINGS = pytest.StashKey[Any]()
_SUMMARY = pytest.StashKey["Summary"]()


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
    if settings.enabled:
        from .reporting.summary import Summary

        config.addinivalue_line("markers", "secreview: a security rule applied to a changed file")
        summary = Summary()
        config.stash[_SUMMARY] = summary
        # The summary folds every item report it sees: all of them in a plain run, and on
        # the xdist controller the ones each worker ships.
        config.pluginmanager.register(summary, "secreview-summary")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if _enabled(session.config):
        from .state import REVIEW_KEY, start_review

        session.config.stash[REVIEW_KEY] = start_review(
            session.config, session.config.stash[_SETTINGS]
        )


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
        from .collection import RuleFile, UnreviewedItem
        from .state import REVIEW_KEY

        review = config.stash[REVIEW_KEY]
        for source in sorted(review.rule_files.sources, key=lambda s: s.display):
            items.extend(session.genitems(RuleFile.for_source(session, source)))
        for file in sorted(review.diff.files, key=lambda f: f.path):
            if file.too_large:
                name = f"unreviewed[{file.path}]"
                items.append(UnreviewedItem.from_parent(
                    session, name=name, nodeid=f"secreview::{name}", path=file.path,
                    reason="the file's diff is too large to review",
                ))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # An empty diff, or one no rule applies to, is "nothing to review": success, not 5.
    if (
        _enabled(session.config)
        and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
        and session.testscollected == 0
    ):
        session.exitstatus = pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter: TerminalReporter, config: pytest.Config) -> None:
    if _enabled(config):
        from .reporting.terminal import write_summary
        from .state import REVIEW_KEY

        review = config.stash.get(REVIEW_KEY, None)
        if review is not None:
            write_summary(terminalreporter, review, config.stash[_SUMMARY])


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if _enabled(item.config) and call.when == "setup":
        from .state import REVIEW_KEY

        data = item.config.stash[REVIEW_KEY].metadata.get(item.nodeid)
        if data is not None:
            return {"secreview": data}
    return None
