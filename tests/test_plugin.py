"""The plugin end to end through pytester, in real temporary git repositories."""

from __future__ import annotations

import json
import os
import stat
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ReviewRepo, aws_key_id

SECRET_RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    category: secrets
    cwe: CWE-798
    applies_to:
      exclude: ["docs/**"]
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
        recommendation: Load credentials from the environment or a secret manager.
    ---
    """
)

DEBUG_RULE = textwrap.dedent(
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

MODEL_RULE = textwrap.dedent(
    """\
    ---
    title: SQL injection
    severity: high
    grep:
      any: ["execute\\\\("]
    ---
    Trace user input into the SQL string; report only exploitable concatenation.
    """
)

Build = Callable[..., ReviewRepo]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Review with the test's own rules only (not the bundled pack) unless told otherwise."""
    rules = () if "--secreview-rules" in args else ("--secreview-rules", "secreview/rules")
    return pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", *rules, *args
    )


def test_inert_without_flag_runs_no_git(pytester: pytest.Pytester, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "git-was-called"
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    pytester.makepyfile(test_one="def test_ok():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert not marker.exists()
    assert "= secreview =" not in result.stdout.str()


def test_the_review_session_is_registered_only_when_the_review_is_on(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"a.py": "x = 1\n"})
    off = pytester.parseconfigure("-p", "no:cacheprovider")
    on = pytester.parseconfigure("--secreview", "--base", "main", "-p", "no:cacheprovider")
    # Imported once the review is configured: the items' module marks them with its marker.
    from pytest_secreview.session import SESSION_PLUGIN, ReviewSession

    assert off.pluginmanager.get_plugin(SESSION_PLUGIN) is None
    assert isinstance(on.pluginmanager.get_plugin(SESSION_PLUGIN), ReviewSession)


def test_hardcoded_key_fails_with_location_and_fix(pytester: pytest.Pytester,
                                                   review_repo: Build) -> None:
    key = aws_key_id()
    review_repo(rules={"aws-key": SECRET_RULE},
                pr={"src/settings.py": f"REGION = 'eu'\nKEY = '{key}'\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "src/settings.py:2  CRITICAL  AWS access key id in source" in out
    assert "fix: Load credentials from the environment" in out
    assert key not in out.replace("AKIA[0-9A-Z]{16}", "")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_node_ids_are_rule_path_and_changed_file(pytester: pytest.Pytester,
                                                 review_repo: Build) -> None:
    key = aws_key_id()
    review_repo(
        rules={"aws-key": SECRET_RULE, "debug": DEBUG_RULE},
        pr={"b/app.py": "debug = True\n", "a/conf.py": f"K = '{key}'\n",
            "docs/x.md": f"{key}\n"},
    )
    result = run(pytester, "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == [
        "secreview/rules/aws-key.md::aws-key[a/conf.py]",
        "secreview/rules/debug.md::debug[a/conf.py]",
        "secreview/rules/debug.md::debug[b/app.py]",
    ]


def test_keyword_selects_by_rule_or_path(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"aws-key": SECRET_RULE, "debug": DEBUG_RULE},
                pr={"app.py": f"debug = True\nK = '{aws_key_id()}'\n"})
    run(pytester, "-k", "debug").assert_outcomes(passed=1, deselected=1)
    run(pytester, "-k", "aws").assert_outcomes(failed=1, deselected=1)


def test_below_threshold_reported_but_passes_until_fail_on_lowered(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    run(pytester).assert_outcomes(passed=1)
    result = run(pytester, "--secreview-fail-on", "medium")
    result.assert_outcomes(failed=1)
    assert "app.py:1  MEDIUM  Debug mode enabled" in result.stdout.str()


def test_rules_come_from_base_so_a_pr_cannot_weaken_them(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    weakened = SECRET_RULE.replace("AKIA[0-9A-Z]{16}", "NEVER_MATCHES")
    repo = review_repo(rules={"aws-key": SECRET_RULE},
                       pr={"secreview/rules/aws-key.md": weakened,
                           "conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "differ from the base revision" in result.stdout.str()
    # From head (a trusted branch only) the weakened rule is what runs.
    run(pytester, "--secreview-rules-from", "head", "--secreview-rules",
        str(repo.path / "secreview/rules")).assert_outcomes(passed=1)


def test_rules_added_by_the_pr_are_not_used(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(pr={"secreview/rules/aws-key.md": SECRET_RULE,
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester, "--secreview-rules", "secreview/rules")
    assert "added by this pull request and are not used" in result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result = run(pytester, "--secreview-rules", "secreview/rules",
                 "--secreview-rules", ":bundled")
    assert "added by this pull request and are not used" in result.stdout.str()


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        pytest.param("---\ntitle: [unclosed\n---\n", "invalid YAML", id="bad-yaml"),
        pytest.param("---\ntitle: Fine title\nseverity: urgent\n---\n", "key 'severity'",
                     id="bad-severity"),
        pytest.param("---\ntitle: Fine title\nsevrity: high\n---\n", "key 'sevrity': unknown key",
                     id="unknown-key"),
        pytest.param("---\ntitle: Fine title\ngrep:\n  any: ['(unclosed']\n---\n",
                     "key 'grep.any.0'", id="bad-regex"),
        pytest.param("---\ntitle: Fine title\ngrep:\n  any: ['(?<=x)y']\n---\n",
                     "look-around", id="lookaround-not-re2"),
        pytest.param("no frontmatter here\n", "missing YAML frontmatter", id="no-frontmatter"),
    ],
)
def test_broken_rule_is_an_error_item_naming_file_and_key(
    pytester: pytest.Pytester, review_repo: Build, broken: str, expected: str
) -> None:
    review_repo(rules={"aws-key": SECRET_RULE, "broken": broken},
                pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    out = result.stdout.str()
    assert "ERROR secreview/rules/broken.md::invalid-rule" in out
    assert expected in out
    assert "Traceback" not in out
    # The other rule still ran.
    result.assert_outcomes(failed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_rule_needing_a_model_makes_no_item_without_one_and_says_how_to_configure(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"sqli": MODEL_RULE},
                pr={"db.py": "cur.execute('select 1')\n"})
    result = run(pytester, "-rs", "--secreview-unreviewed=fail")
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    assert ("deterministic review: no model is configured, so patterns, dataflow and scanners "
            "ran; 1 rule(s) that need a model made no item (sqli)") in out
    assert "--secreview-model" in out


def test_deterministic_failure_is_not_hidden_by_a_missing_model(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    rule = SECRET_RULE + "Also check where the key is used.\n"
    review_repo(rules={"aws-key": rule}, pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "deterministic review: no model is configured" in result.stdout.str()


def test_empty_diff_is_nothing_to_review_and_exit_zero(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"aws-key": SECRET_RULE})
    result = run(pytester)
    assert result.ret == pytest.ExitCode.OK
    assert "nothing to review" in result.stdout.str()


def test_deleted_files_produce_no_items_and_binary_files_are_scanned_not_passed(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"aws-key": SECRET_RULE.replace('any: ["AKIA"]', "any: []")},
                base={"old.py": "x = 1\n"},
                pr={"old.py": None, "blob.bin": "\x00\x01AKIA\x00"})
    result = run(pytester, "-rs")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=1)
    out = result.stdout.str()
    assert ("not reviewed: 2 (listed in summary.md): 1 x binary file (git shows no text "
            "diff); 1 x deleted file") in out
    assert "blob.bin not reviewed: binary file" in out


def test_removed_lines_only_change_can_produce_items(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    rule = textwrap.dedent(
        """\
        ---
        title: Authentication decorator removed
        severity: critical
        grep:
          removed: ["@login_required"]
        detect:
          - pattern: "@login_required"
            on: removed
            message: Authentication check removed from an endpoint
        ---
        """
    )
    view = "@app.route('/admin')\n@login_required\ndef admin():\n    return 'ok'\n"
    review_repo(rules={"auth": rule}, base={"views.py": view},
                pr={"views.py": view.replace("@login_required\n", "")})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "views.py:2  CRITICAL  Authentication check removed" in result.stdout.str()


def test_catastrophic_rule_regex_on_a_long_line_is_bounded(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    rule = "---\ntitle: Pathological\nseverity: low\ngrep:\n  any: ['(a+)+b$']\n" \
           "detect:\n  - pattern: '(a|aa)+c'\n    message: never\n---\n"
    review_repo(rules={"patho": rule}, pr={"gen.txt": "a" * 200_000 + "x\n"})
    result = run(pytester)
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--secreview-fail-on", "urgent"], "unknown severity 'urgent'", id="fail-on"),
        pytest.param(["--secreview-rules-from", "pr"], "choose one of base, head", id="rules-from"),
        pytest.param(["--secreview-max-turns", "0"], "at least 1", id="max-turns"),
        pytest.param(["--secreview-rules", "nope/"], "no such file or directory", id="rules-path"),
    ],
)
def test_bad_option_values_are_usage_errors(
    pytester: pytest.Pytester, review_repo: Build, args: list[str], message: str
) -> None:
    review_repo(rules={"aws-key": SECRET_RULE}, pr={"a.py": "x = 1\n"})
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_not_a_git_repository_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "not inside a git repository" in result.stderr.str()


def test_unknown_base_ref_is_a_usage_error(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(pr={"a.py": "x = 1\n"})
    result = pytester.runpytest("--secreview", "--base", "origin/nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "origin/nope" in result.stderr.str()


def test_without_base_outside_actions_explains_base(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_BASE_REF", raising=False)
    review_repo(pr={"a.py": "x = 1\n"})
    result = pytester.runpytest("--secreview")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--base" in result.stderr.str()


def test_github_base_ref_resolves_origin_branch(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = review_repo(rules={"aws-key": SECRET_RULE}, pr={"c.py": f"K = '{aws_key_id()}'\n"})
    repo.git("update-ref", "refs/remotes/origin/main", "main")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    pytester.runpytest("--secreview", "--secreview-rules", "secreview/rules").assert_outcomes(
        failed=1
    )


def test_ini_and_env_settings_with_cli_precedence(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"},
                base={"pytest.ini": "[pytest]\nsecreview_fail_on = critical\n"})
    monkeypatch.setenv("SECREVIEW_FAIL_ON", "medium")
    run(pytester).assert_outcomes(passed=1)  # ini over env
    run(pytester, "--secreview-fail-on=low").assert_outcomes(failed=1)  # CLI over ini
    run(pytester, "-c", "/dev/null", "--rootdir", ".").assert_outcomes(failed=1)  # env alone
    monkeypatch.setenv("SECREVIEW", "1")
    pytester.runpytest("--base", "main", "--secreview-rules", "secreview/rules",
                       "--secreview-fail-on=low").assert_outcomes(failed=1)


def test_pr_test_files_are_not_collected_without_explicit_paths(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE},
                pr={"test_evil.py": "import os\ndebug = True\ndef test_x():\n    pass\n"})
    result = run(pytester)
    result.assert_outcomes()  # test code is out of the non-credential rules by default
    assert "test_x" not in result.stdout.str()
    assert "1 test code" in result.stdout.str()


def test_junit_and_json_report_carry_findings(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    junit_xml = pytester.path / "junit.xml"
    report = pytester.path / "report.json"
    review_repo(rules={"aws-key": SECRET_RULE}, pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    run(pytester, f"--junitxml={junit_xml}", "--json-report",
        f"--json-report-file={report}").assert_outcomes(failed=1)
    from junitparser import JUnitXml, Properties

    case = next(iter(next(iter(JUnitXml.fromfile(str(junit_xml))))))
    props = {p.name: p.value for p in case.child(Properties)}
    findings = json.loads(props["secreview_findings"])
    assert findings[0]["path"] == "conf.py" and findings[0]["line"] == 1
    data = json.loads(report.read_text())
    meta = data["tests"][0]["metadata"]["secreview"]
    assert meta["findings"][0]["severity"] == "CRITICAL"


def _outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if k != "seconds"}


def test_same_items_and_outcomes_under_xdist(pytester: pytest.Pytester, review_repo: Build) -> None:
    files = {f"svc/m{i}.py": ("debug = True\n" if i % 2 else f"K = '{aws_key_id()}'\n")
             for i in range(6)}
    review_repo(rules={"aws-key": SECRET_RULE, "debug": DEBUG_RULE}, pr=files)
    report = pytester.path / "r.json"
    serial = pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "--json-report",
        "--secreview-rules=secreview/rules",
        f"--json-report-file={report}")
    serial_data = json.loads(report.read_text())
    parallel = pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "-n", "2", "--json-report",
        "--secreview-rules=secreview/rules",
        f"--json-report-file={report}")
    parallel_data = json.loads(report.read_text())
    assert _outcomes(serial) == _outcomes(parallel) == {"failed": 3, "passed": 6}

    def by_id(data: dict[str, object]) -> dict[str, object]:
        tests = data["tests"]
        assert isinstance(tests, list)
        return {t["nodeid"]: (t["outcome"], t["metadata"]) for t in tests}

    assert by_id(serial_data) == by_id(parallel_data)
    assert "6 passed, 3 failed, 0 skipped, 0 error" in parallel.stdout.str()


def test_no_rules_at_all_is_a_usage_error_not_green(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"a.py": "x = 1\n"})
    (pytester.path / "empty-rules").mkdir()
    result = run(pytester, "--secreview-rules", "empty-rules")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "no rule files found" in result.stderr.str()


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    import subprocess
    import sys

    code = ("import sys, pytest_secreview.plugin; "
            "print(sorted(m for m in ('pydantic', 'httpx', 'yaml', 're2', 'google.auth') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_file_too_large_to_review_is_skipped_with_the_reason_never_passed(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    huge = "x = 1  # generated\n" * 500_000  # ~10 MB, over the 8 MiB per-file limit
    review_repo(rules={"debug": DEBUG_RULE}, pr={"gen/bundle.py": huge, "app.py": "y = 2\n"})
    result = run(pytester, "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    out = result.stdout.str()
    assert "gen/bundle.py not reviewed: the file's diff is too large to review" in out


def test_conftest_example_works_as_a_teams_conftest(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    example = Path(__file__).resolve().parent.parent / "conftest_example.py"
    accepted = SECRET_RULE.replace("title: Hard-coded AWS key", "id: tls-verification-disabled\n"
                                   "title: Hard-coded AWS key")
    review_repo(rules={"tls": accepted}, base={"conftest.py": example.read_text()},
                pr={"tools/local_dev_proxy.py": f"K = '{aws_key_id()}'\n",
                    "app.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    # The accepted risk is dropped by the example's filter; the same finding elsewhere fails.
    result.assert_outcomes(failed=1, passed=1)
    assert "app.py:1  CRITICAL" in result.stdout.str()
