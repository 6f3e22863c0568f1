"""What a run does: ``review`` (the default), ``fix`` or ``mention``.

An explicit ``--secreview-mode`` (ini ``secreview_mode``, env ``SECREVIEW_MODE``) wins.
Without one, a GitHub Actions comment event chooses mention mode by itself: an
``issue_comment`` on a pull request, or a ``pull_request_review_comment``, that was just
created and whose body mentions the handle (``@secreview`` by default,
``--secreview-mention-handle``). Anything else is a review.

The comment is untrusted: its body is the question (capped later, see
:mod:`pytest_secreview.mention.question`), its author is checked for write access before
anything is answered (:mod:`pytest_secreview.github.access`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REVIEW = "review"
FIX = "fix"
MENTION = "mention"
#: The values of ``--secreview-mode`` (the option table takes them from here).
MODES = (REVIEW, FIX, MENTION)
#: The events whose comment can ask a question.
COMMENT_EVENTS = ("issue_comment", "pull_request_review_comment")
DEFAULT_HANDLE = "secreview"

# GitHub logins: letters, digits and single hyphens, at most 39 characters; apps answer to
# ``name[bot]``.
_HANDLE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$")


def parse_handle(value: str) -> str:
    """A mention handle without its ``@``; ``ValueError`` for anything that is no login."""
    handle = value.strip().removeprefix("@")
    if not _HANDLE.match(handle):
        raise ValueError("a GitHub login (letters, digits and hyphens, at most 39), "
                         "without spaces, e.g. secreview")
    return handle


def mentions(body: str, handle: str) -> bool:
    """True when ``body`` mentions ``@handle`` as GitHub would: not inside a longer login
    (``@secreview-bot``), not an e-mail address (``me@secreview``)."""
    pattern = rf"(?<![A-Za-z0-9_.+@/-])@{re.escape(handle)}(?![A-Za-z0-9_-]|\[)"
    return re.search(pattern, body, re.IGNORECASE) is not None


@dataclass(frozen=True)
class CommentEvent:
    """A comment on a pull request, from the Actions event payload. Every text in it is
    untrusted (the body is the question; the login names whose permission is checked)."""

    event_name: str
    comment_id: int
    body: str
    author: str
    author_type: str
    pr_number: int
    repository: str | None = None
    #: The review thread's first comment (replies go to the thread, not to a reply).
    thread_id: int | None = None
    path: str | None = None
    #: The pull request's title and description as the event carries them (untrusted).
    pr_title: str = ""
    pr_body: str = ""

    @property
    def in_review_thread(self) -> bool:
        """True for a ``pull_request_review_comment``: the answer is a reply in its thread."""
        return self.event_name == "pull_request_review_comment"

    @property
    def reply_to(self) -> int:
        """The review comment a thread reply is attached to."""
        return self.thread_id or self.comment_id


def _load_event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return {}
    try:
        loaded = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def comment_event(env: Mapping[str, str]) -> CommentEvent | None:
    """The comment of a newly created ``issue_comment`` (on a pull request) or
    ``pull_request_review_comment`` event; None for every other event or payload."""
    name = env.get("GITHUB_EVENT_NAME", "")
    if name not in COMMENT_EVENTS:
        return None
    event = _load_event(env)
    if event.get("action", "created") != "created":
        return None  # an edit or a deletion asks nothing new
    comment = _dict(event.get("comment"))
    if name == "issue_comment":
        pull = _dict(event.get("issue"))  # a pull request is an issue with ``pull_request``
        if not pull.get("pull_request"):
            return None  # a comment on a plain issue: there is no pull request to discuss
    else:
        pull = _dict(event.get("pull_request"))
    number = _int(pull.get("number"))
    comment_id = _int(comment.get("id"))
    user = _dict(comment.get("user"))
    body, login = comment.get("body"), user.get("login")
    if number is None or comment_id is None or not isinstance(body, str) \
            or not isinstance(login, str):
        return None
    repository = _dict(event.get("repository")).get("full_name")
    path = comment.get("path")
    return CommentEvent(
        event_name=name, comment_id=comment_id, body=body, author=login,
        author_type=str(user.get("type") or ""), pr_number=number,
        repository=repository if isinstance(repository, str) else None,
        thread_id=_int(comment.get("in_reply_to_id")),
        path=path if isinstance(path, str) else None,
        pr_title=str(pull.get("title") or ""), pr_body=str(pull.get("body") or ""),
    )


def resolve_mode(explicit: str | None, handle: str, env: Mapping[str, str]) -> str:
    """The run's mode: ``explicit`` when set, else mention for a comment event that mentions
    ``@handle``, else review."""
    if explicit:
        return explicit
    event = comment_event(env)
    if event is not None and mentions(event.body, handle):
        return MENTION
    return REVIEW
