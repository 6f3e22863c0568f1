"""Making the review's items (:mod:`.items`): one ``RuleFile`` collector per rule file, whose
items are one ``RuleItem`` per (rule, changed file) or a ``BrokenRuleItem`` for a rule file
that is not a valid rule; one ``IntentItem`` per pull-request-scoped rule; the one
``MentionItem`` of a mention-mode session.

Node ids depend only on pinned inputs (rule paths and ids, sorted changed paths), so every
pytest-xdist worker collects the same items.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from .errors import BROKEN_RULE_NAME, RuleError
from .items.intent import IntentItem
from .items.rule import BrokenRuleItem, RuleItem
from .rules.loader import RuleSource
from .rules.model import Rule
from .severity import one_line
from .state import ReviewState, review_state

if TYPE_CHECKING:
    from .items.mention import MentionItem

#: An item type, kept through :func:`announce_collected`.
ItemT = TypeVar("ItemT", bound=pytest.Item)

#: The node id of the mention-mode session's only item.
MENTION_NODEID = "secreview::mention"


class RuleFile(pytest.Collector):
    """A rule file: its items, or one error item when the file is not a valid rule.

    A plain collector, not a ``pytest.File``: its path (the bundled pack's, or a rule read
    from the base revision) is not a file of the working tree, and pytest's ``--lf`` skips
    ``File`` nodes whose path it cannot match to a previous failure. Items are selected by
    node id instead, which ``--lf`` and ``--ff`` match exactly.
    """

    parsed: Rule | RuleError

    @classmethod
    def for_rule(cls, parent: pytest.Session, source: RuleSource,
                 parsed: Rule | RuleError) -> RuleFile:
        """A node whose id is the rule's display path, e.g. ``rules/sql-injection.md``."""
        node: RuleFile = cls.from_parent(parent, name=Path(source.display).name,
                                         path=source.path, nodeid=source.display)
        node.parsed = parsed
        return node

    def collect(self) -> Iterator[pytest.Item]:
        if isinstance(self.parsed, RuleError):
            # One broken rule is an error of its own item; the other rules still run.
            yield BrokenRuleItem.from_parent(self, name=BROKEN_RULE_NAME,
                                             nodeid=child_id(self, BROKEN_RULE_NAME),
                                             error=self.parsed)
            return
        rule = self.parsed
        review = review_state(self.config)
        for target in review.targets(rule):
            name = f"{rule.id}[{one_line(target.label)}]"
            yield RuleItem.from_parent(self, name=name, nodeid=child_id(self, name),
                                       target=target)


def child_id(parent: pytest.Collector, name: str) -> str:
    """``<parent id>::<name>``, given to pytest as a string so that it parses the id the way
    it parses the ids in its ``--lf`` cache (pytest 9 splits ``name[param]`` into a name and
    params; an id built with ``parent.id.child(name)`` would never equal the cached one)."""
    return f"{parent.nodeid}::{name}"


def announce_collected(session: pytest.Session, items: list[ItemT]) -> list[ItemT]:
    """Report ``items``, made during ``pytest_collection_modifyitems`` rather than by a
    collector, as collected (one ``pytest_collectreport``): pytest's "collected N items" and
    every other listener then count the items the run reports on. Returns ``items``."""
    if items:
        session.ihook.pytest_collectreport(report=pytest.CollectReport(
            "secreview", "passed", None, list(items)))
    return items


def intent_items(session: pytest.Session, review: ReviewState) -> Sequence[IntentItem]:
    """One item per pull-request-scoped rule, when the change has any file at all."""
    if not review.diff.files:
        return []
    return [
        IntentItem.from_parent(session, name=rule.id, nodeid=f"{rule.source}::{rule.id}",
                               rule=rule)
        for rule in review.rules if rule.scope == "pull_request"
    ]


def mention_item(session: pytest.Session) -> MentionItem:
    """The session's only item in mention mode."""
    from .items.mention import MentionItem  # the GitHub client loads in mention mode only

    return MentionItem.from_parent(session, name="mention", nodeid=MENTION_NODEID)
