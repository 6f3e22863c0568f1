"""The xdist controller's start-up, handed to its workers (``workerinput`` names the file)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import write_bytes_atomic
from .diff.model import Diff
from .options import Settings
from .rules.loader import RuleFiles
from .state import ReviewState
from .triage.ignore import IgnoreFile

if TYPE_CHECKING:
    from .agent.guidance import Guidance
    from .suppression.authority import Authority
    from .suppression.baseline import Baseline


@dataclass(frozen=True)
class Handoff:
    """What the xdist controller computed at start-up, handed to its workers so that none of
    them runs ``git diff``, re-reads the base revision's configuration or looks for the rule
    files again: the range, the parsed diff, the trusted settings, the rule files' bytes and
    what it read from the base revision for them (the ignore file, the team's guidance).
    (The rules are parsed and indexed again in each worker: compiled patterns do not cross
    processes, and parsing is cheap next to the diff.)"""

    repo: Path
    base_ref: str
    diff: Diff
    settings: Settings
    rule_files: RuleFiles
    warnings: tuple[str, ...]
    selection: dict[str, Any]
    ignore: IgnoreFile
    guidance: Guidance | None = None  # read for the model review (None without a model)
    baseline: Baseline | None = None  # --secreview-baseline as the controller read it
    authority: Authority | None = None  # the pull request author's, asked by the controller

    #: The file in the session directory (a private ``mkdtemp`` directory of this user, made
    #: by the controller: the only writer of what workers unpickle).
    FILE = "handoff.pickle"

    @classmethod
    def of(cls, review: ReviewState) -> Handoff:
        """The controller's start-up results."""
        return cls(review.repo, review.base_ref, review.diff, review.settings,
                   review.rule_files, tuple(review.warnings), dict(review.selection),
                   IgnoreFile(review.ignore.patterns, review.ignore.revision), review.guidance,
                   review.quiet.baseline if review.quiet is not None else None,
                   review.authority)

    def write(self, session_dir: Path) -> Path:
        """Store the hand-off in the session directory (once per session)."""
        path = session_dir / self.FILE
        if not path.exists():
            write_bytes_atomic(path, pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))
        return path

    @classmethod
    def read(cls, path: Path) -> Handoff:
        """The controller's hand-off, in a worker."""
        handoff = pickle.loads(path.read_bytes())  # noqa: S301 - written by our controller
        if not isinstance(handoff, cls):
            raise TypeError(f"{path} does not hold a secreview hand-off")
        return handoff
