"""What the outputs read of the review under way: the session's ``ReviewState`` satisfies
this protocol, so the terminal summary, the report and the phases take the review as an
argument and never import the session layer above them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pytest

    from ..audit.evidence import RiskEvidence
    from ..diff.model import Diff
    from ..errors import RuleError
    from ..options import Settings
    from ..rules.loader import RuleFiles, RuleSource
    from ..rules.matcher import PreparedDiff
    from ..rules.model import Rule
    from ..triage.coverage import LeftOut
    from ..triage.gaps import Gap
    from ..triage.plan import TriagePlan


class ReviewView(Protocol):
    """The review of this process, as its outputs see it."""

    config: pytest.Config
    settings: Settings
    repo: Path
    base_ref: str
    diff: Diff
    prepared: PreparedDiff
    #: The rule files and their notes (a phase run replaces them with the stored ones).
    rule_files: RuleFiles
    #: What the pull request changed in pytest's own configuration (shown first).
    warnings: list[str]
    #: Selection options the job gave (-k, -m, --deselect...) and review items they removed.
    selection: dict[str, Any]
    deselected: int
    session_dir: Path | None

    @property
    def parsed_rules(self) -> list[tuple[RuleSource, Rule | RuleError]]:
        """Every rule file parsed, errors kept per file."""

    @property
    def rules(self) -> list[Rule]:
        """The rules that parsed."""

    @property
    def triage(self) -> TriagePlan:
        """Which rules ran on which files."""

    @property
    def gaps(self) -> list[Gap]:
        """What no item reviews."""

    @property
    def left_out(self) -> tuple[LeftOut, ...]:
        """What the general review left out of the model's view in this run (nothing when it
        made no item)."""

    @property
    def deterministic_review(self) -> bool:
        """No model is configured."""

    @property
    def intent_evidence(self) -> RiskEvidence | None:
        """No model: the intent audit's risk evidence, reported without a verdict (None with
        a model, with no pull-request-scoped rule, or with no changed file)."""
