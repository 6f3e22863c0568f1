"""pytest-xdist workers take the controller's start-up (``handoff.Handoff``): the diff, the
trusted settings and the rule files. Observed from outside: a ``git`` first on PATH that logs
every command before running the real one, in a real repository, through pytester."""

from __future__ import annotations

import json
import os
import shutil
import stat
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent("""\
    ---
    title: Shell command built from a request
    severity: CRITICAL
    applies_to:
      file_extensions: [".py"]
    grep:
      any: ['shell=True']
    detect:
      - pattern: 'shell=True'
        message: shell=True on a changed line
    ---
    """)


def _logging_git(directory: Path, log: Path) -> Path:
    """A ``git`` that appends its arguments to ``log`` and runs the real git."""
    real = shutil.which("git")
    assert real is not None
    shim = directory / "git"
    directory.mkdir()
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return shim


def _outcomes(report: Path) -> dict[str, Any]:
    data = json.loads(report.read_text())
    return {t["nodeid"]: (t["outcome"], t.get("metadata", {}).get("secreview", {}).get(
        "findings")) for t in data["tests"]}


def test_workers_use_the_controllers_diff_and_report_what_a_serial_run_does(
    pytester: pytest.Pytester, review_repo: Build, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pr = {f"svc/mod{i}.py": f"import subprocess\n\n\ndef run{i}(cmd):\n"
                            f"    return subprocess.call(cmd, shell=True)\n" for i in range(6)}
    review_repo(base={"svc/__init__.py": ""}, pr=pr, rules={"shell": RULE})
    log = tmp_path / "git.log"
    shim = _logging_git(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    runs: dict[str, tuple[int, dict[str, Any]]] = {}
    for label, extra in (("serial", ("-n", "0")), ("parallel", ("-n", "2"))):
        log.write_text("")
        report = pytester.path / f"{label}.json"
        result = pytester.runpytest_subprocess(
            "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", "--json-report", f"--json-report-file={report}", *extra)
        result.assert_outcomes(failed=6)
        diffs = [line for line in log.read_text().splitlines() if " diff " in f" {line} "]
        runs[label] = (len(diffs), _outcomes(report))
    serial_diffs, serial = runs["serial"]
    parallel_diffs, parallel = runs["parallel"]
    assert serial_diffs >= 1
    # Without the hand-off each of the two workers would run git diff again (3 in all).
    assert parallel_diffs == serial_diffs
    assert parallel == serial
    assert len(serial) == 6 and all(outcome == "failed" for outcome, _ in serial.values())


def test_workers_take_the_controllers_ignore_file_instead_of_reading_it_again(
    pytester: pytest.Pytester, review_repo: Build, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pr = {f"svc/mod{i}.py": f"import subprocess\n\n\ndef run{i}(cmd):\n"
                            f"    return subprocess.call(cmd, shell=True)\n" for i in range(4)}
    review_repo(base={"svc/__init__.py": "", ".secreviewignore": "svc/mod0.py\n"}, pr=pr,
                rules={"shell": RULE})
    log = tmp_path / "git.log"
    shim = _logging_git(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    reads: dict[str, int] = {}
    for label, extra in (("serial", ("-n", "0")), ("parallel", ("-n", "2"))):
        log.write_text("")
        result = pytester.runpytest_subprocess(
            "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", *extra)
        result.assert_outcomes(failed=3)  # svc/mod0.py is ignored by the base revision
        reads[label] = sum(1 for line in log.read_text().splitlines()
                           if "ls-tree" in line and ".secreviewignore" in line)
    assert reads["serial"] >= 1
    # Without the hand-off each of the two workers would read it again.
    assert reads["parallel"] == reads["serial"]
