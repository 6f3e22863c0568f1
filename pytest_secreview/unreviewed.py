"""What an item that could not be evaluated becomes: the ``--secreview-unreviewed`` policy.

An item is *unreviewed* when part of its review could not run: no model for a rule that needs
one, the budget spent or the provider down under ``--secreview-on-error=skip``, a file the
model may not see, a file too large to review. Such an item is never a pass. Under ``fail``
it fails (a CI gate that must not go green on what nobody checked); under ``warn`` (the
default) it is skipped and the terminal summary warns; under ``skip`` it is skipped quietly.
Every item kind calls :func:`judge_unreviewed` from its ``runtest``, so the policy lives here
once.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

from .severity import one_line

#: The values of ``--secreview-unreviewed`` and its default (the option table takes them
#: from here).
POLICIES = ("fail", "warn", "skip")
DEFAULT_POLICY = "warn"
#: The user property that carries why an item was not reviewed (without the file name, so
#: the terminal summary can group items by reason); JSON-safe, it travels with xdist reports.
NOT_REVIEWED_PROPERTY = "secreview_not_reviewed"


class UnreviewedFailure(Exception):
    """Raised by ``runtest`` under ``--secreview-unreviewed=fail``."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what} was not reviewed: {why}")
        self.what = what
        self.why = why

    @property
    def message(self) -> str:
        """The item's failure text: what was not evaluated, why, and which setting failed it."""
        return (
            f"not reviewed: {one_line(self.what)}\n"
            f"    why: {one_line(self.why)}\n"
            "--secreview-unreviewed=fail made this item fail: nothing that was not checked "
            "passes. Fix the cause above; for a file the review should never read (vendored "
            "or generated code) add its path to .secreviewignore on the base branch; or "
            "use --secreview-unreviewed=warn to skip such items with a warning"
        )


def judge_unreviewed(policy: str, *, what: str, why: str, skip_message: str | None = None
                     ) -> NoReturn:
    """End an unreviewed item's ``runtest`` as the policy says: fail, or skip.

    ``what`` names what was not evaluated (``rule sqli on db.py``), ``why`` says why; the skip
    message defaults to ``why``. The item places the skip at its own location
    (:meth:`~.items.base.ReviewItem.skip_location`), not at this line.
    """
    if policy == "fail":
        raise UnreviewedFailure(what, why)
    # The reason may quote a provider, a model or a file name: one line, never a command.
    raise pytest.skip.Exception(one_line(skip_message or why))
