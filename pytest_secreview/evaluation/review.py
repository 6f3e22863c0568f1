"""The model review of one item, wired from per-process parts: the model(s), the repository
tools, the prompts and the pull request's context."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..diff.model import Diff
from ..errors import EvaluationError
from ..gitcmd import run_git
from ..github.context import PullRequest
from ..llm.base import ChatModel
from ..llm.pricing import Price
from ..rules.matcher import Target
from ..tools import GitHubPRContext, build_registry, redact
from ..usage import ReviewUsage
from .agent import AgentLoop, ReviewRequest
from .evaluate import AgentOutput
from .findings import Finding
from .prompt import new_boundary, system_prompt, task_prompt
from .report_tool import validate_report


class ModelReviewer:
    """Reviews targets with a model. One per process; thread-safe; callable per item."""

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
        temperature: float | None = None,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self.repo = repo
        self.diff = diff
        self.loop = AgentLoop(model, fallback)
        self.pull_request = pull_request or PullRequest()
        self.max_turns = max_turns
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self.prices = dict(prices or {})
        # One boundary per process keeps the system prompt identical across items of a rule
        # (provider prompt caching); items whose content happens to contain it get their own.
        self._boundary = new_boundary()
        self._tracked: set[str] | None = None
        self._lock = threading.Lock()

    def tracked_paths(self) -> set[str]:
        """Files tracked at the head revision (valid ``path`` values for findings)."""
        with self._lock:
            if self._tracked is None:
                out = run_git(self.repo, "ls-tree", "-r", "-z", "--name-only",
                              "--end-of-options", self.diff.head_sha).stdout
                self._tracked = {p.decode("utf-8", "replace") for p in out.split(b"\0") if p}
            return self._tracked

    def __call__(self, target: Target, deterministic: tuple[Finding, ...]) -> AgentOutput:
        usage = ReviewUsage(prices=self.prices)
        pr = self.pull_request
        github = (
            GitHubPRContext(repository=pr.repository or "", pr_number=pr.number or 0,
                            token=pr.token or "", api_url=pr.api_url)
            if pr.can_call_api else None
        )
        registry = build_registry(self.repo, base_sha=self.diff.base_sha,
                                  head_sha=self.diff.head_sha, github=github)
        hunks = redact("\n".join(h.text.rstrip("\n") for h in target.hunks))
        pr_context = redact(f"{pr.title}\n\n{pr.body}".strip())
        boundary = self._boundary
        if boundary in hunks or boundary in pr_context:
            boundary = new_boundary(hunks, pr_context)
        rule = target.rule
        known = self.tracked_paths()

        def validate(args: dict[str, Any]) -> list[Finding]:
            source = "model:" + (usage.models[-1] if usage.models else "unknown")
            return validate_report(args, rule_id=rule.id, source=source, file=target.file,
                                   known_paths=known)

        def single_shot_context() -> str:
            return registry.call("read_file", {"path": target.file.path, "limit": 2000}).text

        request = ReviewRequest(
            system=system_prompt(target, boundary),
            task=task_prompt(
                target, hunks=hunks, boundary=boundary, base_sha=self.diff.base_sha,
                head_sha=self.diff.head_sha, max_turns=rule.max_turns or self.max_turns,
                deterministic=deterministic, pr_context=pr_context,
            ),
            registry=registry,
            validate=validate,
            single_shot_context=single_shot_context,
            boundary=boundary,
            max_turns=rule.max_turns or self.max_turns,
            max_output_tokens=self.max_output_tokens,
            temperature=self.temperature,
        )
        try:
            findings = self.loop.review(request, usage)
        except EvaluationError as exc:
            exc.usage_record = {**usage.finish(), "transcript": request.transcript}
            raise
        return AgentOutput(findings, usage.mode, usage.finish(), tuple(request.transcript))
