"""`secreview init`: the workflow it writes into a real repository passes zizmor, the starter
rule it writes parses and finds what it says, and it never replaces a file unasked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_secreview.cli import main as secreview
from pytest_secreview.cli import usage
from pytest_secreview.cli.init import (
    PLACEHOLDER_SOURCE,
    bundled_ids,
    render_workflow,
    source_from_direct_url,
)
from pytest_secreview.rules.parse import parse_rule
from tests.conftest import ReviewRepo
from tests.gitutil import GitRepo
from tests.test_workflow import _lint

COMMIT = "3" * 40
SOURCE = f"octo/pytest-secreview@{COMMIT}"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git = GitRepo(tmp_path / "service")
    git.write("app.py", "print('hello')\n")
    git.commit("base")
    return git.path


def _init(repo: Path, *args: str) -> int:
    return secreview(["init", "--repo", str(repo), *args])


@pytest.mark.parametrize(("provider", "shards"), [
    ("none", 1), ("vertex", 1), ("anthropic", 1), ("openai", 1), ("vertex", 3),
    ("anthropic", 2), ("none", 32),
])
def test_the_written_workflow_passes_zizmor(repo: Path, provider: str, shards: int,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _init(repo, "--provider", provider, "--shards", str(shards), "--source", SOURCE) == 0
    written = repo / ".github" / "workflows" / "secreview.yml"
    assert written.read_text() == render_workflow(provider, shards=shards, source=SOURCE)
    assert COMMIT in written.read_text() and "OWNER" not in written.read_text()
    out = capsys.readouterr().out
    assert "wrote .github/workflows/secreview.yml" in out
    assert "Secrets and variables" in out and "replace OWNER" not in out
    result = _lint(written.parent)
    assert result.returncode == 0, result.stdout + result.stderr


def test_without_a_known_source_it_writes_placeholders_and_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # This test environment installs pytest-secreview from a local directory, not from GitHub.
    assert _init(repo) == 0
    text = (repo / ".github" / "workflows" / "secreview.yml").read_text()
    assert text == render_workflow("none", source=PLACEHOLDER_SOURCE)
    assert f"replace OWNER and the commit {'0' * 40}" in capsys.readouterr().out


def test_it_refuses_to_replace_a_workflow_without_force(
    repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    workflow = repo / ".github" / "workflows" / "secreview.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("name: ours\n")
    assert _init(repo, "--source", SOURCE) == 2
    assert "secreview.yml already exists: pass --force to replace it" in capsys.readouterr().err
    assert workflow.read_text() == "name: ours\n"
    assert _init(repo, "--source", SOURCE, "--force") == 0
    assert workflow.read_text() == render_workflow("none", source=SOURCE)


def test_it_never_writes_through_a_symbolic_link(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "outside.yml"
    outside.write_text("kept\n")
    workflow = repo / ".github" / "workflows" / "secreview.yml"
    workflow.parent.mkdir(parents=True)
    workflow.symlink_to(outside)
    assert _init(repo, "--source", SOURCE, "--force") == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert outside.read_text() == "kept\n"


def test_a_refused_rule_writes_no_workflow_either(
    repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    rule = repo / "secreview" / "rules" / "team-http.md"
    rule.parent.mkdir(parents=True)
    rule.write_text("ours\n")
    assert _init(repo, "--source", SOURCE, "--rule", "team-http") == 2
    assert "team-http.md already exists" in capsys.readouterr().err
    assert not (repo / ".github").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--rule", "sql-injection"], "'sql-injection' is the id of a bundled rule"),
    (["--rule", "../escape"], "a rule id is lower-case letters, digits and hyphens"),
    (["--provider", "openai", "--shards", "2"], "use --shards 1 for an OpenAI-compatible"),
    (["--provider", "anthropic", "--model", "google/gemini-2.5-pro"],
     "is not a model of --provider anthropic: give anthropic:<model>"),
    (["--model", "openai:gpt-4.1"], "needs a --provider"),
    (["--shards", "33"], "--shards 33: give a whole number from 1 to 32"),
    (["--source", "octo/pytest-secreview@main"], "the full 40-character commit"),
])
def test_bad_input_is_a_usage_error_saying_what_to_give(
    repo: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert _init(repo, *args) == 2
    assert message in capsys.readouterr().err
    assert not (repo / ".github").exists() and not (repo / "secreview").exists()


def test_outside_a_repository_it_says_where_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert _init(tmp_path) == 2
    assert "is not inside a git repository" in capsys.readouterr().err


def test_the_starter_rule_parses_with_its_own_id(repo: Path) -> None:
    assert _init(repo, "--source", SOURCE, "--rule", "team-http-timeout") == 0
    path = repo / "secreview" / "rules" / "team-http-timeout.md"
    rule = parse_rule(path.read_bytes(), "secreview/rules/team-http-timeout.md")
    assert rule.id == "team-http-timeout" and rule.id not in bundled_ids()
    assert rule.detect and rule.instructions and rule.comment_template


def test_the_starter_rule_finds_a_request_without_a_timeout(
    review_repo: Callable[..., ReviewRepo], pytester: pytest.Pytester,
) -> None:
    start = review_repo(base={"app.py": "import requests\n"})
    assert _init(start.path, "--source", SOURCE, "--rule", "team-http-timeout") == 0
    start.commit("the team's rule, on the base branch")
    start.git("branch", "-f", "main", "HEAD")
    start.write("app.py", "import requests\n\nrequests.get(url)\n"
                          "requests.get(url, timeout=(3, 30))\n")
    start.commit("pull request")
    result = pytester.runpytest("--secreview", "--base", "main", "--json-report",
                                "--json-report-file=report.json", "-k", "team-http-timeout")
    findings = [finding for test in json.loads((pytester.path / "report.json").read_text())["tests"]
                for finding in test["metadata"]["secreview"]["findings"]]
    assert [(f["rule"], f["path"], f["line"]) for f in findings] == [
        ("team-http-timeout", "app.py", 3)], result.stdout.str()


def test_bundled_ids_are_the_bundled_pack() -> None:
    assert {"sql-injection", "hardcoded-secrets", "security-review"} <= bundled_ids()


@pytest.mark.parametrize(("record", "source"), [
    ({"url": "https://github.com/octo/pytest-secreview.git",
      "vcs_info": {"vcs": "git", "commit_id": COMMIT}}, f"octo/pytest-secreview@{COMMIT}"),
    ({"url": "https://github.com/octo/pytest-secreview",
      "vcs_info": {"vcs": "git", "commit_id": COMMIT, "requested_revision": "main"}},
     f"octo/pytest-secreview@{COMMIT}"),
    ({"url": "file:///work/pytest-secreview", "dir_info": {"editable": True}}, None),
    ({"url": "https://gitlab.com/octo/pytest-secreview",
      "vcs_info": {"vcs": "git", "commit_id": COMMIT}}, None),
    ({"url": "https://github.com/octo/x", "vcs_info": {"vcs": "git", "commit_id": "main"}},
     None),
])
def test_the_source_is_read_from_pips_record(record: dict[str, object],
                                            source: str | None) -> None:
    assert source_from_direct_url(json.dumps(record)) == source
    assert source_from_direct_url(None) is None and source_from_direct_url("{") is None


def test_the_command_is_listed() -> None:
    assert "init" in usage()


def test_the_documented_rule_example_parses_with_an_id_of_its_own() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    example = page[page.index("```markdown\n") + len("```markdown\n"):]
    example = example[:example.index("\n```\n") + 1]
    rule = parse_rule(example.encode(), "secreview/rules/orders-sql.md")
    assert rule.id == "orders-sql" and rule.id not in bundled_ids()
    assert rule.detect and rule.grep_removed and rule.comment_template


def test_the_starter_rule_passes_its_own_examples(
    repo: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert _init(repo, "--source", SOURCE, "--rule", "team-http-timeout") == 0
    capsys.readouterr()
    assert secreview(["test-rules", str(repo / "secreview" / "rules")]) == 0, (
        capsys.readouterr().out)
    rule = parse_rule((repo / "secreview" / "rules" / "team-http-timeout.md").read_bytes(),
                      "secreview/rules/team-http-timeout.md")
    assert len(rule.examples) == 3
