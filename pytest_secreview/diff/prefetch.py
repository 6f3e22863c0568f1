"""Start the diff as soon as the plugin is configured.

Resolving the range and running ``git diff`` happen in a background thread while pytest and
the plugin finish starting (imports, rule parsing): the git process works on the other core
instead of after them. The result, or the error, is collected once, at session start.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from ..errors import GitError
from ..gitcmd import run_git
from .git import load_diff, resolve_base
from .model import Diff


def repository_root(start: Path) -> Path:
    """The top of the git work tree containing ``start``."""
    try:
        out = run_git(start, "rev-parse", "--show-toplevel").stdout
    except GitError:
        raise GitError(
            f"{start} is not inside a git repository; run pytest --secreview from a checkout "
            "of the pull request"
        ) from None
    return Path(out.decode().strip())


class DiffPrefetch:
    """The repository root, the base ref and the parsed diff, computed in the background."""

    def __init__(self, start: Path, base: str | None, head: str, env: Mapping[str, str]) -> None:
        self._args = (start, base, head, dict(env))
        self._result: tuple[Path, str, Diff] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="secreview-diff", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start, base, head, env = self._args
        try:
            repo = repository_root(start)
            base_ref = resolve_base(repo, base, env)
            self._result = (repo, base_ref, load_diff(repo, base_ref, head))
        except BaseException as exc:  # re-raised in the main thread by result()
            self._error = exc

    def result(self) -> tuple[Path, str, Diff]:
        """Wait for the diff; raise what computing it raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result
