"""Usage and cost of one item's review, recorded on every path: success, failure and error.

Cost is an estimate from the price table (``llm.pricing``), ``None`` when the model's price
is unknown, so a report says "unknown" rather than a misleading $0.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .llm.messages import Usage
from .llm.pricing import Price, estimate_cost


@dataclass
class ReviewUsage:
    """Counters for one review; mutable while the review runs, then frozen into a dict."""

    prices: Mapping[str, Price] = field(default_factory=dict)
    on_cost: Callable[[float], None] | None = None  # the session budget's ledger
    mode: str = "deterministic"
    models: list[str] = field(default_factory=list)
    model_calls: int = 0
    #: Calls that never reached the model: no HTTP answer at all (connection refused, DNS,
    #: timeouts) on the last attempt. Not model calls: nothing was asked or billed.
    failed_calls: int = 0
    tokens: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    tools: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    wall_seconds: float = 0.0

    def add_model_call(self, model_id: str, usage: Usage | None, *,
                       reached: bool = True) -> None:
        """Count one model call and its tokens (``usage`` None when the provider billed
        nothing we could see). ``reached`` False: the request never got an answer from the
        provider; it is counted in ``failed_calls``, not as a model call."""
        if model_id not in self.models:
            self.models.append(model_id)
        if not reached:
            self.failed_calls += 1
            return
        self.model_calls += 1
        if usage is None:
            return
        self.tokens = self.tokens + usage
        cost = estimate_cost(model_id, usage, self.prices)
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost
        if cost and self.on_cost is not None:
            self.on_cost(cost)

    def finish(self) -> dict[str, Any]:
        """Stop the clock and return the JSON-safe record."""
        self.wall_seconds = time.perf_counter() - self.started
        return self.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """The JSON-safe record attached to the item's report."""
        return {
            "mode": self.mode,
            "models": list(self.models),
            "model_calls": self.model_calls,
            "failed_calls": self.failed_calls,
            "tool_calls": int(self.tools.get("calls", 0)),
            "input_tokens": self.tokens.input_tokens,
            "output_tokens": self.tokens.output_tokens,
            "cached_tokens": self.tokens.cached_tokens,
            "cache_write_tokens": self.tokens.cache_write_tokens,
            "reasoning_tokens": self.tokens.reasoning_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "wall_seconds": round(self.wall_seconds, 3),
            "tools": self.tools,
        }
