"""The pull request under review, from GitHub Actions' environment or from options.

``GITHUB_EVENT_PATH`` (the event payload), ``GITHUB_REPOSITORY`` and ``GITHUB_API_URL``
(so GitHub Enterprise Server works); the token from ``SECREVIEW_GITHUB_TOKEN`` or
``GITHUB_TOKEN``. The title and body are untrusted text written by the PR's author.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class PullRequest:
    """What we know of the pull request; ``token`` never appears in reprs."""

    repository: str | None = None
    number: int | None = None
    api_url: str = "https://api.github.com"
    head_sha: str | None = None
    title: str = ""
    body: str = ""
    token: str | None = field(default=None, repr=False)
    #: The pull request's author (``user.login``) and account type (``User``, ``Bot``).
    author: str = ""
    author_type: str = ""

    @property
    def can_call_api(self) -> bool:
        """True when a token, a repository and a PR number are all known."""
        return bool(self.token and self.repository and self.number)


def pull_request_from_env(
    env: Mapping[str, str], *, number: int | None = None, repository: str | None = None
) -> PullRequest:
    """Read the PR from the Actions environment; explicit ``number``/``repository`` win."""
    event: dict[str, object] = {}
    event_path = env.get("GITHUB_EVENT_PATH")
    if event_path and Path(event_path).is_file():
        try:
            loaded = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = {}
        event = loaded if isinstance(loaded, dict) else {}
    pr = event.get("pull_request")
    pr = pr if isinstance(pr, dict) else {}
    head = pr.get("head")
    head_sha = head.get("sha") if isinstance(head, dict) else None
    event_number = pr.get("number", event.get("number"))
    user = pr.get("user")
    user = user if isinstance(user, dict) else {}
    return PullRequest(
        repository=repository or env.get("GITHUB_REPOSITORY") or None,
        number=number or (event_number if isinstance(event_number, int) else None),
        api_url=(env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
        head_sha=head_sha if isinstance(head_sha, str) else None,
        title=str(pr.get("title") or ""),
        body=str(pr.get("body") or ""),
        token=env.get("SECREVIEW_GITHUB_TOKEN") or env.get("GITHUB_TOKEN") or None,
        author=str(user.get("login") or ""),
        author_type=str(user.get("type") or ""),
    )
