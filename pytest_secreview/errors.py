"""The one error hierarchy of pytest-secreview.

Every message says what happened and what to do next; none carries a credential.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core.findings import Finding


class SecreviewError(Exception):
    """Base class of every error the plugin raises on purpose."""


class ConfigError(SecreviewError):
    """A setting has a bad value; surfaced to the user as a ``pytest.UsageError``."""


class GitError(SecreviewError):
    """A git command failed or the repository is not in a state we can review."""


class DiffParseError(SecreviewError, ValueError):
    """The patch text is not well-formed ``git diff`` output; the message says where."""


#: The name of the error item that stands for a rule file which is not a valid rule (the
#: collection makes it; the JUnit rendering names its test case after the file instead).
BROKEN_RULE_NAME = "invalid-rule"


class RuleError(SecreviewError):
    """A rule file is invalid. ``path`` and ``key`` name where the problem is."""

    def __init__(self, path: str, message: str, key: str | None = None) -> None:
        self.path = path
        self.key = key
        where = f"{path}: key {key!r}: " if key else f"{path}: "
        super().__init__(where + message)


class EvaluationError(SecreviewError):
    """Evaluation of an item broke (provider outage, budget spent, no verdict).

    The item ends as a pytest *error*, never as a pass. ``usage_record`` carries what was
    spent before the failure, so cost is reported on failure paths too.
    """

    usage_record: dict[str, Any] | None = None
    #: With several models, the findings their consensus counted before one failed: they
    #: still count (fail closed; ``evaluation.evaluate`` returns them in a partial evaluation).
    findings: tuple[Finding, ...] = ()
    #: Several models: each one's result (``assessments`` in the reports), errors included.
    assessments: tuple[dict[str, Any], ...] = ()


class ProviderError(EvaluationError):
    """A model provider failed after retries, or refused the request."""


class BudgetExceededError(EvaluationError):
    """The session's cost budget is spent; the item was not reviewed."""
