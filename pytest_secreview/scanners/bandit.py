"""Bandit (Python): ``bandit -f json`` on the changed Python files.

Severity mapping (bandit's ``issue_severity`` -> ours): HIGH -> HIGH, MEDIUM -> MEDIUM,
LOW -> LOW, UNDEFINED -> INFO. Bandit has no critical level, so with the default
``--secreview-fail-on=critical`` its findings are reported without failing the item; a team
that wants bandit to gate sets ``--secreview-fail-on=high``. Confidence HIGH/MEDIUM/LOW ->
0.9/0.6/0.3. ``# nosec`` comments are ignored (``--ignore-nosec``): they are written by the
pull request under review.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.severity import Severity
from ..rules.scanner_spec import INSTALL_HINT
from .base import RawFinding, ScanOutput, clean_env, confidence_of, cwe_of, scan_batches

SEVERITY = {"HIGH": Severity.HIGH, "MEDIUM": Severity.MEDIUM, "LOW": Severity.LOW,
            "UNDEFINED": Severity.INFO}


#: An exclusion pattern that matches no repository path (see :meth:`Bandit.scan`).
NO_PATH = "//"


class Bandit:
    """The bandit adapter; runs ``python -m bandit`` of the plugin's own environment."""

    name = "bandit"

    def available(self) -> str | None:
        if importlib.util.find_spec("bandit") is None:
            return f"bandit is not installed in this Python environment; {INSTALL_HINT}"
        return None

    def scan(self, workdir: Path, home: Path, paths: Sequence[str], args: Sequence[str],
             configs: Sequence[Path], timeout: float) -> ScanOutput:
        # -P: the working directory (the pull request's files) is not on sys.path, so a
        # file named like a standard module (locale.py) is never imported in its place.
        # --exclude: bandit drops by default any path that contains "CVS", ".tox", ".eggs",
        # ".hg"... even when it is named on the command line, so a pull request could hide
        # code there. The scanner sees exactly the files the review chose: the one exclusion
        # is "//", which no repository path (never an empty component) contains.
        command = [sys.executable, "-P", "-m", "bandit", "--format", "json", "--quiet",
                   "--ignore-nosec", f"--exclude={NO_PATH}", *args]
        return scan_batches("bandit", command, paths, cwd=workdir, env=clean_env(home),
                            timeout=timeout, read=_read)


def _read(data: dict[str, Any]) -> tuple[list[RawFinding], dict[str, str], str]:
    errors = {str(error.get("filename", "")): str(error.get("reason", ""))
              for error in data.get("errors", [])}
    return [_finding(r) for r in data.get("results", [])], errors, _version()


def _version() -> str:
    try:
        return importlib.metadata.version("bandit")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _finding(result: dict[str, Any]) -> RawFinding:
    line = int(result.get("line_number") or 1)
    lines = [int(n) for n in result.get("line_range") or [line]]
    return RawFinding(
        path=str(result.get("filename", "")),
        line=line,
        end_line=max([line, *lines]),
        check_id=f"{result.get('test_id', '')} {result.get('test_name', '')}".strip(),
        message=str(result.get("issue_text", "")),
        severity=SEVERITY.get(str(result.get("issue_severity", "")).upper(), Severity.INFO),
        confidence=confidence_of(result.get("issue_confidence")),
        cwe=cwe_of(result.get("issue_cwe")),
        more_info=str(result.get("more_info") or "") or None,
    )
