"""The session's verdicts: one second look per finding per session, shared by every process.

Several items can report the same problem (the per-file items of several rules on one file,
each reporting the same template injection). Each would otherwise ask the triage or the
verifier again, for the same answer. A verdict is stored in the session directory (made by
the xdist controller, private to the session, handed to every worker), one file per finding,
keyed by which check gave it, the model, the finding's location, its weakness and the blob of
its file at the head revision, so a later item reuses it instead of asking.

A reused verdict is marked on the finding (``Finding.triage_reused``, naming the item that
asked); the item record turns it into a ``reuse`` change of origin ``cache`` next to the
verdict itself, which ``core.decide`` judges as it judges a fresh one from the same check (a
model's answer never lowers a deterministic finding at or above the threshold).

While one process asks, every other process that needs the same verdict waits on its file
lock (taken in key order, so two items cannot wait on each other), then reads the answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..atomic import write_text_atomic
from ..core.findings import Finding
from ..core.severity import Severity
from ..severity import one_line

__all__ = ["Asker", "StoredVerdict", "VerdictStore"]

#: Asks a check about the findings it is given; returns them in order, and its usage record.
Asker = Callable[[tuple[Finding, ...]], tuple[tuple[Finding, ...], dict[str, Any]]]

#: The triage states a verdict can store (``untriaged`` is a failure to ask: asked again).
_DECIDED = ("confirmed", "dismissed")


@dataclass(frozen=True)
class StoredVerdict:
    """A check's answer about one finding, and which item asked for it."""

    state: str
    reason: str
    confidence: float | None
    severity: Severity | None
    asked_by: str

    def applied_to(self, finding: Finding) -> Finding:
        """``finding`` with this verdict, marked as reused from :attr:`asked_by`."""
        return replace(finding, triage=self.state, triage_reason=self.reason,
                       triage_confidence=self.confidence, triage_severity=self.severity,
                       triage_reused=self.asked_by)

    @classmethod
    def of(cls, finding: Finding, asked_by: str) -> StoredVerdict | None:
        """What ``finding``'s check decided, to store; None when it decided nothing."""
        if finding.triage not in _DECIDED or finding.triage_reused:
            return None
        return cls(str(finding.triage), finding.triage_reason, finding.triage_confidence,
                   finding.triage_severity, asked_by)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict."""
        return {"state": self.state, "reason": self.reason, "confidence": self.confidence,
                "severity": self.severity.value if self.severity else None,
                "asked_by": self.asked_by}

    @classmethod
    def from_json(cls, data: Any) -> StoredVerdict | None:
        """Inverse of :meth:`to_json`; None for anything else (then the check asks again)."""
        try:
            state = data["state"]
            if state not in _DECIDED:
                return None
            confidence = data.get("confidence")
            severity = data.get("severity")
            return cls(state, str(data["reason"]),
                       float(confidence) if confidence is not None else None,
                       Severity(severity) if severity else None, str(data["asked_by"]))
        except (KeyError, TypeError, ValueError):
            return None


class VerdictStore:
    """The verdicts of one session, under ``directory`` (in the session directory)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @staticmethod
    def key(*, check: str, model: str, finding: Finding, weakness: str,
            blob: str | None) -> str:
        """The key of ``finding``'s verdict: the check that gives it (triage or verifier),
        the model that answers, where the finding is, what weakness it names and the
        content of its file at the head revision (its blob id)."""
        parts = {"check": check, "model": model, "path": finding.path, "line": finding.line,
                 "weakness": weakness, "blob": blob}
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    @contextmanager
    def holding(self, keys: Sequence[str]) -> Iterator[None]:
        """Hold the lock of every key in ``keys`` (in key order: no two holders wait on each
        other), so that a verdict being asked for is asked once."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            for key in sorted(set(keys)):
                stack.enter_context(FileLock(str(self.directory / f"{key}.lock")))
            yield

    def get(self, key: str) -> StoredVerdict | None:
        """The stored verdict of ``key``, or None."""
        try:
            data = json.loads((self.directory / f"{key}.json").read_text())
        except (OSError, ValueError):
            return None
        return StoredVerdict.from_json(data)

    def put(self, key: str, verdict: StoredVerdict) -> None:
        """Store ``verdict`` under ``key`` (through the one output writer: never through a
        symbolic link). Best effort: a verdict that cannot be written is asked for again."""
        with suppress(OSError):
            write_text_atomic(self.directory / f"{key}.json", json.dumps(verdict.to_json()),
                              inside=self.directory)

    def reuse_or_ask(
        self, keys: Mapping[int, str], findings: tuple[Finding, ...], ask: Asker, *,
        asked_by: str,
    ) -> tuple[tuple[Finding, ...], dict[str, Any]]:
        """``findings`` with the verdict of each one ``keys`` names (by index): the stored one
        when another item already had it checked, else what ``ask`` decides for the rest
        (given them in order, it returns them in order with its usage record); the new
        verdicts are stored as asked by ``asked_by``. The locks of every key are held while
        asking."""
        if not keys:
            return ask(findings)
        with self.holding(list(keys.values())):
            stored = {i: self.get(key) for i, key in keys.items()}
            reused = {i: verdict.applied_to(findings[i])
                      for i, verdict in stored.items() if verdict is not None}
            checked, record = ask(tuple(f for i, f in enumerate(findings) if i not in reused))
            rest = iter(checked)
            merged = tuple(reused[i] if i in reused else next(rest)
                           for i in range(len(findings)))
            asker = one_line(asked_by)
            for i, key in keys.items():
                verdict = StoredVerdict.of(merged[i], asker) if i not in reused else None
                if verdict is not None:
                    self.put(key, verdict)
        if reused:
            record = {**record, "reused_verdicts": len(reused)}
        return merged, record
