"""Every item of a review subclasses one base, :class:`~pytest_secreview.items.base.ReviewItem`,
and no class of the package overrides a private method of pytest's nodes (a private method can
change or vanish in any pytest release; the public ``repr_failure`` shapes the failure text)."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import DEBUG_RULE, ReviewRepo
from tests.fake_providers import FakeServer, FakeServers

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_secreview"
Build = Callable[..., ReviewRepo]

#: The private names of pytest's node classes: an override of any of them is what pytest
#: does not promise to keep calling.
PRIVATE_NODE_NAMES = frozenset(
    name for cls in (pytest.Item, pytest.Collector, pytest.File, pytest.Session)
    for name in dir(cls) if name.startswith("_") and not name.startswith("__")
)



def private_overrides(source: str, where: str) -> list[str]:
    """``where:line Class._name`` for each method of a class in ``source`` that has the name
    of a private member of pytest's nodes."""
    return [f"{where}:{item.lineno} {node.name}.{item.name}"
            for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            and item.name in PRIVATE_NODE_NAMES]


def test_the_scan_finds_an_override_of_a_private_node_method() -> None:
    source = textwrap.dedent("""\
        class Mine(pytest.Item):
            def _repr_failure_py(self, excinfo, style=None):
                return "text"

            def _own_helper(self):
                return 1
    """)
    assert "_repr_failure_py" in PRIVATE_NODE_NAMES
    assert private_overrides(source, "mine.py") == ["mine.py:2 Mine._repr_failure_py"]


def test_no_class_of_the_package_overrides_a_private_pytest_node_method() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py"))
             for hit in private_overrides(path.read_text(encoding="utf-8"),
                                          str(path.relative_to(PACKAGE.parent)))]
    assert found == []


@pytest.fixture
def model() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


class ItemKinds:
    """Records, in the review's own session, each collected item's class name and whether it
    is a ``ReviewItem`` (pytester's in-process run imports the package afresh)."""

    def __init__(self) -> None:
        self.kinds: list[tuple[str, bool]] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pytest_secreview.items.base import ReviewItem

        self.kinds = [(type(item).__name__, isinstance(item, ReviewItem))
                      for item in session.items]


def collected(pytester: pytest.Pytester, *args: str) -> list[tuple[str, bool]]:
    """What :class:`ItemKinds` saw of the items a ``--collect-only`` review made."""
    recorder = ItemKinds()
    pytester.inline_run("--secreview", "--base", "main", "-p", "no:cacheprovider",
                        "--collect-only", *args, plugins=[recorder])
    return recorder.kinds


def test_every_item_a_review_collects_is_a_review_item(
    pytester: pytest.Pytester, review_repo: Build, model: FakeServer
) -> None:
    review_repo(rules={"debug": DEBUG_RULE, "broken": "no frontmatter here\n"},
                pr={"app/settings.py": "debug = True\n", "blob.bin": "\x00\x01binary\n"})
    items = collected(pytester, "--secreview-model", "openai:gpt-4.1",
                      "--secreview-api-base", model.url)
    kinds = {kind for kind, _ in items}
    # One of each kind a review makes: a rule's item, a broken rule's, an unreviewed file's
    # (binary to git) and the intent audit's (the bundled pack's pull-request-scoped rule).
    assert {"RuleItem", "BrokenRuleItem", "UnreviewedItem", "IntentItem"} <= kinds
    assert [kind for kind, is_review_item in items if not is_review_item] == []


def test_the_mention_item_is_a_review_item(
    pytester: pytest.Pytester, review_repo: Build, model: FakeServer
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app/views.py": "x = 1\n"})
    items = collected(pytester, "--secreview-mode", "mention", "--secreview-model",
                      "openai:gpt-4.1", "--secreview-api-base", model.url)
    assert items == [("MentionItem", True)]


def test_a_setup_error_is_the_items_own_text_in_the_terminal_and_junit(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """pytest renders a setup error without ``repr_failure``: the base puts the item's text
    on the report, so the terminal, the short summary and JUnit say what broke, with no
    traceback through our code."""
    review_repo(rules={"debug": DEBUG_RULE, "broken": "no frontmatter here\n"},
                pr={"app/settings.py": "debug = True\n"})
    junit = pytester.path.parent / "junit.xml"
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "-rE", f"--junitxml={junit}")
    assert result.parseoutcomes()["errors"] == 1
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines([
        "*ERROR at setup of invalid rule: secreview/rules/broken.md*",
        "invalid rule, its checks did not run: *missing YAML frontmatter*",
        "Fix the rule file; the other rules ran",
    ])
    xml = junit.read_text(encoding="utf-8")
    assert 'message="setup error: invalid rule, its checks did not run: ' in xml


def test_a_skip_is_placed_at_the_item_not_at_the_code_that_raised_it(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"blob.bin": "\x00\x01binary\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] blob.bin:1: blob.bin not reviewed: binary file*"])
