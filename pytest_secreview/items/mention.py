"""The ``secreview::mention`` item (``MentionItem``): the whole of a mention-mode session.

Setup reads the comment event, checks that its author may ask (write access, through the
GitHub API) and asks the model; the call phase posts the answer. Its outcome says whether the
question was answered:

- **passed**: the answer was posted (or had been, by an earlier run of the same event);
- **skipped**: the author may not ask (no answer, one log line naming why);
- **failed**: the answer could not be posted, or the run cannot answer at all (no comment
  event, no model, no GitHub token): the message says what to set;
- **error**: the model gave no answer (outage, budget, caps), as for any review item;
  ``--secreview-on-error=skip`` makes it a skip.

The record (question, decision, answer, usage, where it was posted) travels on the report as
the ``secreview_mention`` user property; the controller writes it to ``mention.json`` in the
artifacts directory (:mod:`..mention.session`). Unlike the review's summary comment, the reply is
posted by the item itself (on an xdist worker when ``-n`` is given): there is exactly one
such item, so nothing is posted twice, and the hidden marker stops a re-run from answering
again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import EvaluationError
from ..github.client import GitHubError
from ..logs import get_logger
from ..mention.session import PROPERTY
from ..modes import CommentEvent, comment_event
from ..severity import one_line
from .base import ReviewItem

if TYPE_CHECKING:
    from ..github.client import GitHubClient

log = get_logger("pytest_secreview.mention")


class MentionFailure(Exception):
    """The question could not be answered for a reason the job can fix."""


class MentionItem(ReviewItem):
    """Answer the question of the comment that started this run."""

    incomplete = "the question could not be answered"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record: dict[str, Any] = {"event": None, "answered": False}
        self.problem: str | None = None  # a failure, raised in runtest
        self.refused: str | None = None  # a skip, raised in runtest
        self.event: CommentEvent | None = None
        self.client: GitHubClient | None = None
        self.repository = ""
        self.body: str | None = None

    def setup(self) -> None:
        try:
            self._prepare()
        finally:
            self._attach()

    def _prepare(self) -> None:
        from ..github.access import check_access
        from ..github.context import pull_request_from_env
        from ..mention.answer import answer_question
        from ..mention.question import Question
        from ..mention.reply import reply_body
        from ..publish.outputs import github_client

        review, env = self.review, os.environ
        settings = review.settings
        event = self.event = comment_event(env)
        if event is None:
            self.problem = ("mention mode needs a newly created issue_comment (on a pull "
                            "request) or pull_request_review_comment event in "
                            "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH; run it from such a "
                            "workflow, or use --secreview-mode=review")
            return
        self.record["event"] = {"name": event.event_name, "comment_id": event.comment_id,
                                "author": event.author, "pull_request": event.pr_number}
        self.repository = settings.repo or env.get("GITHUB_REPOSITORY") or event.repository or ""
        pr = pull_request_from_env(env, number=settings.pr or event.pr_number,
                                   repository=self.repository or None)
        self.client = github_client(settings, self.config.invocation_params.dir, pr)
        if self.client is None or not self.repository:
            self.problem = ("mention mode needs a GitHub token (SECREVIEW_GITHUB_TOKEN or "
                            "GITHUB_TOKEN), the repository (GITHUB_REPOSITORY or "
                            "--secreview-repo) and a valid GITHUB_API_URL to check the "
                            "author's permission and to answer")
            return
        access = check_access(self.client, self.repository, event.author, event.author_type)
        self.record["access"] = {"allowed": access.allowed, "reason": access.reason}
        if not access.allowed:
            self.refused = f"question not answered: {access.reason}"
            log.warning("mention: %s (comment %s)", self.refused, event.comment_id)
            return
        reviewer = review.agent.primary if review.agent is not None else None  # the first
        if reviewer is None:
            self.problem = ("mention mode needs a model to answer with; set "
                            "--secreview-model (or SECREVIEW_MODEL)")
            return
        question = Question.from_comment(event.body, event.author, event.path)
        self.record["question"] = question.text
        try:
            answer = answer_question(reviewer, question, event.pr_number, event.pr_title,
                                     event.pr_body)
        except EvaluationError as exc:
            self.record["usage"] = exc.usage_record or {}
            self.record["error"] = str(exc)
            if settings.on_error == "skip":
                self.refused = f"not answered (--secreview-on-error=skip): {exc}"
                return
            raise
        self.record.update(answer=answer.text, usage=answer.usage,
                           transcript=list(answer.transcript), sent=answer.sent)
        self.body = reply_body(event, answer.text, answer.usage)

    def _attach(self) -> None:
        self.user_properties.append((PROPERTY, json.dumps(self.record, sort_keys=True)))

    def runtest(self) -> None:
        if self.problem is not None:
            raise MentionFailure(self.problem)
        if self.refused is not None:
            raise pytest.skip.Exception(one_line(self.refused))
        from ..mention.reply import post_reply

        assert self.event is not None and self.client is not None and self.body is not None
        try:
            posted = post_reply(self.client, self.event, self.repository, self.body)
        except GitHubError as exc:
            raise MentionFailure(f"the answer could not be posted: {exc}") from None
        self.record.update(answered=True, posted=posted.action, url=posted.url)
        self.user_properties[:] = [p for p in self.user_properties if p[0] != PROPERTY]
        self._attach()

    def failure_text(self, exc: BaseException) -> str | None:
        if isinstance(exc, MentionFailure):
            return f"mention not answered: {one_line(str(exc))}"
        return super().failure_text(exc)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path("secreview"), 0, "answer the question on the pull request"

