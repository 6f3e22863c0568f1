"""External scanners as rules (rules/scanner-*.md): bandit and semgrep run for real, through
pytester, in real temporary git repositories.

CI installs them with the ``scanners`` extra (``.ci/run``); a test that needs one is skipped
with the reason only when it is absent.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.errors import RuleError
from pytest_secreview.rules.loader import bundled_rules_dir
from pytest_secreview.rules.parse import parse_rule
from pytest_secreview.scanners.semgrep import executable as semgrep_executable
from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]

needs_bandit = pytest.mark.skipif(importlib.util.find_spec("bandit") is None,
                                  reason="bandit is not installed (pip install -e '.[scanners]')")
needs_semgrep = pytest.mark.skipif(semgrep_executable() is None,
                                   reason="semgrep is not installed (pip install -e '.[scanners]')")

BANDIT_RULE = str(bundled_rules_dir() / "scanner-bandit.md")
SEMGREP_RULE = str(bundled_rules_dir() / "scanner-semgrep.md")

BASE_APP = textwrap.dedent("""\
    import subprocess


    def legacy(cmd):
        return subprocess.call(cmd, shell=True)


    def handler(request):
        return "ok"
    """)

PR_APP = textwrap.dedent("""\
    import subprocess


    def legacy(cmd):
        return subprocess.call(cmd, shell=True)


    def handler(request):
        x = request.args["cmd"]
        subprocess.call(x, shell=True)
        return "ok"
    """)

EVAL_RULE = textwrap.dedent("""\
    rules:
      - id: no-eval
        pattern: eval(...)
        message: eval of a value from the request
        languages: [python]
        severity: ERROR
        metadata:
          cwe: ["CWE-95: Improper Neutralization of Directives in Dynamically Evaluated Code"]
          confidence: HIGH
      - id: no-os-system
        pattern: os.system(...)
        message: shell command
        languages: [python]
        severity: WARNING
        metadata:
          cwe: "CWE-78: OS Command Injection"
          confidence: LOW
    """)


def review(pytester: pytest.Pytester, *args: str, subprocess: bool = False
           ) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Run the review; the pytest result and the JSON report's items by node id."""
    report = pytester.path / "report.json"
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = runner(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "--json-report",
        f"--json-report-file={report}", *args,
    )
    data = json.loads(report.read_text()) if report.exists() else {"tests": []}
    return result, {t["nodeid"]: t for t in data["tests"]}


def findings_of(items: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for t in items.values()
            for f in t.get("metadata", {}).get("secreview", {}).get("findings", [])]


# -- bandit ---------------------------------------------------------------------------------

@needs_bandit
def test_bandit_reports_the_added_shell_call_only(pytester: pytest.Pytester,
                                                  review_repo: Build) -> None:
    repo = review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP})
    # The working tree is not what is reviewed: the head commit is.
    (repo.path / "app.py").write_text(BASE_APP)
    result, items = review(pytester, "--secreview-rules", BANDIT_RULE,
                           "--secreview-fail-on=high")
    result.assert_outcomes(failed=1)
    (finding,) = [f for f in findings_of(items) if f["title"].startswith("B602")]
    assert finding["line"] == 10 and finding["path"] == "app.py"
    assert finding["source"] == "scanner:bandit" and finding["rule"] == "scanner-bandit"
    assert finding["severity"] == "HIGH" and finding["cwe"] == "CWE-78"
    assert finding["confidence"] == 0.9 and finding["fingerprint"]
    # The same call on an unchanged line (5) is not this pull request's doing.
    assert all(f["line"] != 5 for f in findings_of(items))
    assert "app.py:10  HIGH  B602" in result.stdout.str()
    (item,) = items.values()
    scanner = item["metadata"]["secreview"]["usage"]["scanner"]
    assert scanner["scanner"] == "bandit" and scanner["version"] and scanner["run"]


@needs_bandit
def test_a_pull_request_file_named_like_a_standard_module_never_runs_in_the_scan(
        pytester: pytest.Pytester, review_repo: Build, tmp_path: Path) -> None:
    # The scan's working directory holds the pull request's files: a `python -m bandit`
    # there would import this `locale.py` instead of the standard library's, running code
    # from the pull request in the CI job.
    marker = tmp_path / "pr-code-ran"
    evil = f"open({str(marker)!r}, 'w').write('ran')\n" + "raise SystemExit(0)\n"
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP, "locale.py": evil})
    result, items = review(pytester, "--secreview-rules", BANDIT_RULE,
                           "--secreview-fail-on=high")
    assert not marker.exists(), "the pull request's locale.py ran during the scan"
    assert any(f["title"].startswith("B602") for f in findings_of(items)), result.stdout.str()


@needs_bandit
def test_nosec_written_by_the_pull_request_does_not_hide_a_finding(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    hidden = PR_APP.replace("subprocess.call(x, shell=True)",
                            "subprocess.call(x, shell=True)  # nosec")
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": hidden})
    _result, items = review(pytester, "--secreview-rules", BANDIT_RULE)
    assert [f["line"] for f in findings_of(items) if f["title"].startswith("B602")] == [10]


@needs_bandit
def test_below_the_threshold_bandit_findings_are_reported_without_failing(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP})
    result, items = review(pytester, "--secreview-rules", BANDIT_RULE)
    result.assert_outcomes(passed=1)  # default --secreview-fail-on=critical; bandit tops at HIGH
    assert any(f["source"] == "scanner:bandit" for f in findings_of(items))


#: The bundled bandit rule with one changed file per item.
BANDIT_ONE_FILE_PER_ITEM = textwrap.dedent("""\
    ---
    title: Bandit, one file per item
    applies_to:
      file_extensions: [".py"]
    scanner:
      name: bandit
      args: ["--skip", "B101"]
      files_per_item: 1
    ---
    """)


@needs_bandit
def test_a_scanner_rule_makes_one_item_for_many_files_with_findings_per_file(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    files = {f"svc/mod{i}.py": PR_APP for i in range(3)}
    review_repo(base={"README.txt": "x\n", "svc/mod0.py": BASE_APP}, pr=files)
    result, items = review(pytester, "--secreview-rules", BANDIT_RULE,
                           "--secreview-fail-on=high")
    result.assert_outcomes(failed=1)
    (nodeid,) = items
    assert nodeid.endswith("rules/scanner-bandit.md::scanner-bandit[bandit:svc/mod0.py+2]")
    data = items[nodeid]["metadata"]["secreview"]
    assert data["paths"] == sorted(files)
    b602 = sorted((f["path"], f["line"]) for f in data["findings"]
                  if f["title"].startswith("B602"))
    # git reads mod1.py and mod2.py as copies of mod0.py's base: in each file only the new
    # handler lines are added, and the shell call on the unchanged line 5 is not reported.
    assert b602 == [("svc/mod0.py", 10), ("svc/mod1.py", 10), ("svc/mod2.py", 10)]
    assert all(f["source"] == "scanner:bandit" and f["rule"] == "scanner-bandit"
               for f in data["findings"])
    scanner = data["usage"]["scanner"]
    assert (scanner["files"], scanner["kept_on_added_lines"]) == (3, len(data["findings"]))


@needs_bandit
def test_scanner_items_are_grouped_by_the_rules_budget(pytester: pytest.Pytester,
                                                       review_repo: Build) -> None:
    files = {f"svc/mod{i}.py": PR_APP for i in range(3)}
    review_repo(base={"README.txt": "x\n"}, pr=files,
                rules={"bandit-each": BANDIT_ONE_FILE_PER_ITEM})
    result, items = review(pytester, "--secreview-rules", "secreview/rules",
                           "--secreview-fail-on=high")
    result.assert_outcomes(failed=3)
    assert sorted(items) == [f"secreview/rules/bandit-each.md::bandit-each[bandit:{p}]"
                             for p in sorted(files)]
    for nodeid, item in items.items():
        path = nodeid.split("[bandit:")[1].rstrip("]")
        assert {f["path"] for f in item["metadata"]["secreview"]["findings"]} == {path}


@needs_bandit
def test_each_scanner_runs_once_per_session_with_xdist(pytester: pytest.Pytester,
                                                       review_repo: Build) -> None:
    files = {f"svc/mod{i}.py": PR_APP for i in range(4)}
    # One file per item, so that both workers have scanner items to run.
    review_repo(base={"README.txt": "x\n"}, pr=files,
                rules={"bandit-each": BANDIT_ONE_FILE_PER_ITEM})
    # Untracked, so not part of the diff: a plugin recording which process evaluated each item.
    pytester.makepyfile(pidrecorder="""
        import os
        def pytest_runtest_setup(item):
            with open(os.path.join(str(item.config.invocation_params.dir), "pids.txt"), "a") as out:
                out.write(f"{os.getpid()}\\n")
    """)
    result, items = review(pytester, "--secreview-rules", "secreview/rules", "-n", "2",
                           "-p", "pidrecorder", subprocess=True)
    result.assert_outcomes(passed=4)
    pids = set((pytester.path / "pids.txt").read_text().split())
    assert len(pids) == 2  # both workers evaluated items...
    runs = {t["metadata"]["secreview"]["usage"]["scanner"]["run"] for t in items.values()}
    assert len(runs) == 1  # ...from one bandit run
    assert {f["path"] for f in findings_of(items)} == set(files)


@needs_bandit
def test_the_scanner_starts_when_collection_ends_and_its_findings_are_the_same(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # The scanner is a subprocess: started before the first item, it scans on another core
    # while the other items run, instead of making its first item wait for all of it.
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP},
                rules={"bandit": BANDIT_ONE_FILE_PER_ITEM})
    # Untracked, so not part of the diff: records the threads alive once collection ended
    # (trylast: after the plugin's own hook).
    pytester.makepyfile(threadrecorder="""
        import os, threading
        import pytest
        @pytest.hookimpl(trylast=True)
        def pytest_collection_finish(session):
            names = [t.name for t in threading.enumerate()]
            path = os.path.join(str(session.config.invocation_params.dir), "threads.txt")
            with open(path, "w") as out:
                out.write("\\n".join(names))
    """)
    pytester.syspathinsert()
    result, items = review(pytester, "--secreview-rules", "secreview/rules",
                           "-p", "threadrecorder")
    result.assert_outcomes(passed=1)  # HIGH, below the CRITICAL threshold
    assert "secreview-scanner-bandit" in (pytester.path / "threads.txt").read_text().split()
    assert [(f["path"], f["line"]) for f in findings_of(items)] == [("app.py", 10)]
    assert not any(t.name.startswith("secreview-scanner-") for t in threading.enumerate())


@needs_bandit
def test_a_crashing_scanner_is_an_error_with_its_redacted_stderr(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    key = aws_key_id()  # bandit echoes the bad value on stderr: it must not reach the log
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP},
                rules={"bandit": textwrap.dedent(f"""\
                    ---
                    title: Bandit with a bad argument
                    applies_to:
                      file_extensions: [".py"]
                    scanner:
                      name: bandit
                      args: ["--severity-level", "{key}"]
                    ---
                    """)})
    result, _items = review(pytester, "--secreview-rules", "secreview/rules")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "scanner bandit failed: bandit exited with status 2" in out
    assert "invalid choice" in out and key not in out


def test_a_scanner_that_is_not_installed_skips_with_the_install_hint(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What an environment without the extra looks like to the import system.
    monkeypatch.setitem(sys.modules, "bandit", None)
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": PR_APP})
    result, _items = review(pytester, "--secreview-rules", BANDIT_RULE, "-rs")
    result.assert_outcomes(skipped=1)
    assert "bandit is not installed" in result.stdout.str()
    assert "pip install 'pytest-secreview[scanners]'" in result.stdout.str()


@needs_bandit
def test_a_file_bandit_cannot_parse_is_skipped_with_the_reason(pytester: pytest.Pytester,
                                                               review_repo: Build) -> None:
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": "def broken(:\n    pass\n"})
    result, _items = review(pytester, "--secreview-rules", BANDIT_RULE, "-rs")
    result.assert_outcomes(skipped=1)
    assert "bandit could not scan app.py" in result.stdout.str()


# -- semgrep --------------------------------------------------------------------------------

SEMGREP_PR = textwrap.dedent("""\
    def legacy(expr):
        return eval(expr)


    def handler(request):
        return eval(request.args["q"])
    """)


@needs_semgrep
def test_semgrep_runs_the_teams_local_rule_file(pytester: pytest.Pytester,
                                                review_repo: Build, tmp_path: Path) -> None:
    config = tmp_path / "team-rules.yml"  # outside the repository: used as it is
    config.write_text(EVAL_RULE)
    review_repo(base={"app.py": "def legacy(expr):\n    return eval(expr)\n"},
                pr={"app.py": SEMGREP_PR + "\n\ndef run(os, cmd):\n    os.system(cmd)\n"})
    result, items = review(pytester, "--secreview-rules", SEMGREP_RULE,
                           f"--secreview-semgrep-config={config}", "--secreview-fail-on=high")
    result.assert_outcomes(failed=1)
    by_line = {f["line"]: f for f in findings_of(items)}
    assert sorted(by_line) == [6, 10]  # not line 2: eval there is unchanged
    found = by_line[6]
    assert found["source"] == "scanner:semgrep" and found["rule"] == "scanner-semgrep"
    assert found["title"] == "no-eval: eval of a value from the request"
    assert (found["severity"], found["confidence"], found["cwe"]) == ("HIGH", 0.9, "CWE-95")
    warning = by_line[10]
    assert (warning["severity"], warning["confidence"], warning["cwe"]) == ("MEDIUM", 0.3,
                                                                            "CWE-78")


@needs_semgrep
@pytest.mark.parametrize(("rules_from", "lines"), [("base", [2, 6]), ("head", [])])
def test_semgrep_config_in_the_repository_is_read_from_the_base_revision(
    pytester: pytest.Pytester, review_repo: Build, rules_from: str, lines: list[int]
) -> None:
    weakened = EVAL_RULE.replace("pattern: eval(...)", "pattern: never_called_anywhere(...)")
    repo = review_repo(base={"app.py": "x = 1\n", ".semgrep/rules.yml": EVAL_RULE},
                       pr={"app.py": SEMGREP_PR, ".semgrep/rules.yml": weakened})
    _result, items = review(pytester, "--secreview-rules", SEMGREP_RULE,
                            f"--secreview-semgrep-config={repo.path / '.semgrep'}",
                            f"--secreview-rules-from={rules_from}")
    # With rules from head (trusted branches only), the pull request's weakened rule is used.
    assert [f["line"] for f in findings_of(items) if f["path"] == "app.py"] == lines


@needs_semgrep
def test_a_semgrep_config_the_pull_request_adds_is_not_used(pytester: pytest.Pytester,
                                                             review_repo: Build) -> None:
    repo = review_repo(base={"app.py": "x = 1\n"},
                       pr={"app.py": SEMGREP_PR, ".semgrep/rules.yml": "rules: []\n"})
    result, _items = review(pytester, "--secreview-rules", SEMGREP_RULE, "-rs",
                            f"--secreview-semgrep-config={repo.path / '.semgrep'}")
    result.assert_outcomes(skipped=1)  # one item: app.py and the config file itself
    assert "rule files this pull request adds are used once it is merged" in result.stdout.str()


def test_semgrep_without_a_config_makes_no_item_and_the_summary_says_how_to_configure_it(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    # Nothing would run: no item (so --secreview-unreviewed=fail does not fail on it).
    files = {f"pkg/m{i:03}.py": SEMGREP_PR for i in range(150)}
    review_repo(base={"app.py": "x = 1\n"}, pr={"app.py": SEMGREP_PR, **files})
    result, items = review(pytester, "--secreview-rules", SEMGREP_RULE,
                           "--secreview-unreviewed=fail")
    assert items == {}
    assert result.ret == pytest.ExitCode.OK
    assert ("scanner-semgrep made no item: semgrep runs only with rule files your team names: "
            "pass --secreview-semgrep-config PATH") in result.stdout.str()


@pytest.mark.parametrize("config", ["auto", "p/python", "r/python.lang.security",
                                    "https://example.invalid/rules.yml"])
def test_semgrep_registry_configs_are_refused(pytester: pytest.Pytester, review_repo: Build,
                                              config: str) -> None:
    review_repo(base={"app.py": "x = 1\n"}, pr={"app.py": SEMGREP_PR})
    result, _items = review(pytester, "--secreview-rules", SEMGREP_RULE,
                            f"--secreview-semgrep-config={config}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "semgrep registry or remote config" in result.stderr.str()


# -- the rule key ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("scanner", "message"),
    [
        pytest.param("{name: pylint}", "scanner.name", id="unknown-scanner"),
        pytest.param("{name: bandit, args: [-f, csv]}", "'-f' is not allowed for bandit",
                     id="output-format"),
        pytest.param("{name: semgrep, args: [--config, auto]}", "'--config' is not allowed",
                     id="semgrep-config-in-rule"),
        pytest.param("{name: bandit, args: [--skip]}", "needs a value", id="missing-value"),
        pytest.param("{name: bandit, colour: red}", "unknown key", id="unknown-key"),
        pytest.param("{name: bandit, files_per_item: 0}", "scanner.files_per_item",
                     id="empty-items"),
    ],
)
def test_bad_scanner_keys_name_the_file_and_key(scanner: str, message: str) -> None:
    raw = f"---\ntitle: A scanner rule\nscanner: {scanner}\n---\n".encode()
    with pytest.raises(RuleError, match=r"rules/x\.md") as caught:
        parse_rule(raw, "rules/x.md")
    assert message in str(caught.value)


def test_bundled_scanner_rules_parse_as_deterministic_rules() -> None:
    for name in ("scanner-bandit", "scanner-semgrep"):
        rule = parse_rule((bundled_rules_dir() / f"{name}.md").read_bytes(), f"rules/{name}.md")
        assert rule.scanner is not None and not rule.needs_model


# -- the scanners see exactly the files the review chose --------------------------------------

#: Directories scanners leave out by default (bandit: CVS, .tox, .eggs, *.egg...; semgrep's
#: default ignore list: build, dist, .venv...) that the review chooses: a pull request can put
#: its code there. (Test and vendored code is out of the scanner rules by the review's own
#: default exclusions, tests/test_default_exclusions.py.)
HIDING_PLACES = ["CVS/app.py", ".tox/lib/app.py", "pkg.eggs/app.py", "dist/x.egg/app.py",
                 "src/.hg/app.py", "build/lib/app.py", ".venv/app.py"]


@needs_bandit
@pytest.mark.parametrize("path", HIDING_PLACES)
def test_bandit_scans_a_changed_file_wherever_it_lies(pytester: pytest.Pytester,
                                                       review_repo: Build, path: str) -> None:
    review_repo(pr={path: PR_APP})
    result, items = review(pytester, "--secreview-rules", BANDIT_RULE,
                           "--secreview-fail-on=high")
    result.assert_outcomes(failed=1)
    assert [f["line"] for f in findings_of(items) if f["title"].startswith("B602")] == [5, 10]


@needs_semgrep
@pytest.mark.parametrize("path", ["build/lib/app.py", ".tox/lib/app.py", ".venv/app.py",
                                  "dist/x.egg/app.py"])
def test_semgrep_scans_a_changed_file_wherever_it_lies(pytester: pytest.Pytester,
                                                        review_repo: Build, tmp_path: Path,
                                                        path: str) -> None:
    config = tmp_path / "team-rules.yml"
    config.write_text(EVAL_RULE)
    review_repo(pr={path: SEMGREP_PR})
    result, items = review(pytester, "--secreview-rules", SEMGREP_RULE,
                           f"--secreview-semgrep-config={config}", "--secreview-fail-on=high")
    result.assert_outcomes(failed=1)
    assert sorted(f["line"] for f in findings_of(items)) == [2, 6]

