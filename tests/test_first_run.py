"""It works the first time (issue 21): pytest-native behaviour (item 6) and helpful errors
(item 8), each in a real temporary git repository."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pytest_secreview.cli import usage
from pytest_secreview.cli.comment import main as comment_main
from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServers
from tests.gitutil import GitRepo
from tests.test_plugin import DEBUG_RULE, run

Build = Callable[..., ReviewRepo]


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_the_plugins_warning_is_no_internal_error_under_filterwarnings_error(
    pytester: pytest.Pytester, review_repo: Build, workers: tuple[str, ...]
) -> None:
    # werkzeug's configuration: every warning is an error. The pull request changes a
    # conftest.py that pytest imported before the review started.
    review_repo(rules={"debug": DEBUG_RULE},
                base={"pytest.ini": "[pytest]\nfilterwarnings =\n    error\n"},
                pr={"conftest.py": "X = 1\n", "app.py": "debug = True\n"})
    result = run(pytester, *workers)
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out
    assert result.ret == pytest.ExitCode.OK  # the MEDIUM finding is under the threshold
    result.assert_outcomes(passed=2)
    # The warning is reported in pytest's warnings summary, and in the review's summary.
    summary = out.split("warnings summary", 1)[1]
    assert "PytestWarning: secreview: this pull request changes conftest.py" in summary
    assert "WARNING: this pull request changes conftest.py" in summary


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(args, capture_output=True, text=True, check=False, env=env,
                          timeout=120)


@pytest.mark.parametrize("entry", [
    (str(Path(sys.executable).parent / "secreview"),),
    (sys.executable, "-m", "pytest_secreview"),
], ids=["console-script", "python-m"])
def test_version_names_pytest_secreview(entry: tuple[str, ...]) -> None:
    result = _command(*entry, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"pytest-secreview {version('pytest-secreview')} (pytest {pytest.__version__})")


def test_python_m_pytest_secreview_is_the_secreview_command() -> None:
    result = _command(sys.executable, "-m", "pytest_secreview", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == usage().strip()


def test_a_shallow_clone_says_it_is_shallow_and_gives_fetch_depth_0(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    # What actions/checkout makes by default: one commit of the pull request, no base branch.
    upstream = GitRepo(tmp_path / "upstream")
    upstream.write("app.py", "x = 1\n")
    upstream.commit("base")
    upstream.branch("pr")
    upstream.write("app.py", "x = 2\n")
    upstream.commit("pull request")
    upstream.git("clone", "-q", "--depth", "1", "--branch", "pr", f"file://{upstream.path}",
                 str(pytester.path))
    result = pytester.runpytest("--secreview", "--base", "origin/main", "-p",
                                "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "shallow clone" in err
    assert "fetch-depth: 0" in err
    assert "git fetch origin main" not in err  # one commit deep, the base has no ancestor
    # The command-line remedy it gives works as written: the review then runs.
    remedy = "git fetch --unshallow origin main:refs/remotes/origin/main"
    assert remedy in " ".join(err.split())
    subprocess.run(remedy.split(), cwd=pytester.path, check=True, capture_output=True)
    rerun = pytester.runpytest("--secreview", "--base", "origin/main", "-p", "no:cacheprovider")
    assert rerun.ret == pytest.ExitCode.OK, rerun.stdout.str()


def test_two_rule_files_with_one_id_are_an_error_naming_both(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    copy = DEBUG_RULE.replace("title: Debug mode enabled", "id: debug\ntitle: Debug mode, again")
    review_repo(rules={"debug": DEBUG_RULE, "team/copy": copy},
                pr={"app.py": "debug = True\n"})
    result = run(pytester, "-rE")
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    assert ("secreview/rules/debug.md: key 'id': rule id 'debug' is also the id of "
            "secreview/rules/team/copy.md") in out
    assert ("secreview/rules/team/copy.md: key 'id': rule id 'debug' is also the id of "
            "secreview/rules/debug.md") in out


def test_a_rule_file_named_twice_is_one_rule(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    result = run(pytester, "--secreview-rules", "secreview/rules",
                 "--secreview-rules", "secreview/rules/debug.md")
    result.assert_outcomes(passed=1)


def test_own_rules_say_the_bundled_rules_are_not_used(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    only_own = run(pytester).stdout.str()
    assert ("rules: the bundled rules are not used (--secreview-rules names only "
            "secreview/rules); add --secreview-rules :bundled to use them as well") in only_own
    both = run(pytester, "--secreview-rules", "secreview/rules",
               "--secreview-rules", ":bundled").stdout.str()
    assert "the bundled rules are not used" not in both


def test_a_pattern_finding_says_in_words_what_it_found_never_its_regex(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    result = run(pytester, "--secreview-fail-on", "medium")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Debug mode enabled, on a line this pull request adds (Debug mode enabled)." in out
    assert "debug\\s*=" not in out
    report = (Path(pytester.path) / "secreview-artifacts" / "report" / "summary.json")
    assert "debug\\\\s*=" not in report.read_text()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_junit_names_read_naturally_with_a_one_line_failure_message(
    pytester: pytest.Pytester, review_repo: Build, workers: tuple[str, ...]
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    junit = Path(pytester.path) / "junit.xml"
    result = run(pytester, "--secreview-fail-on", "medium", f"--junitxml={junit}", *workers)
    result.assert_outcomes(failed=1)
    root = ElementTree.parse(junit).getroot()  # noqa: S314 - written by this test's own run
    cases = root.findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [("debug", "debug[app.py]")]
    failure = cases[0].find("failure")
    assert failure is not None
    assert failure.get("message") == "1 finding(s) at or above MEDIUM (Debug mode enabled)"
    assert "Debug mode enabled" in (failure.text or "")  # the details are in the body


def test_severities_are_coloured_when_the_terminal_supports_it(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    coloured = run(pytester, "--color=yes").stdout.str()
    assert "app.py:1  \x1b[33mMEDIUM\x1b[0m  Debug mode enabled  (debug)" in coloured
    plain = run(pytester, "--color=no").stdout.str()
    assert "app.py:1  MEDIUM  Debug mode enabled  (debug)" in plain
    assert "\x1b[" not in plain


def test_comment_dry_run_prints_the_markdown_of_each_comment(
    pytester: pytest.Pytester, review_repo: Build, capsys: pytest.CaptureFixture[str]
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    artifacts = "--secreview-artifacts=phased"
    run(pytester, "--secreview-stop-after=evaluate", artifacts, "--secreview-fail-on",
        "medium").assert_outcomes(failed=1)
    capsys.readouterr()
    status = comment_main(["--artifacts", "phased", "--dry-run", "--pr", "7", "--repo",
                           "acme/shop"], env={})
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "POST https://api.github.com/repos/acme/shop/issues/7/comments" in out
    markdown = out.split("--- the comment, as markdown ---\n", 1)[1]
    assert "    #### 🟡 **MEDIUM** · Debug mode enabled\n" in markdown


MODEL_ONLY = """\
---
title: Review the change
severity: high
applies_to:
  file_extensions: [".py"]
---
Look for security problems in the changed code.
"""


def test_a_skip_reason_appears_once_with_its_count(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # Four items whose model refuses every call, skipped under --secreview-on-error=skip:
    # one reason, shown once with its count.
    review_repo(rules={"review": MODEL_ONLY},
                pr={f"m{i}.py": f"x{i} = 1\n" for i in range(4)})
    with FakeServers() as running:
        result = run(pytester, "-rs", "--secreview-model", "openai:m", "--secreview-api-base",
                     running.start().url, "--secreview-on-error=skip", "--secreview-no-cache",
                     "--secreview-unreviewed=warn")
    result.assert_outcomes(skipped=4)
    skipped = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert skipped[0].startswith("SKIPPED [4] secreview/rules/review.md:1: not reviewed")
