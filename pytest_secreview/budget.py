"""The session's cost budget (``--secreview-max-cost``), shared by every xdist worker.

Every model call's estimated cost is added to one ledger; an item that has not started its
model review when the budget is spent ends as an error saying so. Items already running
finish, so the overshoot is bounded by the calls in flight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import BudgetExceededError
from .shared import SharedJSON


class Budget:
    """A cost ledger in the session's shared directory."""

    def __init__(self, directory: Path, max_cost: float) -> None:
        self.max_cost = max_cost
        self._ledger = SharedJSON(directory / "budget.json", {"spent": 0.0, "refused": 0})

    def check(self, what: str) -> None:
        """Raise :class:`BudgetExceededError` when the budget is spent."""

        def refuse(data: dict[str, Any]) -> float | None:
            spent = float(data.get("spent", 0.0))
            if spent >= self.max_cost:
                data["refused"] = int(data.get("refused", 0)) + 1
                return spent
            return None

        spent = self._ledger.update(refuse)
        if spent is not None:
            raise BudgetExceededError(
                f"budget spent: ${spent:.4f} of --secreview-max-cost ${self.max_cost:.2f}; "
                f"{what} was not reviewed by the model. Raise the budget or re-run"
            )

    def add(self, cost: float) -> None:
        """Record ``cost`` USD."""

        def charge(data: dict[str, Any]) -> None:
            data["spent"] = float(data.get("spent", 0.0)) + cost

        self._ledger.update(charge)
