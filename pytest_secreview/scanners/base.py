"""The one interface every scanner adapter implements, and what a scan produces.

An adapter builds a command, runs it in a scratch directory that holds the changed files as
they are at the head revision, and parses the scanner's JSON into :class:`RawFinding` values
(scanner vocabulary: its check id, its severity already mapped to ours). Mapping onto the
Finding contract (rule id, fingerprint, changed lines) is :mod:`.session`'s job.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ..core.severity import Severity
from ..errors import SecreviewError

#: Scanner confidence words -> our 0..1 confidence (bandit's and semgrep's vocabulary).
CONFIDENCE = {"HIGH": 0.9, "MEDIUM": 0.6, "LOW": 0.3}
#: When a scanner states no confidence.
DEFAULT_CONFIDENCE = 0.6

#: How much of a crashed scanner's stderr the item error shows.
STDERR_TAIL = 2000

_CWE = re.compile(r"CWE-(\d+)", re.IGNORECASE)


class ScannerUnavailable(SecreviewError):
    """The scanner is not installed: its items are skipped with the install hint."""


class ScannerCrashed(SecreviewError):
    """The scanner ran and failed (bad exit status, unreadable output, time limit)."""


@dataclass(frozen=True)
class RawFinding:
    """One scanner result, before it is tied to a rule and the changed lines."""

    path: str  # repository-relative, POSIX
    line: int
    end_line: int
    check_id: str  # the scanner's own id, e.g. B602 or a semgrep rule id
    message: str
    severity: Severity
    confidence: float
    cwe: str | None = None
    more_info: str | None = None
    #: Set by a built-in scanner that compared the base and head revisions itself
    #: (:mod:`.builtin`): the finding is the pull request's on its line, added or not (a
    #: removed ``--require-hashes``), and this text identifies it across line shifts.
    anchor: str | None = None
    recommendation: str | None = None


@dataclass(frozen=True)
class ScanOutput:
    """What one scan of the changed files produced (JSON-safe: shared between processes)."""

    findings: tuple[RawFinding, ...]
    version: str
    seconds: float
    file_errors: dict[str, str] = field(default_factory=dict)  # path -> why it was not scanned
    run: str = ""  # a random id, the same in every process that reads this result

    def to_json(self) -> dict[str, Any]:
        """Plain data for the session's shared file."""
        return {
            "findings": [{**asdict(f), "severity": f.severity.value} for f in self.findings],
            "version": self.version, "seconds": self.seconds,
            "file_errors": dict(self.file_errors), "run": self.run,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScanOutput:
        """Inverse of :meth:`to_json`."""
        return cls(
            findings=tuple(RawFinding(**{**f, "severity": Severity(f["severity"])})
                           for f in data["findings"]),
            version=str(data["version"]), seconds=float(data["seconds"]),
            file_errors=dict(data.get("file_errors", {})), run=str(data.get("run", "")),
        )


class Adapter(Protocol):
    """One external scanner."""

    name: str

    def available(self) -> str | None:
        """None when the scanner can run here, else why not (with the install hint)."""

    def scan(self, workdir: Path, home: Path, paths: Sequence[str], args: Sequence[str],
             configs: Sequence[Path], timeout: float) -> ScanOutput:
        """Scan ``paths`` (relative to ``workdir``); ``home`` is a private scratch directory.
        Raises :class:`ScannerCrashed`."""


def cwe_of(value: Any) -> str | None:
    """``CWE-<n>`` from whatever a scanner writes (``{"id": 78}``, ``"CWE-95: Eval..."``,
    a list of those), or None."""
    if isinstance(value, dict):
        value = value.get("id")
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, int) and not isinstance(value, bool):
        return f"CWE-{value}" if value > 0 else None
    if isinstance(value, str):
        match = _CWE.search(value)
        return f"CWE-{match.group(1)}" if match else None
    return None


def confidence_of(word: Any) -> float:
    """Our confidence for a scanner's HIGH/MEDIUM/LOW."""
    return CONFIDENCE.get(str(word).upper(), DEFAULT_CONFIDENCE)


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a scanner runs with: no credentials of the CI job (tokens, keys), a
    private HOME (``home``) (scanners write settings and logs there), and no directory of
    the pull request's on Python's import path."""
    env = {key: os.environ[key] for key in ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
           if key in os.environ}
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), TMPDIR=str(home), XDG_CONFIG_HOME=str(home),
               XDG_CACHE_HOME=str(home), PYTHONIOENCODING="utf-8", NO_COLOR="1",
               # A scanner written in Python runs next to the pull request's files: never
               # with its working directory first on sys.path.
               PYTHONSAFEPATH="1")
    env.update(extra or {})
    return env


def run_command(command: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float,
                ok_codes: Sequence[int], name: str) -> tuple[bytes, float]:
    """Run a scanner; its stdout and the seconds it took. A bad exit status or the time limit
    is :class:`ScannerCrashed` with the tail of stderr (redacted)."""
    from ..tools.redaction import sanitize

    start = time.monotonic()
    try:
        proc = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise ScannerCrashed(f"{name} did not finish within {timeout:.0f}s") from None
    except OSError as exc:
        raise ScannerCrashed(f"{name} could not be started: {exc}") from None
    seconds = time.monotonic() - start
    if proc.returncode not in ok_codes:
        tail = proc.stderr.decode("utf-8", "replace")[-STDERR_TAIL:].strip()
        tail = sanitize(tail) or "(no output on stderr)"
        raise ScannerCrashed(f"{name} exited with status {proc.returncode}: {tail}")
    return proc.stdout, seconds


def batches(paths: Sequence[str], max_chars: int = 100_000) -> list[list[str]]:
    """``paths`` split so no command line gets near the system's argument limit."""
    out: list[list[str]] = [[]]
    size = 0
    for path in paths:
        if out[-1] and size + len(path) + 1 > max_chars:
            out.append([])
            size = 0
        out[-1].append(path)
        size += len(path) + 1
    return out


#: What an adapter reads from one JSON report: findings, unscanned paths (why), version.
ReportReader = Callable[[dict[str, Any]], tuple[list[RawFinding], dict[str, str], str]]


def scan_batches(name: str, command: Sequence[str], paths: Sequence[str], *, cwd: Path,
                 env: dict[str, str], timeout: float, read: ReportReader) -> ScanOutput:
    """Run ``command -- <paths>`` in batches (:func:`batches`) and join what ``read`` takes
    from each JSON report (paths as the scanner printed them: made relative here). Exit
    status 0 (no issue) and 1 (issues found) are success for every scanner here; anything
    else is :class:`ScannerCrashed`."""
    findings: list[RawFinding] = []
    errors: dict[str, str] = {}
    version = ""
    seconds = 0.0
    for batch in batches(paths):
        out, took = run_command([*command, "--", *batch], cwd=cwd, env=env, timeout=timeout,
                                ok_codes=(0, 1), name=name)
        seconds += took
        found, problems, batch_version = read(load_json_report(name, out))
        findings += (replace(f, path=relative_path(f.path)) for f in found)
        errors.update((relative_path(path), why) for path, why in problems.items())
        version = version or batch_version
    return ScanOutput(tuple(findings), version, seconds, errors)


def load_json_report(scanner: str, out: bytes) -> dict[str, Any]:
    """A scanner's JSON report from its standard output; :class:`ScannerCrashed` when it is
    anything else (a crash message, a truncated write)."""
    try:
        data = json.loads(out)
    except ValueError:
        raise ScannerCrashed(f"{scanner} printed something that is not its JSON report: "
                             + out[:200].decode("utf-8", "replace")) from None
    if not isinstance(data, dict):
        raise ScannerCrashed(f"{scanner}'s JSON report is not an object")
    return data


def relative_path(name: str) -> str:
    """A path the scanner printed, without the ``./`` it may put in front."""
    return name[2:] if name.startswith("./") else name
