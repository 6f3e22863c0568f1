"""The pull request's pytest configuration cannot steer the review (issue 10, item 7):
settings come from the base revision's configuration resolved the way pytest would resolve it
there, gate settings never from the checkout's addopts, and selection options the pull
request slips into addopts stop the run."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
)
from tests.test_hostile import RULE, no_findings
from tests.test_plugin import DEBUG_RULE as DEBUG
from tests.test_plugin import run

Build = Callable[..., ReviewRepo]

@pytest.fixture
def servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


def _trusted_and_attacker(servers: FakeServers) -> tuple[FakeServer, FakeServer]:
    return servers.start(no_findings), servers.start(no_findings)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_addopts_cannot_send_the_api_key_to_another_server(
    pytester: pytest.Pytester, review_repo: Build, servers: FakeServers,
    monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...],
) -> None:
    trusted, attacker = _trusted_and_attacker(servers)
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": f"[pytest]\naddopts = --secreview-api-base={attacker.url}\n",
                    "db.py": "cur.execute(q)\n"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "trusted" * 4)
    monkeypatch.setenv("SECREVIEW_API_BASE", trusted.url)
    result = run(pytester, "--secreview-model", "openai:test", *workers)
    result.assert_outcomes(passed=1)
    assert attacker.requests == [], "the credential must never reach the PR's server"
    assert len(trusted.requests) == 1
    out = result.stdout.str()
    assert "this pull request changes addopts" in out
    assert "--secreview-api-base there were not used" in out


def test_the_api_base_from_the_real_command_line_is_used(
    pytester: pytest.Pytester, review_repo: Build, servers: FakeServers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trusted, other = _trusted_and_attacker(servers)
    review_repo(rules={"creds": RULE}, pr={"db.py": "cur.execute(q)\n"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "trusted" * 4)
    monkeypatch.setenv("SECREVIEW_API_BASE", other.url)
    run(pytester, "--secreview-model", "openai:test",
        f"--secreview-api-base={trusted.url}").assert_outcomes(passed=1)
    assert len(trusted.requests) == 1 and other.requests == []


@pytest.mark.parametrize("addopts", [
    "--secreview-fail-on=critical",
    "--secreview-rules-from=head",
    "--secreview-rules=nowhere",
])
def test_gate_settings_in_addopts_are_not_used(
    pytester: pytest.Pytester, review_repo: Build, addopts: str
) -> None:
    # The base asks for medium; the pull request's addopts would lower the bar, read its
    # weakened rule, point at no rules, or compare head with itself.
    weakened = DEBUG.replace('"debug\\\\s*=\\\\s*True"', '"never-matches-anything"')
    review_repo(rules={"debug": DEBUG},
                base={"pytest.ini": "[pytest]\nsecreview_fail_on = medium\n"},
                pr={"pytest.ini": "[pytest]\nsecreview_fail_on = medium\n"
                                  f"addopts = {addopts}\n",
                    "secreview/rules/debug.md": weakened,
                    "app.py": "debug = True\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "app.py:1  MEDIUM  Debug mode enabled" in result.stdout.str()


def test_the_range_cannot_come_from_addopts(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": "[pytest]\naddopts = --base=HEAD\n",
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    monkeypatch.setenv("SECREVIEW_BASE", "main")
    result = pytester.runpytest("--secreview", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules")
    result.assert_outcomes(failed=1)


def test_on_error_skip_in_addopts_is_not_used(
    pytester: pytest.Pytester, review_repo: Build, servers: FakeServers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = servers.start(lambda r: Reply(400, {"error": {"message": "bad model"}}))
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": "[pytest]\naddopts = --secreview-on-error=skip\n",
                    "db.py": "cur.execute(q)\n"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "trusted" * 4)
    result = run(pytester, "--secreview-model", "openai:test",
                 "--secreview-api-base", broken.url)
    result.assert_outcomes(errors=1)


@pytest.mark.parametrize("addopts", ['-m "not secreview"', "-k nothing", "--co",
                                     "--deselect secreview", "--splits 9 --group 9"])
def test_selection_in_the_prs_addopts_stops_the_run(
    pytester: pytest.Pytester, review_repo: Build, addopts: str
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": f"[pytest]\naddopts = {addopts}\n",
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "pytest.ini in this pull request adds" in err
    assert "`secreview` command" in err
    assert "nothing to review" not in result.stdout.str()


def test_a_pr_that_unloads_the_plugin_turns_the_run_red(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                pr={"pytest.ini": "[pytest]\naddopts = -p no:secreview\n",
                    "conf.py": f"K = '{aws_key_id()}'\n"})
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # --secreview is no longer known


def test_selection_from_the_base_or_the_command_line_is_the_jobs(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE},
                base={"pytest.ini": "[pytest]\naddopts = -m 'not slow'\n"},
                pr={"conf.py": f"K = '{aws_key_id()}'\n"})
    run(pytester).assert_outcomes(failed=1)


def test_deselected_review_items_are_counted_never_nothing_to_review(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"creds": RULE, "debug": DEBUG},
                pr={"conf.py": f"K = '{aws_key_id()}'\ndebug = True\n"})
    result = run(pytester, "-m", "not secreview")
    out = result.stdout.str()
    assert "2 review item(s) deselected" in out
    assert "nothing to review" not in out
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # not 0: nothing was judged
    partial = run(pytester, "-k", "creds")
    partial.assert_outcomes(failed=1)
    assert "1 review item(s) deselected" in partial.stdout.str()


def test_an_empty_pytest_ini_does_not_replace_the_bases_pyproject(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    pyproject = '[tool.pytest.ini_options]\nsecreview_fail_on = "medium"\n'
    review_repo(rules={"debug": DEBUG}, base={"pyproject.toml": pyproject},
                pr={"pytest.ini": "", "app.py": "debug = True\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "pytest read pytest.ini from this pull request" in out
    assert "at the base revision it reads pyproject.toml" in out


def test_deleting_the_bases_ini_file_does_not_drop_its_settings(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG},
                base={"tox.ini": "[pytest]\nsecreview_fail_on = medium\n"},
                pr={"tox.ini": None, "app.py": "debug = True\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "at the base revision it reads tox.ini" in result.stdout.str()


def test_settings_of_an_unchanged_configuration_apply_without_notes(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG},
                base={"setup.cfg": "[tool:pytest]\nsecreview_fail_on = medium\n"},
                pr={"app.py": "debug = True\n"})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "WARNING" not in result.stdout.str()
    assert "note:" not in result.stdout.str()
