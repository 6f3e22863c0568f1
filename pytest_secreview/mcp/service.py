"""The tool surface the MCP server exposes, without the MCP SDK: one
:class:`~pytest_secreview.tools.registry.ToolRegistry` holding the agent's read-only repository
tools (built by :func:`~pytest_secreview.tools.repo_tools.build_registry`, so the same gate,
redaction and limits) plus the review tools of :mod:`.review_tools`.

An editor keeps committing while the server runs, so the registry follows ``head``: when the
ref moves to another commit, the next call gets a registry over the new tree (and a fresh
gate log). The base side (merge base, where the rules come from) is recomputed with it.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from ..errors import GitError
from ..gitcmd import run_git, validate_ref
from ..tools.gittree import resolve_commit
from ..tools.limits import ToolLimits
from ..tools.output import for_model
from ..tools.registry import ToolRegistry, ToolResult
from ..tools.repo_tools import build_registry
from .review_tools import ReviewScope, ReviewTools


def _commit(scope: ReviewScope, ref: str, role: str) -> str:
    try:
        return resolve_commit(scope.repo, ref)
    except Exception as exc:
        raise GitError(
            f"--{role} {ref!r} does not name a commit in {scope.repo}; pass a branch, tag or "
            "SHA that exists there (fetch it first if it is a remote branch)"
        ) from exc


def merge_base(scope: ReviewScope, head_sha: str) -> str:
    """``git merge-base base head``: the trusted side of the range, as the plugin uses it."""
    base_sha = _commit(scope, scope.base, "base")
    proc = run_git(scope.repo, "merge-base", "--end-of-options", base_sha, head_sha, check=False)
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not sha:
        raise GitError(
            f"{scope.base!r} and {scope.head!r} share no history in {scope.repo}; pass a --base "
            "the branch was created from (a shallow clone needs `git fetch --unshallow`)"
        )
    return sha


class ReviewService:
    """Every tool of the MCP server over one :class:`ReviewScope`.

    Construction checks the repository and both refs, so a bad ``--repo``/``--base`` fails
    at start-up with a message, not at the first call.
    """

    def __init__(self, scope: ReviewScope, *, limits: ToolLimits | None = None) -> None:
        validate_ref(scope.base)
        validate_ref(scope.head)
        if not scope.repo.is_dir():
            raise GitError(f"--repo {scope.repo}: no such directory; pass a git checkout")
        self.scope = replace(scope, repo=scope.repo.resolve())
        self.limits = limits or ToolLimits()
        self._lock = threading.Lock()
        self._head_sha = ""
        self._registry: ToolRegistry | None = None
        self.registry()  # fail fast on a bad repository or ref

    def registry(self) -> ToolRegistry:
        """The registry for the commit ``head`` names now (rebuilt when it moved)."""
        head_sha = _commit(self.scope, self.scope.head, "head")
        with self._lock:
            if self._registry is None or head_sha != self._head_sha:
                base_sha = merge_base(self.scope, head_sha)
                registry = build_registry(
                    self.scope.repo, base_sha=base_sha, head_sha=head_sha, limits=self.limits
                )
                for tool in ReviewTools(self.scope, base_sha=base_sha).tools():
                    registry.register(tool)
                self._registry, self._head_sha = registry, head_sha
            return self._registry

    def specs(self) -> list[dict[str, Any]]:
        """Name, description and JSON Schema of every tool: the registry's own declarations."""
        return self.registry().specs()

    def call(self, name: str, args: dict[str, Any] | None) -> ToolResult:
        """Run one tool; never raises (a failure is an error result, as for the agent)."""
        try:
            registry = self.registry()
        except Exception as exc:  # the repository changed under us: tell the client why
            return ToolResult(for_model(f"Error: {exc}"), is_error=True)
        return registry.call(name, args)
