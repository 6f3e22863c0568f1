"""Ask the model: the evaluation's own agent loop (same read-only tools, same gate, same modes,
same caps and usage accounting) ending with ``answer_question``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from google.auth.exceptions import GoogleAuthError

from ..agent.loop import ReviewRequest
from ..agent.prompt import new_boundary
from ..agent.session import ModelSession
from ..audit.review import diff_stat
from ..audit.statement import cap
from ..errors import EvaluationError, SecreviewError
from ..tools import build_registry
from ..usage import ReviewUsage
from .question import ANSWER_TOOL, Question, system_text, task_text, validate_answer


@dataclass(frozen=True)
class Answer:
    """The model's answer (untrusted text) with what it cost; ``transcript`` without file
    bodies, for the artifacts."""

    text: str
    usage: dict[str, Any]
    transcript: tuple[dict[str, Any], ...] = ()
    sent: dict[str, Any] | None = None


def answer_question(reviewer: ModelSession, question: Question, number: int,
                    title: str = "", body: str = "") -> Answer:
    """Run the loop with the pull request's ``title`` and ``body`` (the review's own when
    empty) as context; raises :class:`EvaluationError` (with ``usage_record``) when the model
    gives no answer (outage, budget, caps, no call within the turn limit)."""
    usage = ReviewUsage(prices=reviewer.prices,
                        on_cost=reviewer.budget.add if reviewer.budget is not None else None)
    diff = reviewer.diff
    pr = reviewer.pull_request
    title, body = title or pr.title, body or pr.body
    # The same tools a review gets, from code: nothing in the question chooses them. No
    # GitHub tool: its token has no business in a run steered by a comment.
    registry = build_registry(reviewer.repo, base_sha=diff.base_sha, head_sha=diff.head_sha,
                              tree=reviewer.tree)
    pr_text = "\n\n".join(part for part in (cap(title, 300), cap(body)) if part)
    stat = diff_stat(diff)
    boundary = new_boundary(question.text, pr_text, stat, question.path or "")
    answers: list[str] = []

    def validate(args: dict[str, Any]) -> list[Any]:
        answers.append(validate_answer(args))
        return []  # an answer is not a finding; it is kept above

    request = ReviewRequest(
        system=system_text(boundary),
        task=task_text(question, number=number, base=diff.base_sha, head=diff.head_sha,
                       files=len(diff.files), stat=stat, pr_text=pr_text, boundary=boundary,
                       max_turns=reviewer.max_turns),
        registry=registry,
        validate=validate,
        single_shot_context=lambda: registry.call("git_diff", {}).text,
        boundary=boundary,
        max_turns=reviewer.max_turns,
        max_output_tokens=reviewer.max_output_tokens,
        temperature=reviewer.temperature,
        final=ANSWER_TOOL,
        max_tool_calls=reviewer.max_tool_calls,
        max_tokens=reviewer.max_tokens,
    )
    sent = {"model": reviewer.loop.model.model_id, "system": request.system,
            "task": request.task, "tools": [s["name"] for s in registry.specs()],
            "max_turns": request.max_turns}
    try:
        if reviewer.budget is not None:
            reviewer.budget.check("the answer to a question on the pull request")
        reviewer.loop.review(request, usage)
    except (SecreviewError, OSError, httpx.HTTPError, GoogleAuthError) as exc:
        error = exc if isinstance(exc, EvaluationError) else EvaluationError(
            f"{type(exc).__name__}: {exc}")
        error.usage_record = {**usage.finish(), "transcript": request.transcript, "sent": sent}
        raise error from exc
    return Answer(answers[0], usage.finish(), tuple(request.transcript), sent)
