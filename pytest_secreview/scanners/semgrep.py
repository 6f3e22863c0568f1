"""Semgrep: ``semgrep scan --json`` with the team's local rule files only.

Never the registry and never the network: configs are absolute paths to local files
(``auto``, ``p/...``, ``r/...`` and URLs are refused when the option is read), and every run
passes ``--metrics=off`` and ``--disable-version-check``. The changed files are passed as
explicit targets, so no ``.semgrepignore`` of the pull request can hide them, and
``--disable-nosem`` ignores the ``nosemgrep`` comments it may add.

Severity mapping (semgrep's ``extra.severity`` -> ours): CRITICAL -> CRITICAL,
ERROR and HIGH -> HIGH, WARNING and MEDIUM -> MEDIUM, INFO and LOW -> LOW, anything else ->
INFO. Confidence from ``metadata.confidence`` (HIGH/MEDIUM/LOW -> 0.9/0.6/0.3, default 0.6);
CWE from ``metadata.cwe``.
"""

from __future__ import annotations

import importlib.util
import shutil
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.severity import Severity
from ..rules.scanner_spec import INSTALL_HINT
from .base import (
    RawFinding,
    ScannerCrashed,
    ScanOutput,
    clean_env,
    confidence_of,
    cwe_of,
    scan_batches,
)

SEVERITY = {
    "CRITICAL": Severity.CRITICAL, "ERROR": Severity.HIGH, "HIGH": Severity.HIGH,
    "WARNING": Severity.MEDIUM, "MEDIUM": Severity.MEDIUM, "INFO": Severity.LOW,
    "LOW": Severity.LOW,
}

def executable() -> str | None:
    """The ``semgrep`` of the plugin's own environment, else the one on PATH."""
    local = Path(sysconfig.get_path("scripts")) / "semgrep"
    return str(local) if local.is_file() else shutil.which("semgrep")


class Semgrep:
    """The semgrep adapter."""

    name = "semgrep"

    def available(self) -> str | None:
        if importlib.util.find_spec("semgrep") is None or executable() is None:
            return f"semgrep is not installed; {INSTALL_HINT}"
        return None

    def scan(self, workdir: Path, home: Path, paths: Sequence[str], args: Sequence[str],
             configs: Sequence[Path], timeout: float) -> ScanOutput:
        program = executable()
        if program is None:
            raise ScannerCrashed(f"semgrep is not installed; {INSTALL_HINT}")
        env = clean_env(home, {
            "SEMGREP_SEND_METRICS": "off", "SEMGREP_ENABLE_VERSION_CHECK": "0",
            "SEMGREP_LOG_FILE": str(home / "semgrep.log"),
            "SEMGREP_SETTINGS_FILE": str(home / "settings.yml"),
            "SEMGREP_VERSION_CACHE_PATH": str(home / "version"),
        })
        config_args = [f"--config={c.resolve()}" for c in configs]
        # semgrep prefixes a local rule's id with its file's directory, dotted.
        prefixes = sorted({".".join(c.resolve().parent.parts[1:]) + "." for c in configs},
                          key=len, reverse=True)
        command = [program, "scan", "--json", "--quiet", "--metrics=off",
                   "--disable-version-check", "--disable-nosem", "--no-git-ignore",
                   *config_args, *args]
        return scan_batches("semgrep", command, paths, cwd=workdir, env=env, timeout=timeout,
                            read=lambda data: _read(data, prefixes))


def _read(data: dict[str, Any], prefixes: Sequence[str]
          ) -> tuple[list[RawFinding], dict[str, str], str]:
    errors = {str(error["path"]): str(error.get("message") or error.get("type"))
              for error in data.get("errors", [])
              if error.get("path") and str(error.get("level", "")).lower() == "error"}
    findings = [_finding(r, prefixes) for r in data.get("results", [])]
    return findings, errors, str(data.get("version", "")) or "unknown"


def _rule_id(check_id: str, prefixes: Sequence[str]) -> str:
    for prefix in prefixes:
        if check_id.startswith(prefix) and len(check_id) > len(prefix):
            return check_id[len(prefix):]
    return check_id


def _finding(result: dict[str, Any], prefixes: Sequence[str]) -> RawFinding:
    extra = result.get("extra") or {}
    metadata = extra.get("metadata") or {}
    line = int((result.get("start") or {}).get("line") or 1)
    end = int((result.get("end") or {}).get("line") or line)
    return RawFinding(
        path=str(result.get("path", "")),
        line=line,
        end_line=max(line, end),
        check_id=_rule_id(str(result.get("check_id", "")), prefixes),
        message=str(extra.get("message", "")),
        severity=SEVERITY.get(str(extra.get("severity", "")).upper(), Severity.INFO),
        confidence=confidence_of(metadata.get("confidence")),
        cwe=cwe_of(metadata.get("cwe")),
        more_info=_first(metadata.get("references")),
    )


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return str(value) if value else None
