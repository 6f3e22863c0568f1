"""The dependency review's checks as scanners built into the review: ``supply-chain`` and
``osv`` (see :mod:`pytest_secreview.deps`). Like bandit and semgrep they run once per session
over every file of their rule's items (:mod:`.session`); unlike them they run in-process and
read each changed file at both revisions from git (a dependency change is a comparison), and
they tie each result to the pull request's change themselves (:attr:`RawFinding.anchor`).

Nothing a manifest names is run or fetched. The OSV API, when the job names it, receives the
changed packages' names and exact versions, nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..deps.osv import source_from
from ..deps.review import Result, Texts, supply_chain, vulnerabilities
from ..rules.scanner_spec import NO_ADVISORY_SOURCE
from ..tools.gittree import GitTree
from .base import RawFinding, ScanOutput

#: Largest manifest or lock file read (a lock file of a large application is a few MiB).
MAX_MANIFEST_BYTES = 16 << 20

#: The version the reports name for the built-in scanners.
VERSION = "builtin"


@dataclass(frozen=True)
class DependencySettings:
    """What the built-in checks read from the session's settings."""

    advisories: tuple[Path, ...] = ()
    osv_url: str | None = None

    def unavailable(self, name: str) -> str | None:
        """Why the built-in scanner ``name`` cannot run in this session, or None."""
        if name == "osv" and not self.advisories and not self.osv_url:
            return NO_ADVISORY_SOURCE
        return None


def read_texts(repo: Path, base_sha: str | None, head_sha: str, paths: Sequence[str]
               ) -> tuple[dict[str, tuple[str | None, str]], dict[str, str]]:
    """Each path's (base text or None, head text), and why the others were not read."""
    head, base = GitTree(repo, head_sha), GitTree(repo, base_sha) if base_sha else None
    texts: dict[str, tuple[str | None, str]] = {}
    skipped: dict[str, str] = {}
    for path in paths:
        entry = head.entries.get(path)
        if entry is None or entry.kind != "file":
            skipped[path] = "not a regular file at the head revision (symlink or submodule)"
            continue
        if entry.size > MAX_MANIFEST_BYTES:
            skipped[path] = f"larger than {MAX_MANIFEST_BYTES >> 20} MiB, not read"
            continue
        old = base.entries.get(path) if base is not None else None
        before = None
        if old is not None and old.kind == "file" and old.size <= MAX_MANIFEST_BYTES:
            before = base.read_blob(old, max_bytes=MAX_MANIFEST_BYTES).decode(  # type: ignore[union-attr]
                "utf-8", "replace")
        texts[path] = (before, head.read_blob(entry, max_bytes=MAX_MANIFEST_BYTES).decode(
            "utf-8", "replace"))
    return texts, skipped


def scan_revisions(name: str, settings: DependencySettings, repo: Path, base_sha: str | None,
                   head_sha: str, paths: Sequence[str]) -> ScanOutput:
    """Run the built-in scanner ``name`` over ``paths``; raises
    :class:`~pytest_secreview.deps.osv.AdvisoryError` when the advisory source cannot be
    read (the rule's items then error with its message)."""
    start = time.monotonic()
    texts, skipped = read_texts(repo, base_sha, head_sha, paths)
    result = _run(name, settings, texts)
    findings = [RawFinding(path=path, line=signal.line, end_line=signal.line,
                           check_id=signal.check, message=signal.message,
                           severity=signal.severity, confidence=signal.confidence,
                           cwe=signal.cwe, anchor=signal.anchor or signal.check,
                           recommendation=signal.recommendation,
                           more_info=signal.context or None)
                for path, signals in sorted(result.signals.items()) for signal in signals]
    return ScanOutput(tuple(findings), VERSION, time.monotonic() - start,
                      {**skipped, **result.problems})


def _run(name: str, settings: DependencySettings, texts: Texts) -> Result:
    if name == "supply-chain":
        return supply_chain(texts)
    source = source_from(settings.advisories, settings.osv_url)
    if source is None:  # checked before: the rule makes no item without a source
        return Result()
    return vulnerabilities(texts, source)
