"""The reusable GitHub Actions workflow and the caller example in docs/ci.md, checked by zizmor
(a linter for Actions workflows: schema, injection, permissions, pinning) and for the inputs
and steps the documentation promises."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "secreview.yml"
ZIZMOR = shutil.which("zizmor") or str(Path(__import__("sys").executable).parent / "zizmor")


def _lint(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ZIZMOR, "--offline", "--strict-collection", "--pedantic", "--no-progress", "--quiet",
         str(directory)],
        capture_output=True, text=True, check=False, timeout=120,
    )


def _caller_example() -> str:
    page = (ROOT / "docs" / "ci.md").read_text()
    section = page[page.index("### Reusable workflow"):]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match, "the reusable-workflow section of docs/ci.md has a yaml example"
    return match.group(1)


def test_workflow_passes_the_linter() -> None:
    result = _lint(WORKFLOW.parent)
    assert result.returncode == 0, result.stdout + result.stderr


def test_documented_caller_example_passes_the_linter(tmp_path: Path) -> None:
    pinned = _caller_example()
    assert "/secreview.yml@" + "0" * 40 in pinned, "the example pins the workflow to a commit"
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "security.yml").write_text(pinned)
    result = _lint(workflows)
    assert result.returncode == 0, result.stdout + result.stderr
    call = yaml.safe_load(pinned)["jobs"]["secreview"]
    inputs = _workflow()[True]["workflow_call"]["inputs"]
    assert set(call["with"]) <= set(inputs), "the example passes only inputs that exist"


def _workflow() -> dict[Any, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    loaded: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    return loaded


def test_inputs_cover_model_threshold_shards_and_scanners() -> None:
    inputs = _workflow()[True]["workflow_call"]["inputs"]
    assert {"model", "fail-on", "shards", "scanners", "workload-identity-provider"} <= set(inputs)


def _steps(job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = _workflow()["jobs"][job]["steps"]
    return steps


def _uses(job: str) -> list[str]:
    return [str(step.get("uses", "")).split("@")[0] for step in _steps(job)]


def test_shards_review_with_the_hardened_command_and_the_reviews_durations() -> None:
    review = next(s["run"] for s in _steps("review") if s.get("name") == "review")
    assert "secreview --base" in review, "shards run the hardened command, not plain pytest"
    for flag in ("--splits", "--group", "--durations-path", "--secreview-cache-dir",
                 "--junitxml", "--secreview-report"):
        assert flag in review
    assert "google-github-actions/auth" in _uses("review")
    assert _workflow()["jobs"]["review"]["permissions"]["id-token"] == "write"
    assert "credentials_json" not in WORKFLOW.read_text(), "no key: Workload Identity only"


def test_one_report_job_merges_uploads_sarif_and_publishes_junit() -> None:
    merge = next(s["run"] for s in _steps("report") if "run" in s and "--merge" in s["run"])
    assert "secreview report --merge" in merge
    uses = _uses("report")
    assert "github/codeql-action/upload-sarif" in uses
    assert "mikepenz/action-junit-report" in uses
    assert "actions/download-artifact" in uses


@pytest.mark.parametrize("job", ["plan", "review", "report"])
def test_untrusted_values_reach_scripts_only_through_the_environment(job: str) -> None:
    for step in _steps(job):
        assert "${{" not in step.get("run", ""), f"{job}: expressions belong in env:, not run:"


def _in_runner_temp(value: str) -> bool:
    return value.startswith(("${{ runner.temp }}/", '"$RUNNER_TEMP/', "$RUNNER_TEMP/"))


def test_no_job_uploads_or_merges_a_directory_the_pull_request_can_fill() -> None:
    # The checkout is the pull request's: every output, upload, download and merge input lives
    # under the runner's temporary directory, which no commit can reach.
    review = next(s["run"] for s in _steps("review") if s.get("name") == "review")
    for flag in ("--secreview-artifacts", "--secreview-report", "--junitxml", "--durations-path",
                 "--secreview-cache-dir"):
        value = re.search(rf"{flag}[ =](\S+)", review)
        assert value and _in_runner_temp(value.group(1)), f"review: {flag} outside RUNNER_TEMP"
    for job, action, key in (("review", "actions/upload-artifact", "path"),
                             ("review", "actions/cache/restore", "path"),
                             ("review", "actions/cache/save", "path"),
                             ("report", "actions/download-artifact", "path")):
        step = next(s for s in _steps(job) if str(s.get("uses", "")).startswith(action))
        assert _in_runner_temp(str(step["with"][key])), f"{job}: {action} {key}"
    merge = next(s["run"] for s in _steps("report") if "run" in s and "--merge" in s["run"])
    assert '--merge "$RUNNER_TEMP/secreview/shards/' in merge
    for flag in ("--junitxml", "--sarif", "--out"):
        value = re.search(rf"{flag} (\S+)", merge)
        assert value and _in_runner_temp(value.group(1)), f"report: {flag} outside RUNNER_TEMP"
    assert "--shards" in merge and "--unreviewed" in merge


def test_the_run_key_is_made_once_and_given_only_to_the_runs_own_jobs() -> None:
    jobs = _workflow()["jobs"]
    assert "key" in jobs["plan"]["outputs"]
    for job in ("review", "report"):
        envs = [s.get("env", {}) for s in _steps(job)]
        assert {"SECREVIEW_RUN_KEY": "${{ needs.plan.outputs.key }}"} in [
            {k: v for k, v in e.items() if k == "SECREVIEW_RUN_KEY"} for e in envs]
    assert "plan" in jobs["report"]["needs"]


@pytest.mark.parametrize("job", ["review", "report"])
def test_pip_never_runs_in_the_checkout(job: str) -> None:
    """``python -m pip`` puts its working directory first on ``sys.path``: in the checkout, a
    ``pip/`` folder the pull request committed would run with the job's token and keys."""
    install = next(s for s in _steps(job) if s.get("name") == "install")
    assert install["working-directory"] == "${{ runner.temp }}"


@pytest.mark.parametrize(("job", "action"), [
    ("review", "google-github-actions/auth"),
    ("report", "github/codeql-action/upload-sarif"),
    ("report", "mikepenz/action-junit-report"),
])
def test_what_a_forks_token_cannot_do_is_skipped_on_a_fork(job: str, action: str) -> None:
    assert _workflow()["jobs"][job]["env"]["SAME_REPOSITORY"] == (
        "${{ github.event.pull_request.head.repo.full_name == github.repository }}")
    step = next(s for s in _steps(job) if str(s.get("uses", "")).startswith(action))
    assert step["if"].endswith("&& env.SAME_REPOSITORY == 'true'")
