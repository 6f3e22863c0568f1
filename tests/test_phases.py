"""The review one phase at a time (issue 15, item 4): ``secreview diff|rules|evaluate|comment|
report`` and ``--secreview-stop-after``/``--secreview-from-phase``, in real temporary git
repositories, with the installed ``secreview`` script, a fake GitHub REST server and (for the
model) a scripted OpenAI-compatible server. Run one by one, the phases give the report, SARIF
and PR comment of the single run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.diff.git import load_diff
from pytest_secreview.phases.diff_codec import diff_from_json, diff_to_json
from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_github import FakeGitHub, make_token
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)
from tests.test_outputs import DEBUG_RULE, IGNORE, SECRET_RULE, Build, without_timings
from tests.test_plugin_model import RULE as MODEL_RULE
from tests.test_plugin_model import report as model_report
from tests.test_plugin_model import sqli

SCRIPT = Path(sys.executable).parent / "secreview"
RULES = ("--secreview-rules", "secreview/rules")
PHASED = "out/phased"
_REQUEST = re.compile(r"^(POST|PATCH|PUT|DELETE) (\S+)$")


def secreview(repo: Path, *args: str, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a CI step runs it, with only ``env`` from GitHub."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")
             and not k.startswith(("SECREVIEW", "GITHUB_"))}
    return subprocess.run([str(SCRIPT), *args], cwd=repo, env={**clean, **(env or {})},
                          capture_output=True, text=True, check=False, timeout=300,
                          stdin=subprocess.DEVNULL)


def ok(result: subprocess.CompletedProcess[str], *codes: int) -> str:
    assert result.returncode in (codes or (0,)), result.stdout + result.stderr
    return result.stdout


@pytest.fixture
def project(review_repo: Build) -> ReviewRepo:
    files = {f"svc/m{i}.py": ("debug = True\n" if i % 2 else f"KEY = '{aws_key_id()}'\n")
             for i in range(4)}
    files["svc/m3.py"] = "debug = True\nq = 1\n"
    return review_repo(rules={"aws": SECRET_RULE, "debug": DEBUG_RULE},
                       base={".gitignore": IGNORE}, pr=files)


def fake_github(project: ReviewRepo, token: str) -> FakeGitHub:
    patches = {}
    for path in project.git("diff", "--name-only", "main...HEAD").split():
        text = project.git("diff", "main...HEAD", "--", path)
        patches[path] = text[text.index("@@"):]
    return FakeGitHub(token=token, files=patches, head_sha=project.git("rev-parse", "HEAD").strip())


def github_env(github: FakeGitHub, token: str) -> dict[str, str]:
    return {"GITHUB_TOKEN": token, "GITHUB_API_URL": github.api_url,
            "GITHUB_REPOSITORY": github.repository, "SECREVIEW_PR": str(github.number)}


def writes(github: FakeGitHub) -> list[tuple[str, str, bytes]]:
    """Every request that wrote to the fake GitHub: method, path, body bytes."""
    return [(r.method, r.path, r.raw) for r in github.requests if r.method != "GET"]


def outputs(root: Path, sarif: Path) -> tuple[Any, str, Any]:
    """summary.json (without timings), summary.md and the SARIF log of one review."""
    report = json.loads((root / "report" / "summary.json").read_text())
    return (without_timings(report), (root / "report" / "summary.md").read_text(),
            json.loads(sarif.read_text()))


def single_and_phased(project: ReviewRepo, extra: tuple[str, ...] = ()
                      ) -> tuple[Any, Any, list[Any], list[Any]]:
    """Review once in one run and once phase by phase (each against its own fake GitHub)."""
    repo, token = project.path, make_token()
    runs = {}
    with fake_github(project, token) as github:
        env = github_env(github, token)
        ok(secreview(repo, "--base", "main", *RULES, "--secreview-artifacts=out/single",
                     "--secreview-sarif=out/single.sarif", "--secreview-comment=all", *extra,
                     env=env), 1)
        runs["single"] = writes(github)
    with fake_github(project, token) as github:
        env = github_env(github, token)
        ok(secreview(repo, "diff", "--base", "main", *RULES, f"--secreview-artifacts={PHASED}",
                     env=env))
        # Later phases need neither --base nor --secreview-rules: they read the artifacts.
        ok(secreview(repo, "rules", *RULES, "--artifacts", PHASED, env=env))
        ok(secreview(repo, "evaluate", f"--artifacts={PHASED}", *extra, env=env), 1)
        ok(secreview(repo, "comment", "--artifacts", PHASED, "--comment", "all", env=env))
        ok(secreview(repo, "report", "--artifacts", PHASED, "--sarif", "out/phased.sarif",
                     "--junitxml", "out/phased.xml", "--out", "out/rendered/report", env=env), 1)
        runs["phased"] = writes(github)
    single = outputs(repo / "out" / "single", repo / "out" / "single.sarif")
    phased = outputs(repo / "out" / "rendered", repo / "out" / "phased.sarif")
    return single, phased, runs["single"], runs["phased"]


def test_phases_one_by_one_give_the_single_runs_report_sarif_and_comments(
    project: ReviewRepo
) -> None:
    single, phased, single_posts, phased_posts = single_and_phased(project)
    assert phased == single
    assert single[0]["outcomes"] == {"passed": 4, "failed": 2, "skipped": 0, "error": 0}
    assert [m for m, _p, _b in single_posts] == ["POST", "POST"], "one review, one summary"
    assert phased_posts == single_posts
    assert (project.path / PHASED / ".gitignore").read_text().endswith("*\n")
    artifacts = project.path / PHASED / "phases"
    assert sorted(p.name for p in artifacts.iterdir()) == [
        "comment.json", "diff.json", "evaluate.json", "junit.xml", "rules.json"]
    assert (project.path / "out" / "phased.xml").read_text().count("<testcase") == 6


@pytest.fixture
def model() -> Iterator[FakeServer]:
    """A scripted model: a finding on svc/m1.py, nothing elsewhere, whatever the order; the
    verifier's second look confirms it (a crash there would make the item's text carry a
    retry's elapsed seconds, which differ from run to run)."""

    def answer(request: Recorded) -> Reply:
        if any(t["function"]["name"] == "triage_findings" for t in request.json["tools"]):
            verdicts = [{"index": 1, "verdict": "confirm", "reason": "q reaches execute"}]
            return Reply(json=openai_completion(tool_calls=[openai_tool_call(
                "c1", "triage_findings", json.dumps({"verdicts": verdicts}))],
                finish_reason="tool_calls"))
        task = request.json["messages"][1]["content"]
        path = task.split("File: `", 1)[1].split("`", 1)[0]
        return model_report(sqli(path)) if path == "svc/m1.py" else model_report()

    with FakeServers() as running:
        yield running.start(answer)


def test_phases_with_a_scripted_model_match_the_single_run(review_repo: Build,
                                                           model: FakeServer) -> None:
    project = review_repo(rules={"creds": MODEL_RULE}, base={".gitignore": IGNORE}, pr={
        "svc/m0.py": "cur.execute(q)\n", "svc/m1.py": "cur.execute(f'{q}')\n",
        "svc/m2.py": "x = 1\n"})
    extra = ("--secreview-model", "openai:gpt-4.1", "--secreview-api-base", model.url,
             "--secreview-no-cache")
    single, phased, single_posts, phased_posts = single_and_phased(project, extra)
    assert phased == single
    assert single[0]["usage"]["model_calls"] > 0
    assert any(f["title"] == "SQL injection in search" for f in single[0]["findings"])
    assert phased_posts == single_posts
    # Rules and diff came from the artifacts: the model was asked once per item per run.
    calls = [r for r in model.requests if r.path.endswith("/chat/completions")]
    assert len(calls) == 2 * single[0]["usage"]["model_calls"]


def dry_run_requests(printed: str) -> list[tuple[str, str, bytes]]:
    """(method, URL, body) of each request ``secreview comment --dry-run`` printed."""
    lines = printed.split("\n")
    found = []
    for i, line in enumerate(lines):
        match = _REQUEST.match(line)
        if match:
            found.append((match[1], match[2], lines[i + 1].encode("ascii")))
    return found


def phases_up_to_evaluate(repo: Path, env: dict[str, str]) -> None:
    ok(secreview(repo, "diff", "--base", "main", *RULES, f"--secreview-artifacts={PHASED}",
                 env=env))
    ok(secreview(repo, "rules", f"--secreview-artifacts={PHASED}", *RULES, env=env))
    ok(secreview(repo, "evaluate", f"--secreview-artifacts={PHASED}", env=env), 1)


def test_comment_dry_run_prints_exactly_what_a_real_run_sends(project: ReviewRepo) -> None:
    token = make_token()
    with fake_github(project, token) as github:
        env = github_env(github, token)
        phases_up_to_evaluate(project.path, env)
        printed = ok(secreview(project.path, "comment", "--artifacts", PHASED, "--comment",
                               "all", "--dry-run", env=env))
        assert writes(github) == [], "a dry run writes nothing"
        ok(secreview(project.path, "comment", "--artifacts", PHASED, "--comment", "all",
                     env=env))
        sent = [(m, github.api_url + p, body) for m, p, body in writes(github)]
    assert dry_run_requests(printed) == sent
    assert len(sent) == 2 and token not in printed


def test_a_missing_or_stale_artifact_names_the_file_and_the_command(
    project: ReviewRepo
) -> None:
    repo = project.path
    missing = secreview(repo, "rules", *RULES, f"--secreview-artifacts={PHASED}")
    assert missing.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"{PHASED}/phases/diff.json, which does not exist: run `secreview diff` first" in (
        missing.stderr)
    no_evaluation = secreview(repo, "comment", "--artifacts", PHASED)
    assert no_evaluation.returncode == 2
    assert "diff.json, which does not exist: run `secreview diff` first" in no_evaluation.stderr

    ok(secreview(repo, "diff", "--base", "main", *RULES, f"--secreview-artifacts={PHASED}"))
    ok(secreview(repo, "rules", f"--secreview-artifacts={PHASED}"))
    report = secreview(repo, "report", "--artifacts", PHASED)
    assert report.returncode == 2
    assert "evaluate.json, which does not exist: run `secreview evaluate` first" in report.stderr
    ok(secreview(repo, "evaluate", f"--secreview-artifacts={PHASED}"), 1)
    unknown_pr = secreview(repo, "comment", "--artifacts", PHASED)
    assert unknown_pr.returncode == 2 and "needs the pull request: pass --pr N" in (
        unknown_pr.stderr)
    no_token = secreview(repo, "comment", "--artifacts", PHASED, "--pr", "7", "--repo", "o/r")
    assert no_token.returncode == 2 and "needs a token to post" in no_token.stderr

    diff_file = repo / PHASED / "phases" / "diff.json"
    original = diff_file.read_text()
    diff_file.write_text(original + "\n")  # as if `secreview diff` ran again in between
    stale = secreview(repo, "evaluate", f"--secreview-artifacts={PHASED}")
    assert stale.returncode == pytest.ExitCode.USAGE_ERROR
    assert "changed after `secreview rules` read it" in stale.stderr
    diff_file.write_text(original)

    project.write("svc/late.py", "debug = True\n")
    head = project.commit("a later push")
    moved = secreview(repo, "evaluate", f"--secreview-artifacts={PHASED}")
    assert moved.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"but the review is of {head[:12]}; run `secreview diff` again" in moved.stderr
    # The comment and report phases check the same thing: no publishing of the old head.
    for command in (("report", "--sarif", "out/stale.sarif"),
                    ("comment", "--dry-run", "--pr", "7", "--repo", "o/r")):
        refused = secreview(repo, *command, "--artifacts", PHASED)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert (f"{PHASED}/phases/diff.json is for head_sha" in refused.stderr
                and f"but the review is of {head[:12]}; run `secreview diff` again"
                in refused.stderr), refused.stderr
        assert refused.stdout == ""
    assert not (repo / "out" / "stale.sarif").exists()


def test_stop_after_and_from_phase_on_the_pytest_run(pytester: pytest.Pytester,
                                                     project: ReviewRepo) -> None:
    common = ("--secreview", "--base", "main", *RULES, "-p", "no:cacheprovider")
    single = pytester.runpytest_subprocess(*common, "--secreview-artifacts=out/single",
                                           "--secreview-sarif=out/single.sarif")
    single.assert_outcomes(failed=2, passed=4)
    # The short names are aliases of --secreview-stop-after/--secreview-from-phase.
    first = pytester.runpytest_subprocess(*common, "--stop-after", "rules",
                                          f"--secreview-artifacts={PHASED}")
    assert first.ret == 0 and "6 item(s) in" in first.stdout.str()
    first.assert_outcomes()
    evaluated = pytester.runpytest_subprocess(
        *common, "--from-phase", "evaluate", "--secreview-stop-after=evaluate",
        f"--secreview-artifacts={PHASED}")
    evaluated.assert_outcomes(failed=2, passed=4)
    assert not (project.path / PHASED / "report" / "summary.md").exists(), "report not run"
    reported = pytester.runpytest_subprocess(*common, "--secreview-from-phase=report",
                                             f"--secreview-artifacts={PHASED}",
                                             "--secreview-sarif=out/phased.sarif")
    assert reported.ret == 1, "the stored evaluation failed: so does the report phase"
    reported.assert_outcomes()
    assert (outputs(project.path / PHASED, project.path / "out" / "phased.sarif")
            == outputs(project.path / "out" / "single", project.path / "out" / "single.sarif"))

    backwards = pytester.runpytest_subprocess(*common, "--from-phase=comment",
                                              "--stop-after=rules")
    assert backwards.ret == pytest.ExitCode.USAGE_ERROR
    assert "comes after --secreview-stop-after=rules" in backwards.stderr.str()
    bad = pytester.runpytest_subprocess(*common, "--stop-after=triage")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "choose one of diff, rules, evaluate, comment, report" in bad.stderr.str()


def test_artifacts_committed_in_the_pull_request_are_never_read(review_repo: Build) -> None:
    forged = {"svc/m.py": "debug = True\n", "secreview-artifacts/phases/diff.json": "{}\n"}
    project = review_repo(rules={"debug": DEBUG_RULE}, pr=forged)
    for command in (("report",), ("comment", "--dry-run")):
        result = secreview(project.path, *command)
        assert result.returncode == 2
        assert "holds files committed in the checked-out revision" in result.stderr
    run = secreview(project.path, "--base", "main", *RULES, "--secreview-from-phase=report")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "holds files committed in the checked-out revision" in run.stderr


def test_the_stored_diff_is_the_diff(review_repo: Build) -> None:
    """Renames, deletions, binary files, CRLF lines and mode changes survive diff.json."""
    project = review_repo(
        base={"old.py": "a = 1\nb = 2\nc = 3\nd = 4\n", "gone.txt": "bye\n",
              "tool.sh": "echo hi\n"},
        pr={"old.py": None, "new.py": "a = 1\nb = 2\nc = 3\nd = 5\n", "gone.txt": None,
            "crlf.py": "x = 1\r\ny = 2\r\n"})
    (project.path / "blob.bin").write_bytes(b"\x00\x01binary")
    (project.path / "tool.sh").chmod(0o755)
    project.commit("more")
    diff = load_diff(project.path, "main")
    assert {f.kind.value for f in diff.files} >= {"renamed", "deleted", "added"}
    again = diff_from_json(json.loads(json.dumps(diff_to_json(diff))))
    assert again == diff
    assert [f.added_lines for f in again.files] == [f.added_lines for f in diff.files]


def test_the_model_triage_runs_in_the_rules_phase_only(pytester: pytest.Pytester,
                                                       review_repo: Build) -> None:
    from tests.test_triage import SQLI, _triage_answer, _triage_requests

    review_repo(rules={"sqli": SQLI},
                pr={"store/query.py": "def q(name):\n    return 'SELECT ' + name\n",
                    "db.py": "cur.execute(q)\n"})
    with FakeServers() as running:
        server = running.start(_triage_answer([
            {"rule": "sqli", "paths": ["store/query.py"], "reason": "builds queries by hand"}]))
        common = ("--secreview", "--base", "main", "-p", "no:cacheprovider", *RULES,
                  "--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url,
                  "--secreview-no-cache", "--secreview-triage=model")
        listed = pytester.runpytest(*common, "--secreview-stop-after=rules")
        assert listed.ret == 0
        asked = len(_triage_requests(server))
        assert asked > 0 and len(server.requests) == asked, "the rules phase evaluates nothing"
        stored = json.loads((pytester.path / "secreview-artifacts/phases/rules.json").read_text())
        assert [i["nodeid"] for i in stored["items"]] == [
            "secreview/rules/sqli.md::sqli[db.py]", "secreview/rules/sqli.md::sqli[store/query.py]"]
        evaluated = pytester.runpytest(*common, "--secreview-from-phase=evaluate")
        evaluated.assert_outcomes(passed=2)
        assert len(_triage_requests(server)) == asked, "the stored answer, not a new one"
    assert "model triage (git (no GitHub token and pull request known)): added 1 rule(s)" in (
        evaluated.stdout.str())


@pytest.mark.parametrize("ini", [
    pytest.param("[pytest]\naddopts = --secreview-from-phase=report\n", id="addopts"),
    pytest.param("[pytest]\nsecreview_from_phase = report\n", id="ini-key"),
])
def test_the_pull_requests_ini_cannot_choose_a_phase(pytester: pytest.Pytester,
                                                     review_repo: Build, ini: str) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, pr={"svc/m.py": "debug = True\n", "pytest.ini": ini})
    result = pytester.runpytest_subprocess("--secreview", "--base", "main", *RULES,
                                           "-p", "no:cacheprovider")
    if "addopts" in ini:
        result.assert_outcomes(passed=2)  # a whole review: the checkout's addopts are ignored
        assert "phases:" not in result.stdout.str()
    else:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert "ini key secreview_from_phase is not used" in result.stderr.str()


def test_help_says_which_ini_keys_are_command_line_or_env_only(
    pytester: pytest.Pytester
) -> None:
    from pytest_secreview.options import SPECS

    text = pytester.runpytest("--help").stdout.str()
    ini_part = text.split("[pytest] configuration options", 1)[1]
    # Each ini key's help, its wrapped lines joined.
    helps = {m.group(1): " ".join(m.group(2).split()) for m in re.finditer(
        r"^  (secreview_\w+) \(\w+\):\s*(.*?)(?=^  \S|\Z)", ini_part, re.M | re.S)}
    for spec in SPECS:
        if not spec.from_ini:
            assert f"command line or {spec.env} only" in helps[spec.dest], helps[spec.dest]
            assert f"command line or {spec.env} only" in " ".join(text.split(
                "[pytest] configuration options", 1)[0].split())
    assert "never an ini file" not in helps["secreview_model"]


def raw_workflow_commands(printed: str) -> list[str]:
    """Lines the GitHub Actions runner would take as a command that is not one of the review's
    own annotations: a legacy ``##[`` anywhere, or a line opening with ``::``."""
    raw = []
    for line in printed.splitlines():
        ours = re.match(r"::(error|warning|notice) file=[^:]*::", line.lstrip())
        if ("##[" in line or line.lstrip().startswith("::")) and not ours:
            raw.append(line)
    return raw


def test_commands_outside_the_pytest_run_print_no_workflow_command_from_the_pr(
    review_repo: Build, monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = f"KEY = '{aws_key_id()}'\n"
    project = review_repo(rules={"aws": SECRET_RULE}, base={".gitignore": IGNORE},
                          pr={"svc/##[error]pwned.py": key})
    token = make_token()
    with fake_github(project, token) as github:
        env = {**github_env(github, token), "GITHUB_ACTIONS": "true"}
        phases_up_to_evaluate(project.path, env)
        printed = [ok(secreview(project.path, "comment", "--artifacts", PHASED, "--comment",
                                "all", "--dry-run", env=env)),
                   ok(secreview(project.path, "report", "--artifacts", PHASED, env=env), 1)]
        # Unchecked (no SECREVIEW_RUN_KEY here), so that the merged report prints the PR's text.
        merged = secreview(project.path, "report", "--merge", f"{PHASED}/report",
                           "--trust-unbound-shards", "--out", "out/merged", "--dry-run",
                           "--comment", "all", env=env)
        printed.append(ok(merged, 1) + merged.stderr)
    for output in printed:
        assert "pwned" in output or "merged" in output
        assert raw_workflow_commands(output) == []
