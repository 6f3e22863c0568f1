"""The evaluation cache: a directory keyed by everything that decides a model review, so a
re-run of an unchanged pull request makes no model call and a push that changes one file
re-evaluates only that file's items. Entries are written atomically (safe under xdist);
errors and skips are never stored.

What a stored review may stand in for (``--secreview-cache-replay``): the key holds the
content the review saw, the pull request's text included, so a replay answers for exactly
that content; but a review the pull request steered once (a model that was talked out of a
finding) would be replayed by every re-run of the same change. ``all`` (the default) accepts
that risk for the cost of a warm re-run; ``failing`` replays only what cannot turn a run
green: a review that found something at or above the fail threshold, a second look that
dismissed nothing there. The rest is asked again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from .agent.output import AgentOutput
from .atomic import write_text_atomic
from .core.findings import Finding
from .core.record import Answer, as_found
from .core.severity import Severity
from .usage_counts import USAGE_COUNTS

#: Bumped when what is stored, or how it is used, changes meaning.
CACHE_FORMAT = "2"


def cache_key(parts: dict[str, Any]) -> str:
    """A sha256 over the canonical JSON of ``parts``."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


#: The values of ``--secreview-cache-replay``.
REPLAY_ALL = "all"
REPLAY_FAILING = "failing"


class EvaluationCache:
    """Entries as ``<dir>/<key[:2]>/<key>.json``. ``replay`` and ``fail_on``: which stored
    reviews stand in for a fresh one (see the module's text)."""

    def __init__(self, directory: Path, *, replay: str = REPLAY_ALL,
                 fail_on: Severity = Severity.CRITICAL) -> None:
        self.directory = directory
        self.replay = replay
        self.fail_on = fail_on

    def replays(self, entry: dict[str, Any]) -> bool:
        """True when the stored review ``entry`` may stand in for a fresh one: always under
        ``all``; under ``failing``, when it holds a finding at or above the fail threshold
        and no stored answer lowers one there (a review, or a second look that confirmed
        it at its severity)."""
        if self.replay == REPLAY_ALL:
            return True
        stored = [Finding.from_json(f) for f in entry.get("findings") or ()]
        answers = stored_answers(entry)
        at_threshold = [f for f in stored if f.severity.at_least(self.fail_on)]
        if any(c.lowers(f) for f in at_threshold if f.fingerprint in answers
               for c in answers[f.fingerprint].changes(f)):
            return False
        return bool(at_threshold)

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


def stored_answers(entry: dict[str, Any]) -> dict[str, Answer]:
    """A cached second look: its confirm or dismiss of each finding it checked, by
    fingerprint (answers, made changes again and judged like fresh ones); nothing else the
    entry could claim."""
    raw = entry.get("answers")
    answers = ({str(key): Answer.from_json(data) for key, data in raw.items()}
               if isinstance(raw, dict) else {})
    return {key: answer for key, answer in answers.items() if answer is not None}
