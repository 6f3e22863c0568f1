"""The session's verdicts: one second look per finding per session, shared by every process.

Several items can report the same problem (the per-file items of several rules on one file,
each reporting the same template injection). Each would otherwise ask the triage or the
verifier again, for the same answer. A verdict is stored in the session directory (made by
the xdist controller, private to the session, handed to every worker), one file per finding,
keyed by which check gave it, the model, the finding's location, its weakness and the blob of
its file at the head revision, so a later item reuses it instead of asking.

A reused verdict is an :class:`~pytest_secreview.core.record.Answer` naming the item that
asked (``reused_from``): the item record makes it a ``reuse`` change of origin ``cache`` next
to the verdict's own changes, which ``core.decide`` judges as it judges a fresh one from the
same check (a model's answer never lowers a deterministic finding at or above the threshold).

While one process asks, every other process that needs the same verdict waits on its file
lock (taken in key order, so two items cannot wait on each other), then reads the answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..atomic import write_text_atomic
from ..core.findings import Finding
from ..core.record import Answer
from ..severity import one_line

__all__ = ["Asker", "VerdictStore"]

#: Asks a check about the findings it is given; returns its answers (by fingerprint) and its
#: usage record.
Asker = Callable[[tuple[Finding, ...]], tuple[dict[str, Answer], dict[str, Any]]]


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

    def get(self, key: str) -> Answer | None:
        """The stored answer of ``key``, marked reused from the item that asked; or None."""
        try:
            data = json.loads((self.directory / f"{key}.json").read_text())
            answer = Answer.from_json(data["answer"])
            return replace(answer, reused_from=str(data["asked_by"])) if answer else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, answer: Answer, asked_by: str) -> None:
        """Store ``answer`` under ``key``, as asked by the item ``asked_by`` (through the one
        output writer: never through a symbolic link). Best effort: an answer that cannot be
        written is asked for again."""
        with suppress(OSError):
            write_text_atomic(self.directory / f"{key}.json",
                              json.dumps({"answer": answer.to_json(), "asked_by": asked_by}),
                              inside=self.directory)

    def reuse_or_ask(
        self, keys: Mapping[int, str], findings: tuple[Finding, ...], ask: Asker, *,
        asked_by: str,
    ) -> tuple[dict[str, Answer], dict[str, Any]]:
        """The answer about each finding ``keys`` names (by index): the stored one, marked
        reused from the item that asked, when another item already had it checked, else what
        ``ask`` answers for the rest (given them in order); the new decided answers are
        stored as asked by ``asked_by``. The locks of every key are held while asking."""
        if not keys:
            return ask(findings)
        with self.holding(list(keys.values())):
            stored = {i: self.get(key) for i, key in keys.items()}
            reused = {findings[i].fingerprint: answer
                      for i, answer in stored.items() if answer is not None}
            answers, record = ask(tuple(f for f in findings if f.fingerprint not in reused))
            asker = one_line(asked_by)
            for i, key in keys.items():
                answer = answers.get(findings[i].fingerprint)
                if answer is not None and answer.decided:
                    self.put(key, answer, asker)
        if reused:
            record = {**record, "reused_verdicts": len(reused)}
        return {**answers, **reused}, record
