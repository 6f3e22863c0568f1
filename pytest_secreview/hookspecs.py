"""Hooks a team can implement in a ``conftest.py`` (see ``conftest_example.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .core.findings import Finding
    from .llm.base import ChatModel


@pytest.hookspec(firstresult=True)
def pytest_secreview_make_model(config: pytest.Config, model: str) -> ChatModel | None:
    """Return a :class:`~pytest_secreview.llm.base.ChatModel` for the model string ``model``
    (from ``--secreview-model`` or ``--secreview-fallback-model``), or None to use the
    built-in routes. Lets a team plug in a provider or gateway of its own."""


@pytest.hookspec(firstresult=True)
def pytest_secreview_filter_finding(finding: Finding, item: pytest.Item) -> bool | None:
    """Return ``False`` to drop ``finding`` (an accepted risk, a known false positive).

    Called on the process that evaluates ``item`` for every finding, deterministic or from
    the model. Return ``None`` (or nothing) to keep it. A dropped finding is given no second
    look and stays in every report as suppressed ("filtered"), failing nothing; in a job
    where pytest ran code the pull request changes (a ``conftest.py``, its configuration),
    the drop is the pull request's and does not count at or above the fail threshold.
    """
