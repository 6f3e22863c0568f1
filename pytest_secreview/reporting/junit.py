"""JUnit XML (``--junitxml``) that reads naturally in a JUnit viewer.

pytest names a test case's class after its node id's path: ``rules/sql-injection.md`` becomes
the class ``rules.sql-injection.md``, which viewers split at the last dot into a class named
``md``. A review item's class is its rule's id instead. pytest also takes a failure's
``message`` from the whole failure report when it is text (ours is: the findings); viewers show
that attribute as the one-line headline, so it becomes the report's first line, and the full
report stays in the element's body.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from _pytest.junitxml import LogXML

from ..errors import BROKEN_RULE_NAME
from ..severity import one_line


def classname(nodeid: str) -> str | None:
    """The class a review item's test case shows under: the rule id for a rule's item (the
    rule file's name for an invalid rule); None for items not named after a rule file."""
    path, sep, name = nodeid.partition("::")
    if not sep or not path.endswith(".md"):
        return None
    base = name.split("[", 1)[0]
    return PurePosixPath(path).stem if base == BROKEN_RULE_NAME else base


def _is_review_item(report: pytest.TestReport) -> bool:
    return any(key in ("secreview_path", "secreview_rule") for key, _ in report.user_properties)


class JUnitNames:
    """A plugin on the process that writes the JUnit file (the xdist controller)."""

    def __init__(self, xml: LogXML) -> None:
        self.xml = xml

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # After pytest's own junitxml hook; teardown closes the test case there, so a later
        # node_reporter() call would open a new, empty one.
        if report.when == "teardown" or not _is_review_item(report):
            return
        reporter = self.xml.node_reporter(report)
        name = classname(report.nodeid)
        if name is not None:
            reporter.add_attribute("classname", name)
        for node in reporter.nodes:
            if node.tag not in ("failure", "error"):
                continue
            body = (node.text or "").strip()
            headline = next((line for line in body.splitlines() if line.strip()), "")
            if headline and "\n" in node.get("message", ""):
                prefix = f"{report.when} error: " if node.tag == "error" else ""
                node.set("message", prefix + one_line(headline))
