"""The two dependency checks over a pull request's changed files, from their base and head
texts: supply-chain signals (:func:`supply_chain`) and known vulnerabilities
(:func:`vulnerabilities`). Both return :class:`~.signals.Signal` values per path."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.severity import Severity
from .changes import ManifestChange, compare
from .osv import AdvisorySource, Query, advisory_hits
from .signals import Signal, action_signals, requirement_signals

_WORKFLOW = re.compile(r"(^|/)\.github/workflows/[^/]+\.ya?ml$|(^|/)action\.ya?ml$",
                       re.IGNORECASE)

#: A file's texts: (base, or None when the pull request adds it; head).
Texts = Mapping[str, tuple[str | None, str]]


@dataclass
class Result:
    """The signals of each path, and why a path could not be read."""

    signals: dict[str, list[Signal]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    checked: int = 0  # requirements looked up (the advisory check)


def is_workflow(path: str) -> bool:
    """True for a GitHub Actions workflow or action definition."""
    return _WORKFLOW.search(path) is not None


def _changes(texts: Texts, result: Result) -> dict[str, ManifestChange]:
    changes = {}
    for path, (base, head) in sorted(texts.items()):
        change = compare(path, base, head)
        if change is None:
            continue
        if change.head.problem:
            result.problems[path] = change.head.problem
        changes[path] = change
    return changes


def supply_chain(texts: Texts) -> Result:
    """The supply-chain signals of every file (manifests, lock files, workflows)."""
    result = Result()
    for path, (base, head) in sorted(texts.items()):
        if is_workflow(path):
            result.signals[path] = action_signals(base, head)
    for path, change in _changes(texts, result).items():
        result.signals[path] = requirement_signals(change)
    return result


def vulnerabilities(texts: Texts, source: AdvisorySource) -> Result:
    """A finding for each exact version the pull request introduces (a pin, a lock entry)
    that an advisory of ``source`` affects; ranges are not resolved (a lock file is)."""
    result = Result()
    changes = _changes(texts, result)
    wanted = [(path, item.requirement) for path, change in changes.items()
              for item in change.introduced
              if item.requirement.version and not item.requirement.origin]
    queries = [Query(r.ecosystem, r.name, r.version or "") for _path, r in wanted]
    result.checked = len({q.key for q in queries})
    found = advisory_hits(source, queries)
    for path, requirement in wanted:
        query = Query(requirement.ecosystem, requirement.name, requirement.version or "")
        for hit in found.get(query.key, ()):
            severity = hit.severity or Severity.MEDIUM
            how = hit.score or "the advisory states no severity this review reads"
            fixed = (f"fixed in {hit.fixed}" if hit.fixed
                     else "no fixed version is published")
            summary = " ".join(hit.summary.split())[:200] or "(no summary)"
            message = (f"{requirement.name} {requirement.version} is affected, {fixed} "
                       f"(affected {hit.affected}; {how}): {summary}")
            fix = (f"Upgrade {requirement.name} to {hit.fixed} or later ({hit.url})."
                   if hit.fixed else
                   f"No release of {requirement.name} fixes {hit.id} yet: remove or replace "
                   f"it, or accept the risk in the baseline with a note ({hit.url}).")
            context = " ".join(hit.details.split())
            if hit.functions:
                context += f" Affected functions: {', '.join(hit.functions)}."
            result.signals.setdefault(path, []).append(Signal(
                hit.id, requirement.line, severity, "CWE-1395", message, fix, confidence=0.9,
                anchor=f"{hit.id} {requirement.key} {requirement.version}",
                context=f"Advisory: {context.strip()}" if context.strip() else ""))
    return result
