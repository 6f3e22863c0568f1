"""Whose suppression it is: a suppression comment the pull request adds counts at or above
the fail threshold only when the pull request's author has write access to the repository.

Anyone can open a pull request that adds ``secreview: ignore[rule] fine`` next to the line it
adds. The same permission check as mention mode's (:func:`~..github.access.check_access`,
``GET /repos/{owner}/{repo}/collaborators/{author}/permission``) is asked once, on the
controller, and only when a changed hunk holds a suppression comment; the answer travels to the
workers with the rest of the start-up (``handoff.Handoff``). No token, no pull request context,
a bot or any answer but admin, maintain or write: not a maintainer's (fail closed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..diff.model import Diff
from .inline import MARKER

__all__ = ["Authority", "author_authority"]


@dataclass(frozen=True)
class Authority:
    """Whether the suppressions this pull request adds are a maintainer's, and why."""

    writes: bool
    reason: str


def _near_a_suppression(diff: Diff) -> bool:
    # A comment the pull request adds, or one the base had that now covers a line it adds
    # (the comment is then in the hunk's context): either makes the suppression its doing.
    return any(MARKER in hunk.text for file in diff.files for hunk in file.hunks)


def author_authority(diff: Diff, env: Mapping[str, str], *, number: int | None,
                     repository: str | None) -> Authority | None:
    """The pull request author's authority over the suppressions it adds or extends; None
    when no changed hunk holds a suppression comment (nothing is asked). Never raises."""
    if not _near_a_suppression(diff):
        return None
    # The GitHub client (and its HTTP stack) loads only when there is something to ask:
    # collection of a pull request without suppression comments stays light.
    from ..github.access import check_access
    from ..github.client import GitHubClient, GitHubError
    from ..github.context import pull_request_from_env

    pr = pull_request_from_env(env, number=number, repository=repository)
    if not (pr.can_call_api and pr.author and pr.repository):
        return Authority(False, "no GitHub token, pull request or author to check the "
                                "author's write access with")
    try:
        client = GitHubClient(pr.api_url, pr.token)
    except GitHubError as exc:
        return Authority(False, f"could not ask GitHub: {exc}")
    access = check_access(client, pr.repository, pr.author, pr.author_type)
    return Authority(access.allowed, access.reason)
