"""The ``secreview`` command end to end (issue 10, item 5): the installed console script in a
real temporary git repository whose pull request tries to run its own code in the job."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_secreview.cli import main, usage
from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    """
)

DEBUG = textwrap.dedent(
    """\
    ---
    title: Debug mode enabled
    severity: medium
    applies_to:
      file_extensions: [".py"]
    detect:
      - pattern: "debug\\\\s*=\\\\s*True"
        message: Debug mode enabled
    ---
    """
)

SCRIPT = Path(sys.executable).parent / "secreview"


def secreview(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script the way a CI step does (no PYTHONPATH games)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTEST_ADDOPTS") and not k.startswith("SECREVIEW")}
    return subprocess.run([str(SCRIPT), *args], cwd=repo, env=env, capture_output=True,
                          text=True, check=False, timeout=300)


def hostile(marker: Path) -> dict[str, str | None]:
    """A pull request that runs code when pytest imports its conftest.py, loads a plugin named
    in its pytest.ini, puts a ``pytest.py`` first on sys.path, and deselects the review."""
    touch = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    return {
        "conftest.py": touch,
        "sub/conftest.py": touch,
        "evil_plugin.py": touch,
        "pytest.py": touch + "raise SystemExit(0)\n",
        "pytest.ini": "[pytest]\naddopts = -p evil_plugin -m 'not secreview'\npythonpath = .\n",
        "conf.py": f"K = '{aws_key_id()}'\n",
    }


def test_the_prs_code_never_runs_and_a_critical_finding_fails(
    review_repo: Build, tmp_path_factory: pytest.TempPathFactory
) -> None:
    marker = tmp_path_factory.mktemp("out") / "pr-code-ran"
    repo = review_repo(rules={"creds": RULE}, pr=hostile(marker))
    result = secreview(repo.path, "--base", "main", "--secreview-rules", "secreview/rules",
                       "-p", "no:cacheprovider")
    assert not marker.exists(), f"code from the pull request ran: {marker.read_text()}"
    assert result.returncode == 1, result.stdout + result.stderr
    assert "conf.py:1  CRITICAL  AWS access key id in source" in result.stdout
    assert "conftest.py, sub/conftest.py: not imported (--noconftest)" in result.stdout
    assert "pytest.ini: not read" in result.stdout


def test_with_xdist_workers_the_prs_code_never_runs(
    review_repo: Build, tmp_path_factory: pytest.TempPathFactory
) -> None:
    marker = tmp_path_factory.mktemp("out") / "pr-code-ran"
    repo = review_repo(rules={"creds": RULE}, pr=hostile(marker))
    result = secreview(repo.path, "--base", "main", "--secreview-rules", "secreview/rules",
                       "-n", "2")
    assert not marker.exists(), f"code from the pull request ran: {marker.read_text()}"
    assert result.returncode == 1, result.stdout + result.stderr


def test_a_clean_pull_request_exits_0(review_repo: Build) -> None:
    repo = review_repo(rules={"creds": RULE}, pr={"app.py": "print('hello')\n"})
    result = secreview(repo.path, "--base", "main", "--secreview-rules", "secreview/rules")
    assert result.returncode == 0, result.stdout + result.stderr


def test_settings_come_from_the_base_revisions_configuration(review_repo: Build) -> None:
    # The base asks for medium and above; the pull request deletes that file.
    repo = review_repo(rules={"debug": DEBUG},
                       base={"pyproject.toml": '[tool.pytest.ini_options]\n'
                                               'secreview_fail_on = "medium"\n'},
                       pr={"pyproject.toml": None, "app.py": "debug = True\n"})
    result = secreview(repo.path, "review", "--base", "main",
                       "--secreview-rules", "secreview/rules")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "fail on MEDIUM and above" in result.stdout


def test_json_report_is_loaded_when_asked_for(review_repo: Build, tmp_path: Path) -> None:
    repo = review_repo(rules={"creds": RULE}, pr={"app.py": "print('hello')\n"})
    report = tmp_path / "report.json"
    result = secreview(repo.path, "--base", "main", "--secreview-rules", "secreview/rules",
                       "--json-report", f"--json-report-file={report}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert report.is_file()


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == usage().strip()
    assert "review" in out and "(the default)" in out


def test_a_plain_pytest_run_warns_when_the_pr_changes_conftest(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"conftest.py": "X = 1\n", "conf.py": f"K = '{aws_key_id()}'\n",
                    "setup.py": "entry_points={'pytest11': ['x = x']}\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    section = out[out.index("= secreview ="):]
    first = section.splitlines()[1]
    assert first.startswith("WARNING: this pull request changes conftest.py: pytest imported")
    assert "pytest plugin entry points in setup.py" in section
    assert "PytestWarning: secreview: this pull request changes conftest.py" in out
