"""The model session of one process: the model (and a rule's own, built once per name), the
limits every model call obeys, the budget and prices, the team's guidance and the repository
the tools read. The evaluation's :class:`~pytest_secreview.evaluation.review.ModelReviewer`
extends it with the item review; the findings triage, the intent audit, fix mode and mention
mode run their own requests through it, without importing the evaluation."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ..budget import Budget
from ..diff.model import Diff
from ..github.context import PullRequest
from ..llm.base import ChatModel
from ..llm.pricing import Price
from ..rules.matcher import Target
from ..tools.gittree import GitTree
from .guidance import Guidance
from .loop import AgentLoop
from .prompt import team_policy


class ModelSession:
    """The per-process model context. Thread-safe; one per process."""

    def __init__(
        self,
        *,
        repo: Path,
        diff: Diff,
        model: ChatModel,
        fallback: ChatModel | None = None,
        pull_request: PullRequest | None = None,
        max_turns: int = 10,
        max_output_tokens: int = 4096,
        max_tool_calls: int | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        prices: Mapping[str, Price] | None = None,
        budget: Budget | None = None,
        make_model: Callable[[str], ChatModel] | None = None,
        guidance: Guidance | None = None,
    ) -> None:
        self.repo = repo
        #: The team's instructions and precedents (read from the base revision).
        self.guidance = guidance or Guidance()
        self.team = team_policy(self.guidance.instructions, self.guidance.instructions_source)
        self.diff = diff
        self.loop = AgentLoop(model, fallback)
        # Rules may name a model of their own (frontmatter `model`); built once per name.
        self._make_model = make_model
        self._loops: dict[str, AgentLoop] = {}
        self.pull_request = pull_request or PullRequest()
        self.max_turns = max_turns
        self.max_output_tokens = max_output_tokens
        self.max_tool_calls = max_tool_calls
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.prices = dict(prices or {})
        self.budget = budget
        self._lock = threading.Lock()
        # The head commit's tree, listed once per process and shared by every item's tools.
        self.tree = GitTree(repo, diff.head_sha)

    def loop_for(self, target: Target) -> AgentLoop:
        """The loop for the target's rule: its own model when it names one."""
        name = target.rule.model
        if not name or self._make_model is None or name == self.loop.model.model_id:
            return self.loop
        with self._lock:
            if name not in self._loops:
                self._loops[name] = AgentLoop(self._make_model(name), self.loop.fallback)
            return self._loops[name]
