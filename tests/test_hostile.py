"""A hostile pull request against the review itself: its ini file, its conftest.py, a forged
cache, long lines, workflow-command injection; and the fail-closed paths."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_no_findings,
)

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    grep:
      any: ["AKIA", "execute"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    Check where credentials and queries come from.
    """
)


def no_findings(request: Recorded) -> Reply:
    return openai_no_findings()


@pytest.fixture
def trusted() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start(no_findings)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


def test_a_pr_cannot_redirect_the_model_through_its_ini_file(
    pytester: pytest.Pytester, review_repo: Build, trusted: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeServers() as servers:
        attacker = servers.start(no_findings)
        base_ini = (f"[pytest]\nsecreview_model = openai:test\n"
                    f"secreview_api_base = {trusted.url}\n")
        hostile_ini = base_ini.replace(trusted.url, attacker.url) + "secreview_on_error = skip\n"
        review_repo(rules={"creds": RULE}, base={"pytest.ini": base_ini},
                    pr={"pytest.ini": hostile_ini, "db.py": "cur.execute(q)\n"})
        monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "trusted" * 4)
        result = run(pytester)
        result.assert_outcomes(passed=1)
        assert attacker.requests == [], "the credential must never reach the PR's server"
        assert len(trusted.requests) == 1
        out = result.stdout.str()
        assert "this pull request changes secreview_api_base, secreview_on_error" in out


def test_a_forged_cache_committed_by_the_pr_is_not_used(
    pytester: pytest.Pytester, review_repo: Build, trusted: FakeServer
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"db.py": "cur.execute(q)\n", "cache/00/forged.json": "{}"})
    result = run(pytester, "--secreview-model", "openai:test", "--secreview-api-base",
                 trusted.url, "--secreview-cache-dir", "cache")
    result.assert_outcomes(passed=1)
    assert "holds files committed in this pull request's head" in result.stdout.str()


def test_conftest_in_the_repository_does_not_break_the_plugin(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                base={"conftest.py": "", "sub/conftest.py": ""},
                pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "INTERNALERROR" not in result.stdout.str()


def test_a_pattern_finding_survives_a_failed_model_review(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    with FakeServers() as servers:
        broken = servers.start(lambda r: Reply(400, {"error": {"message": "bad model"}}))
        review_repo(rules={"creds": RULE}, pr={"conf.py": f"K = '{aws_key_id()}'\n"})
        for extra in ((), ("--secreview-on-error=skip",)):
            result = run(pytester, "--secreview-model", "openai:test", "--secreview-api-base",
                         broken.url, *extra)
            result.assert_outcomes(failed=1)
            out = result.stdout.str()
            assert "conf.py:1  CRITICAL  AWS access key id in source" in out
            assert "note: model review failed" in out


def test_code_after_a_long_padding_is_still_matched(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"min.js": " " * 50_000 + f"k='{aws_key_id()}'\n"})
    run(pytester).assert_outcomes(failed=1)


def test_newlines_in_paths_cannot_inject_workflow_commands(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"a\n::stop-commands::zz\n.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert not [line for line in result.stdout.lines if line.startswith("::stop-commands")]
    assert "a\\n::stop-commands::zz\\n.py" in result.stdout.str()


def test_denied_files_are_never_sent_to_the_model(
    pytester: pytest.Pytester, review_repo: Build, trusted: FakeServer
) -> None:
    review_repo(rules={"creds": RULE}, pr={".env.production": "DB=cur.execute(q)\n"})
    result = run(pytester, "--secreview-model", "openai:test", "--secreview-api-base",
                 trusted.url, "-rs")
    result.assert_outcomes(skipped=1)
    assert trusted.requests == []
    assert "not sent to the model" in result.stdout.str()


def test_setup_only_is_refused(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"creds": RULE}, pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester, "--setup-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--setup-only" in result.stderr.str()


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_max_cost_must_be_a_finite_amount(pytester: pytest.Pytester, review_repo: Build,
                                          value: str) -> None:
    review_repo(rules={"creds": RULE}, pr={"a.py": "x = 1\n"})
    result = run(pytester, "--secreview-max-cost", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_unwritable_output_path_is_reported_not_a_crash(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE}, pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester, "--secreview-sarif", "/proc/no/such/dir/r.sarif")
    result.assert_outcomes(failed=1)
    assert "output not written" in result.stdout.str()


def test_a_pr_that_changes_conftest_is_called_out(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"conftest.py": "def pytest_secreview_filter_finding():\n    return False\n",
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester, "--noconftest")
    result.assert_outcomes(failed=1)
    assert "this pull request changes conftest.py: not imported (--noconftest)" in (
        result.stdout.str())


def test_the_range_cannot_come_from_the_prs_ini_file(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": "[pytest]\nsecreview_base = HEAD\n",
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    result = pytester.runpytest("--secreview", "--secreview-rules", "secreview/rules")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini key secreview_base is not used" in result.stderr.str()
