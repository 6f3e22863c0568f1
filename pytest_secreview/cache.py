"""The evaluation cache: a directory keyed by everything that decides a model review, so a
re-run of an unchanged pull request makes no model call and a push that changes one file
re-evaluates only that file's items. Entries are written atomically (safe under xdist);
errors and skips are never stored."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from .agent.output import AgentOutput
from .atomic import write_text_atomic
from .core.findings import Finding
from .core.record import as_found
from .usage_counts import USAGE_COUNTS

#: Bumped when what is stored, or how it is used, changes meaning.
CACHE_FORMAT = "1"


def cache_key(parts: dict[str, Any]) -> str:
    """A sha256 over the canonical JSON of ``parts``."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class EvaluationCache:
    """Entries as ``<dir>/<key[:2]>/<key>.json``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None (a corrupt entry counts as a miss)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError, OSError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return None
        return data

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` atomically: concurrent writers of the same key each rename a
        complete file into place, so a reader never sees half an entry."""
        # A cache that cannot be written (or sits behind a link) is only slower.
        with contextlib.suppress(OSError):
            write_text_atomic(self._path(key),
                              json.dumps({**entry, "format": CACHE_FORMAT}, sort_keys=True))


def stored_review(entry: dict[str, Any]) -> AgentOutput:
    """A cached review: the same findings, no model call now, the original cost noted. The
    findings are read as found: no lowering stored beside them reaches this run
    (:func:`pytest_secreview.core.decide.decide` decides again)."""
    original = entry.get("usage", {})
    usage = {
        **dict.fromkeys(USAGE_COUNTS, 0),
        "mode": entry.get("mode"), "models": original.get("models", []), "cost_usd": 0.0,
        "wall_seconds": 0.0, "cache": "hit", "original_cost_usd": original.get("cost_usd"),
    }
    return AgentOutput(
        findings=[as_found(Finding.from_json(f)) for f in entry.get("findings", [])],
        mode=str(entry.get("mode")), usage=usage,
        transcript=tuple(entry.get("transcript", [])), sent=entry.get("sent", {}),
        cached=True,
    )


def stored_verdicts(entry: dict[str, Any]) -> tuple[Finding, ...]:
    """A cached second look: each finding with the model's confirm or dismiss, reused (a
    change again, judged like a fresh one), and nothing else the entry could claim."""
    return tuple(as_found(Finding.from_json(f), verdict=True) for f in entry["findings"])
