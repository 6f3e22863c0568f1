"""Never green by mistake (issue 10 items 1, 2, 6): the merge of pattern and model findings,
``--secreview-unreviewed``, and the pytest behaviour users rely on (``--lf``/``--ff``,
``--collect-only``, a broken rule, the artifacts directory). Through pytester, in real
temporary git repositories, with a scripted model server on 127.0.0.1."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator

import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.problems import one_per_problem
from pytest_secreview.core.severity import Severity
from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_providers import FakeServer, FakeServers, Reply, openai_completion, openai_tool_call

Build = Callable[..., ReviewRepo]

#: A pattern that says HIGH, on a line the model judges CRITICAL.
SQL_RULE = textwrap.dedent(
    """\
    ---
    title: SQL injection
    severity: critical
    grep:
      any: ["execute\\\\("]
    detect:
      - pattern: "execute\\\\(f"
        message: f-string passed to execute
        severity: high
    ---
    Trace user input into the SQL string.
    """
)


def report(*findings: dict[str, object]) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings",
                                     json.dumps({"findings": list(findings)}))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def run(pytester: pytest.Pytester, *args: str, server: FakeServer | None = None,
        cache: bool = False) -> pytest.RunResult:
    argv = ["--secreview", "--base", "main", "--secreview-rules", "secreview/rules"]
    if not cache:
        argv += ["-p", "no:cacheprovider"]
    if server is not None:
        argv += ["--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url]
    return pytester.runpytest(*argv, *args)


# --------------------------------------------------------------------------------------
# item 1: a model's CRITICAL finding is never lost behind a pattern's HIGH one


def test_model_critical_on_a_pattern_high_line_fails_with_both_sources(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    server.queue(report({
        "severity": "CRITICAL", "title": "SQL injection from the q parameter", "path": "db.py",
        "line": 2, "explanation": "request.args['q'] reaches execute unescaped",
        "recommendation": "bind parameters", "exploit_scenario": "q=' OR 1=1 --",
    }))
    review_repo(rules={"sqli": SQL_RULE},
                pr={"db.py": "q = request.args['q']\ncur.execute(f'select {q}')\n"})
    result = run(pytester, server=server)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "db.py:2  CRITICAL  SQL injection from the q parameter" in out
    assert "source pattern+model:openai:gpt-4.1" in out
    assert "HIGH  f-string passed to execute" not in out  # one finding per location
    # The prompt lists what the pattern found but does not tell the model to stay silent.
    task = server.requests[0].json["messages"][1]["content"]
    assert "db.py:2 HIGH f-string passed to execute" in task
    assert "do not repeat" not in task.lower()


def _finding(severity: Severity, source: str, title: str, **extra: object) -> Finding:
    return Finding(rule="sqli", severity=severity, title=title, path="db.py", line=2,
                   source=source, **extra).with_fingerprint("cur.execute(f'select {q}')")  # type: ignore[arg-type]


def test_merge_keeps_the_more_severe_report_and_never_lowers_a_pattern() -> None:
    pattern = _finding(Severity.HIGH, "pattern", "f-string passed to execute",
                       recommendation="bind parameters")
    lower = _finding(Severity.LOW, "model:m", "probably fine", exploit_scenario="none")
    higher = _finding(Severity.CRITICAL, "model:m", "SQL injection")
    equal = _finding(Severity.HIGH, "scanner:bandit", "B608")
    assert one_per_problem([pattern, lower]) == [
        Finding(**{**pattern.__dict__, "source": "pattern+model:m", "exploit_scenario": "none",
                      "reports": 2})
    ]
    (merged,) = one_per_problem([pattern, higher, equal])
    assert (merged.severity, merged.title) == (Severity.CRITICAL, "SQL injection")
    assert merged.source == "pattern+model:m+scanner:bandit"
    assert merged.recommendation == "bind parameters"  # filled from the pattern's report
    other_line = Finding(rule="sqli", severity=Severity.LOW, title="x", path="db.py", line=9,
                         source="model:m")
    assert len(one_per_problem([pattern, other_line])) == 2


# --------------------------------------------------------------------------------------
# item 2: no model, no false comfort (--secreview-unreviewed)


def test_unreviewed_default_warns_and_lists_findings_of_skipped_items_once_per_reason(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"sqli": SQL_RULE},
                pr={"db.py": "cur.execute(f'select {q}')\n", "jobs.py": "cur.execute(sql)\n"})
    result = run(pytester)
    result.assert_outcomes(skipped=2)
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    assert out.count("rule needs a model and none is configured") == 1
    assert "2 x rule needs a model and none is configured" in out
    assert "sqli[db.py]  (1 deterministic finding(s), worst HIGH)" in out
    assert "      sqli[jobs.py]\n" in out + "\n"
    assert "warning: 2 item(s) could not be fully reviewed and were skipped" in out
    assert "--secreview-unreviewed=fail (recommended for CI)" in out


def test_unreviewed_skip_is_quiet(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"sqli": SQL_RULE}, pr={"db.py": "cur.execute(sql)\n"})
    result = run(pytester, "--secreview-unreviewed=skip")
    result.assert_outcomes(skipped=1)
    assert "warning:" not in result.stdout.str()


def test_unreviewed_fail_fails_an_item_without_a_model_and_says_why(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    review_repo(rules={"sqli": SQL_RULE}, pr={"db.py": "cur.execute(sql)\n"})
    monkeypatch.setenv("SECREVIEW_UNREVIEWED", "fail")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "not reviewed: rule sqli on db.py" in out
    assert "why: rule needs a model and none is configured" in out
    assert "--secreview-unreviewed=fail made this item fail" in out
    assert "failed, and not fully reviewed:" in out
    assert "Traceback" not in out
    summary = json.loads((pytester.path / "secreview-artifacts/report/summary.json").read_text())
    assert [n["path"] for n in summary["not_reviewed"]] == ["db.py"]


def test_unreviewed_fail_fails_a_provider_outage_skipped_by_on_error(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    refusal = Reply(400, {"error": {"message": "model gpt-4.1 does not exist"}})
    server.queue(refusal, refusal, refusal, refusal)
    review_repo(rules={"sqli": SQL_RULE}, pr={"db.py": "cur.execute(sql)\n"})
    skipped = run(pytester, "--secreview-on-error=skip", "-rs", server=server)
    skipped.assert_outcomes(skipped=1)
    assert "--secreview-on-error=skip" in skipped.stdout.str()
    failed = run(pytester, "--secreview-on-error=skip", "--secreview-unreviewed=fail",
                 server=server)
    failed.assert_outcomes(failed=1)
    assert "does not exist" in failed.stdout.str()
    assert "--secreview-unreviewed=fail made this item fail" in failed.stdout.str()


def test_unreviewed_fail_fails_a_file_too_large_to_review(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    huge = "x = 1  # generated\n" * 500_000  # ~10 MB, over the 8 MiB per-file limit
    review_repo(rules={"sqli": SQL_RULE}, pr={"gen/bundle.py": huge})
    result = run(pytester, "--secreview-unreviewed=fail")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "not reviewed: gen/bundle.py" in out
    assert "too large" in out


def test_unreviewed_bad_value_is_a_usage_error(pytester: pytest.Pytester,
                                               review_repo: Build) -> None:
    review_repo(rules={"sqli": SQL_RULE}, pr={"db.py": "cur.execute(sql)\n"})
    result = run(pytester, "--secreview-unreviewed=maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "choose one of fail, warn, skip" in result.stderr.str()


# --------------------------------------------------------------------------------------
# item 6: pytest behaviour users rely on

DEBUG_RULE = textwrap.dedent(
    """\
    ---
    title: Debug mode enabled
    severity: critical
    detect:
      - pattern: "debug\\\\s*=\\\\s*True"
        message: Debug mode enabled
    grep:
      any: ["debug"]
    ---
    """
)


def _outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Node id -> outcome word of every item line of a ``-v`` run, in run order."""
    found = {}
    for line in result.stdout.lines:
        if "::" in line and line.endswith("%]"):
            nodeid, outcome = line.split()[:2]
            found[nodeid] = outcome
    return found


@pytest.mark.parametrize("flag", ["--lf", "--ff"])
def test_last_failed_reruns_exactly_the_failed_items(
    pytester: pytest.Pytester, review_repo: Build, flag: str
) -> None:
    # A repository rule and a bundled one (whose file is not in the working tree) both fail.
    review_repo(rules={"debug": DEBUG_RULE},
                pr={"a.py": "debug = True\n", "b.py": "debug = False\n", "c.py": "debug = 0\n",
                    "k.py": f"KEY = '{aws_key_id()}'\n"})
    rules = ("--secreview-rules", ":bundled")
    first = _outcomes(run(pytester, *rules, "-v", cache=True))
    failed = [nodeid for nodeid, outcome in first.items() if outcome == "FAILED"]
    assert "secreview/rules/debug.md::debug[a.py]" in failed
    assert "rules/hardcoded-secrets.md::hardcoded-secrets[k.py]" in failed
    assert len(first) > len(failed)
    result = run(pytester, *rules, flag, "-v", cache=True)
    again = _outcomes(result)
    if flag == "--lf":
        assert sorted(again) == sorted(failed)
        assert f"{len(first) - len(failed)} deselected" in result.stdout.str()
    else:
        assert sorted(list(again)[:len(failed)]) == sorted(failed)
        assert sorted(again) == sorted(first)
    assert set(again.values()) == {"FAILED"} if flag == "--lf" else True
    assert f"rerun previous {len(failed)} failures" in result.stdout.str()


def test_a_broken_rule_is_one_error_item_listing_every_problem_and_the_others_run(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    broken = ("---\ntitle: Fine title\nseverity: urgent\nsevrity: high\n"
              "grep:\n  any: ['(unclosed', 'ok', '(?<=x)y']\n---\n")
    review_repo(rules={"debug": DEBUG_RULE, "broken": broken}, pr={"a.py": "debug = True\n"})
    result = run(pytester, "-rE")
    result.assert_outcomes(failed=1, errors=1)
    out = result.stdout.str()
    assert "ERROR secreview/rules/broken.md::invalid-rule" in out
    for problem in ("key 'severity'", "key 'sevrity': unknown key", "key 'grep.any.0'",
                    "key 'grep.any.2'"):
        assert problem in out, problem
    assert "Traceback" not in out
    # Even an empty diff is not "nothing to review" while a rule is broken.
    collected = run(pytester, "--collect-only", "-q")
    assert "secreview/rules/broken.md::invalid-rule" in collected.stdout.str()


def test_collect_only_says_collected_not_evaluated(pytester: pytest.Pytester,
                                                   review_repo: Build) -> None:
    review_repo(rules={"debug": DEBUG_RULE},
                pr={"a.py": "debug = True\n", "b.py": "debug = False\n"})
    result = run(pytester, "--collect-only", "-q")
    out = result.stdout.str()
    assert "collected 2 item(s), not evaluated (--collect-only)" in out
    assert "nothing to review" not in out
    assert "items: 0 passed" not in out
    assert result.ret == pytest.ExitCode.OK
    selected = run(pytester, "--collect-only", "-q", "-k", "a.py")
    assert "collected 1 item(s), not evaluated (--collect-only)" in selected.stdout.str()


def test_a_second_run_never_reviews_the_first_runs_artifacts(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    repo = review_repo(rules={"debug": DEBUG_RULE}, pr={"a.py": "debug = True\n"})
    run(pytester).assert_outcomes(failed=1)
    artifacts = pytester.path / "secreview-artifacts"
    assert (artifacts / "diff.patch").read_text().count("debug = True") == 1
    assert (artifacts / ".gitignore").read_text().splitlines()[-1] == "*"
    # Someone commits everything the run left behind (git add -A), then reviews again.
    repo.write("b.py", "debug = True  # second change\n")
    repo.commit("more")
    assert "secreview-artifacts" not in repo.git("ls-files")
    second = run(pytester, "--collect-only", "-q")
    ids = [line for line in second.stdout.lines if "::" in line]
    assert ids == ["secreview/rules/debug.md::debug[a.py]", "secreview/rules/debug.md::debug[b.py]"]


def test_an_existing_directory_of_the_team_is_not_ignored_wholesale(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, base={"docs/index.md": "docs\n"},
                pr={"a.py": "debug = True\n"})
    run(pytester, "--secreview-artifacts=docs").assert_outcomes(failed=1)
    assert not (pytester.path / "docs/.gitignore").exists()


def test_without_a_model_request_data_reaching_eval_fails_the_run(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    view = ("from flask import request\n\n\n@app.route('/calc')\ndef calc():\n"
            "    return str(eval(request.args['expr']))\n")
    review_repo(pr={"app/views.py": view})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", ":bundled")
    assert result.parseoutcomes()["failed"] == 1
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "app/views.py:6  CRITICAL  eval/exec runs request data as Python code" in (
        result.stdout.str())


def test_unreviewed_fail_also_fails_the_intent_audit_without_a_model(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"app.py": "import requests\nrequests.post('https://x.example', data=1)\n"})
    argv = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "-k", "intent",
            "--secreview-rules", ":bundled")
    pytester.runpytest(*argv).assert_outcomes(skipped=1, deselected=None)
    result = pytester.runpytest(*argv, "--secreview-unreviewed=fail")
    assert result.parseoutcomes()["failed"] == 1
    out = result.stdout.str()
    assert "not reviewed: the intent audit of the pull request" in out
    assert "intent audit needs a model" in out
