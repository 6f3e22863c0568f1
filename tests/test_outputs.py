"""Results where teams look, end to end through the plugin: summary.json, summary.md, SARIF,
artifacts, GitHub Actions, and the PR comment against a fake GitHub server, with and without
xdist."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import DEBUG_RULE, SARIF_SCHEMA, ReviewRepo, aws_key_id
from tests.fake_github import FakeGitHub, make_token

Build = Callable[..., ReviewRepo]
ROOT = Path(__file__).resolve().parent.parent

SECRET_RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    cwe: CWE-798
    documentation_link: https://cwe.mitre.org/data/definitions/798.html
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
        recommendation: Load it from the environment.
    ---
    """
)
IGNORE = ".pytest_cache/\nsecreview-artifacts/\nout/\n"


@pytest.fixture
def token() -> str:
    return make_token()


@pytest.fixture
def project(review_repo: Build) -> ReviewRepo:
    files = {f"svc/m{i}.py": (f"KEY = '{aws_key_id()}'\n" if i % 2 else "debug = True\n")
             for i in range(4)}
    return review_repo(rules={"aws": SECRET_RULE, "debug": DEBUG_RULE},
                       base={".gitignore": IGNORE}, pr=files)


@pytest.fixture
def github(project: ReviewRepo, token: str) -> Iterator[FakeGitHub]:
    patches = {}
    for path in ("svc/m0.py", "svc/m1.py", "svc/m2.py", "svc/m3.py"):
        text = project.git("diff", "main...HEAD", "--", path)
        patches[path] = text[text.index("@@"):]
    head = project.git("rev-parse", "HEAD").strip()
    with FakeGitHub(token=token, files=patches, head_sha=head) as fake:
        yield fake


def review(pytester: pytest.Pytester, *args: str, env: dict[str, str] | None = None
           ) -> pytest.RunResult:
    for key, value in (env or {}).items():
        pytester._monkeypatch.setenv(key, value)
    return pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "--secreview-rules", "secreview/rules",
        "--secreview-fail-on", "critical", *args)


def github_env(github: FakeGitHub, token: str) -> dict[str, str]:
    return {"GITHUB_TOKEN": token, "GITHUB_API_URL": github.api_url,
            "GITHUB_REPOSITORY": github.repository, "SECREVIEW_PR": str(github.number)}


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if k not in ("wall_seconds", "duration")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def test_report_files_are_identical_with_and_without_xdist(
    pytester: pytest.Pytester, project: ReviewRepo
) -> None:
    outputs = {}
    for label, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        out = pytester.path / "out" / label
        review(pytester, f"--secreview-artifacts={out}", f"--secreview-sarif={out}/r.sarif",
               *extra).assert_outcomes(failed=2, passed=4)
        summary = json.loads((out / "report" / "summary.json").read_text())
        outputs[label] = (
            without_timings(summary),
            (out / "report" / "summary.md").read_text(),
            (out / "r.sarif").read_text(),
            sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()),
        )
    assert outputs["serial"] == outputs["parallel"]


def test_summary_json_sarif_and_artifacts(pytester: pytest.Pytester, project: ReviewRepo) -> None:
    out = pytester.path / "out"
    result = review(pytester, f"--secreview-artifacts={out}", f"--secreview-sarif={out}/r.sarif")
    result.assert_outcomes(failed=2, passed=4)
    summary = json.loads((out / "report" / "summary.json").read_text())
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(summary, schema)
    assert summary["schema_version"] == "1"
    assert summary["outcomes"] == {"passed": 4, "failed": 2, "skipped": 0, "error": 0}
    assert [f["severity"] for f in summary["findings"]] == ["CRITICAL", "CRITICAL", "MEDIUM",
                                                            "MEDIUM"]
    sarif = json.loads((out / "r.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"aws", "debug"}
    markdown = (out / "report" / "summary.md").read_text()
    assert "AWS access key id in source" in markdown
    assert (out / "diff.patch").exists() and (out / "rules" / "secreview/rules/aws.md").exists()
    tasks = sorted(out.glob("items/*/task.json"))
    evaluations = sorted(out.glob("items/*/evaluation.json"))
    assert len(tasks) == len(evaluations) == 6
    task = json.loads(tasks[0].read_text())
    assert {"rule", "path", "hunks", "sent"} <= set(task)
    every_file = "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert aws_key_id() not in every_file, "secrets must be redacted in every output"


def test_github_actions_step_summary_and_annotations(
    pytester: pytest.Pytester, project: ReviewRepo
) -> None:
    step_summary = pytester.path / "out" / "step.md"
    step_summary.parent.mkdir()
    result = review(pytester, env={"GITHUB_ACTIONS": "true",
                                   "GITHUB_STEP_SUMMARY": str(step_summary)})
    out = result.stdout.str()
    assert "::error file=svc/m1.py,line=1" in out
    assert "::warning file=svc/m0.py,line=1" in out
    assert "AWS access key id in source" in step_summary.read_text()
    assert aws_key_id() not in out


@pytest.mark.parametrize("workers", [pytest.param((), id="serial"),
                                     pytest.param(("-n", "2"), id="xdist")])
def test_rerun_keeps_one_summary_comment_and_posts_no_duplicate_inline_comment(
    pytester: pytest.Pytester, project: ReviewRepo, github: FakeGitHub, token: str,
    workers: tuple[str, ...],
) -> None:
    env = github_env(github, token)
    for _ in range(2):
        review(pytester, "--secreview-comment=all", *workers, env=env).assert_outcomes(
            failed=2, passed=4)
    assert len(github.summary_comments()) == 1
    fingerprints = [c["body"].split("finding:")[1].split(" ")[0] for c in github.review_comments]
    assert len(fingerprints) == len(set(fingerprints)) > 0
    body = github.summary_comments()[0]["body"]
    assert "AWS access key id in source" in body and aws_key_id() not in body
    assert all(r.headers["authorization"] == f"Bearer {token}" for r in github.requests)


def test_fork_token_cannot_write_and_outcomes_do_not_change(
    pytester: pytest.Pytester, project: ReviewRepo, github: FakeGitHub, token: str
) -> None:
    github.read_only = True
    result = review(pytester, "--secreview-comment=all", env=github_env(github, token))
    result.assert_outcomes(failed=2, passed=4)
    assert "Resource not accessible" in result.stdout.str() or "403" in result.stdout.str()
    assert token not in result.stdout.str()


def test_dry_run_writes_requests_instead_of_sending(
    pytester: pytest.Pytester, project: ReviewRepo, github: FakeGitHub
) -> None:
    out = pytester.path / "out"
    env = {"GITHUB_API_URL": github.api_url, "GITHUB_REPOSITORY": github.repository,
           "SECREVIEW_PR": str(github.number)}
    review(pytester, "--secreview-comment=all", "--secreview-dry-run",
           f"--secreview-artifacts={out}", env=env).assert_outcomes(failed=2, passed=4)
    written = sorted((out / "github-requests").glob("*.json"))
    assert written, "the requests that would be sent are written"
    bodies = [json.loads(p.read_text()) for p in written]
    assert any(b["method"] == "POST" and "/issues/7/comments" in b["url"] for b in bodies)
    assert not [r for r in github.requests if r.method != "GET"]


def test_progress_comment_becomes_the_summary(
    pytester: pytest.Pytester, project: ReviewRepo, github: FakeGitHub, token: str
) -> None:
    review(pytester, "--secreview-progress", env=github_env(github, token)).assert_outcomes(
        failed=2, passed=4)
    (comment,) = github.summary_comments()
    assert "reviewing" not in comment["body"] and "AWS access key id" in comment["body"]
    assert github.calls("POST", "/issues/7/comments") and github.calls("PATCH")
