"""Does a patch remove its finding? The deterministic review of the patched revision
(:func:`~pytest_secreview.evaluation.offline.review_range`, the one entry point for it)
compared with the same review of the head revision, on the files the patch touches.

Findings are compared by (rule, path, title) counts, not line numbers: a patch shifts lines
and rewrites the flagged one, so a fingerprint alone would call a reformatted match "gone".
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.findings import Finding
from ..core.problems import SOURCE_SEPARATOR
from ..core.severity import Severity
from ..evaluation.offline import review_range
from ..rules.model import Rule

#: The sources of findings the deterministic layer reproduces (``scanner:<name>`` too).
_CHECKED_SOURCES = ("pattern", "taint")


def checkable(finding: Finding) -> bool:
    """True when a deterministic check produced ``finding`` (possibly with a model), so
    re-running the checks can tell whether a patch removed it."""
    return any(s in _CHECKED_SOURCES or s.startswith("scanner:")
               for s in finding.source.split(SOURCE_SEPARATOR))


@dataclass(frozen=True)
class Recheck:
    """What the deterministic checks say about a patched revision."""

    gone: bool | None  # None: no deterministic check reports this finding at head either
    introduced: tuple[Finding, ...]  # findings at or above the threshold the patch adds


def _kind(finding: Finding) -> tuple[str, str, str]:
    return finding.rule, finding.path, finding.title


class Rechecker:
    """Re-runs the deterministic checks of one review (its rules, its merge base) on patched
    revisions. One per process; the head revision's findings are computed once per file."""

    def __init__(self, repo: Path, base_sha: str, head_sha: str, rules: Sequence[Rule],
                 threshold: Severity, semgrep_configs: Sequence[Path] = ()) -> None:
        self.repo = repo
        self.base_sha = base_sha
        self.head_sha = head_sha
        self.rules = tuple(rules)
        self.threshold = threshold
        self.semgrep_configs = tuple(semgrep_configs)
        self._head: dict[tuple[str, ...], tuple[Finding, ...]] = {}
        self._lock = threading.Lock()

    def _review(self, revision: str, paths: Iterable[str]) -> tuple[Finding, ...]:
        return review_range(self.repo, self.base_sha, revision, parsed_rules=self.rules,
                            paths=set(paths), semgrep_configs=self.semgrep_configs).findings

    def head_findings(self, paths: Iterable[str]) -> list[Finding]:
        """The deterministic findings of ``paths`` at the head revision (reviewed together,
        as the patched revision is: a flow across two of them counts the same both times)."""
        key = tuple(sorted(set(paths)))
        with self._lock:
            if key not in self._head:
                self._head[key] = self._review(self.head_sha, key)
            return list(self._head[key])

    def recheck(self, finding: Finding, patched: str, paths: Sequence[str]) -> Recheck:
        """Compare the head revision with ``patched`` (a commit) on ``paths`` and always on
        the finding's own file: a patch elsewhere leaves the finding where it was, and only
        looking there says so."""
        paths = sorted({finding.path, *paths})
        before = self.head_findings(paths)
        after = self._review(patched, paths)
        counted_before = Counter(_kind(f) for f in before)
        counted_after = Counter(_kind(f) for f in after)
        grown = {k for k, n in counted_after.items() if n > counted_before.get(k, 0)}
        introduced = tuple(f for f in after if _kind(f) in grown
                           and f.severity.at_least(self.threshold) and _kind(f) != _kind(finding))
        kind = _kind(finding)
        if not checkable(finding) or not counted_before.get(kind):
            return Recheck(None, introduced)
        still = finding.fingerprint in {f.fingerprint for f in after if _kind(f) == kind}
        gone = not still and counted_after.get(kind, 0) < counted_before[kind]
        return Recheck(gone, introduced)
