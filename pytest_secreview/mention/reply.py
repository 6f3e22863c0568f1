"""The answer as a comment: rendered inert, then posted where the question was asked.

The model's answer is untrusted (the question may have steered it). Its prose goes through the
summary's own :func:`escape_text` (secrets redacted; markdown, HTML, ``@mentions``, ``#123``
references and URLs made inert, so it can neither ping anyone, link anywhere nor load an
image that carries data away) and its fenced code through :func:`code_block` (a fence no line
can close). A hidden marker names the question's comment id, so a re-run of the workflow finds
its earlier answer instead of answering twice.

An ``issue_comment`` is answered with an issue comment on the pull request; a
``pull_request_review_comment`` with a reply in its review thread
(``POST /repos/{o}/{r}/pulls/{n}/comments/{id}/replies``, on the thread's first comment).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..github.client import GitHubClient
from ..modes import CommentEvent
from ..reporting.markdown_text import code_block, escape_text

MARKER = "<!-- pytest-secreview:mention:{id} -->"
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([A-Za-z0-9_+-]{0,20})\s*$")
# Fence info strings kept from the answer: a short fixed list, anything else is dropped.
_LANGUAGES = frozenset({
    "python", "py", "javascript", "js", "typescript", "ts", "go", "java", "ruby", "rust",
    "php", "c", "cpp", "csharp", "bash", "sh", "shell", "yaml", "json", "sql", "diff", "html",
    "xml", "toml", "ini", "dockerfile", "kotlin", "swift", "text",
})


@dataclass(frozen=True)
class Posted:
    """What posting did: ``created``, ``already answered`` or ``written (dry run)``."""

    action: str
    url: str | None = None


def render_answer(answer: str, limit: int = 12_000) -> str:
    """The answer as inert markdown: prose escaped, fenced code kept as code blocks."""
    parts: list[str] = []
    prose: list[str] = []
    code: list[str] | None = None
    info = ""
    fence = ""

    def flush_prose() -> None:
        text = "\n".join(prose).strip()
        if text:
            parts.append(escape_text(text, limit))
        prose.clear()

    for line in answer.replace("\r\n", "\n").split("\n"):
        match = _FENCE.match(line)
        if code is None and match:
            flush_prose()
            fence, code = match.group(1), []
            info = match.group(2).lower() if match.group(2).lower() in _LANGUAGES else ""
        elif code is not None and match and match.group(1).startswith(fence) \
                and not match.group(2):
            parts.append(code_block("\n".join(code), info))
            code = None
        elif code is not None:
            code.append(line)
        else:
            prose.append(line)
    if code is not None:  # an unclosed fence: still code
        parts.append(code_block("\n".join(code), info))
    flush_prose()
    return "\n\n".join(parts) or "_(no answer)_"


def usage_line(usage: Mapping[str, Any]) -> str:
    """Model, tool calls, tokens and cost of the answer, for its footer."""
    models = ", ".join(str(m) for m in usage.get("models") or []) or "the model"
    cost = usage.get("cost_usd")
    price = f"≈ ${cost:.4f}" if isinstance(cost, int | float) else "cost unknown (no price)"
    cached = usage.get("cached_tokens") or 0
    tokens = (f"{usage.get('input_tokens', 0):,} input + {usage.get('output_tokens', 0):,} "
              f"output tokens" + (f" ({cached:,} cached)" if cached else ""))
    return escape_text(
        f"pytest-secreview answered with {models} · {usage.get('model_calls', 0)} model "
        f"call(s), {usage.get('tool_calls', 0)} tool call(s) · {tokens} · {price} · "
        "read-only: nothing in the repository was changed", 600, one_line=True)


def reply_body(event: CommentEvent, answer: str, usage: Mapping[str, Any]) -> str:
    """The whole comment: marker, the question quoted, the answer, the usage footer."""
    asked = escape_text(event.body, 300, one_line=True)
    who = escape_text("@" + event.author, 60, one_line=True)
    return (f"{MARKER.format(id=event.comment_id)}\n"
            f"> {who} asked: {asked}\n\n"
            f"{render_answer(answer)}\n\n"
            f"<sub>{usage_line(usage)}</sub>\n")


def _endpoints(event: CommentEvent, repository: str) -> tuple[str, str]:
    """(where earlier answers are listed, where the answer is posted)."""
    if event.in_review_thread:
        pulls = f"/repos/{repository}/pulls/{event.pr_number}/comments"
        return pulls, f"{pulls}/{event.reply_to}/replies"
    issues = f"/repos/{repository}/issues/{event.pr_number}/comments"
    return issues, issues


def already_answered(client: GitHubClient, event: CommentEvent, repository: str) -> str | None:
    """The URL (or "") of an earlier answer to this question by a bot account, else None."""
    listing, _post = _endpoints(event, repository)
    marker = MARKER.format(id=event.comment_id)
    for comment in client.paginate(listing).items:
        if not isinstance(comment, dict):
            continue
        user = comment.get("user")
        user = user if isinstance(user, dict) else {}
        # A person could paste the marker to silence the bot; only a bot's answer counts.
        if str(comment.get("body") or "").startswith(marker) and user.get("type") == "Bot":
            return str(comment.get("html_url") or "")
    return None


def post_reply(client: GitHubClient, event: CommentEvent, repository: str,
               body: str) -> Posted:
    """Post ``body`` as the answer unless this question was answered before; raises
    :class:`~pytest_secreview.github.client.GitHubError` when GitHub refuses."""
    earlier = already_answered(client, event, repository)
    if earlier is not None:
        return Posted("already answered", earlier or None)
    _listing, endpoint = _endpoints(event, repository)
    created = client.post(endpoint, {"body": body})
    if client.dry_run:
        return Posted("written (dry run)")
    url = created.get("html_url") if isinstance(created, dict) else None
    return Posted("created", url if isinstance(url, str) else None)
