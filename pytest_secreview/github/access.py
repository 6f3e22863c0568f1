"""Who may ask: the comment's author must have write access to the repository.

``GET /repos/{owner}/{repo}/collaborators/{username}/permission`` answers with the
``permission`` (``admin``, ``write``, ``read``, ``none``) and, on current GitHub, the
``role_name`` (``admin``, ``maintain``, ``write``, ``triage``, ``read`` or a custom role).
``permission`` decides: admin and write (which maintain reads as) may ask; a 404 (not a
collaborator), any other permission, a bot account, or an answer that cannot be read is a
refusal. Anyone can comment on a public pull request, and a question costs
model time and is an injection attempt waiting to happen: fail closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from .client import GitHubClient, GitHubError

ALLOWED = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True)
class Access:
    """The decision and why (for the log line)."""

    allowed: bool
    reason: str


def check_access(client: GitHubClient, repository: str, login: str,
                 author_type: str = "") -> Access:
    """Whether ``login`` may ask questions on ``repository``. Never raises."""
    if author_type.lower() == "bot" or login.lower().endswith("[bot]"):
        return Access(False, f"{login} is a bot account; bots are not answered")
    if not client.has_token:
        return Access(False, "no GitHub token to check the author's permission with")
    path = (f"/repos/{repository}/collaborators/"
            f"{quote(login, safe='')}/permission")
    try:
        data = client.get(path)
    except GitHubError as exc:
        if exc.status == 404:
            return Access(False, f"{login} is not a collaborator of {repository}")
        return Access(False, f"could not check {login}'s permission: {exc}")
    if not isinstance(data, dict):
        return Access(False, f"GitHub's answer about {login}'s permission is not an object")
    # ``permission`` is GitHub's summary of every role (maintain reads as write); a custom
    # ``role_name`` is free text an organisation chose, so it decides nothing here.
    permission = str(data.get("permission") or "none").lower()
    if permission in ALLOWED:
        return Access(True, f"{login} has {permission} access")
    role = str(data.get("role_name") or "")[:40]
    shown = f"{permission} ({role})" if role and role != permission else permission
    return Access(False, f"{login} has {shown} access to {repository}, not write")
