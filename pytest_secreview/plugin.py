"""pytest entry point ``secreview``: declares the hooks and options, and registers the
review's session object (:class:`~.session.ReviewSession`, whose methods are the hooks) only
when the review is on, as pytest-xdist registers its ``DSession`` only under ``-n``.

Inert without ``--secreview``: no collection, no git, and nothing heavy imported (the session
module loads only when the review is on).
"""

from __future__ import annotations

import pytest

from . import hookspecs
from .options import add_options, load_settings

MARKER = "secreview: a security rule applied to a changed file"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(trylast=True)  # after pytest's own plugins (the marks) are configured
def pytest_configure(config: pytest.Config) -> None:
    settings = load_settings(config)
    if settings.enabled:
        # Before the items' module is imported: it marks them with this marker.
        config.addinivalue_line("markers", MARKER)
        # The review's layers load here, not when pytest loads the plugin.
        from .session import register_session

        register_session(config, settings)
