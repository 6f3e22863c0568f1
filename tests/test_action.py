"""The GitHub Action (action.yml at the repository root): a composite action with the inputs the
documentation lists, inputs reaching scripts only through env:, the package installed from the
action's own checkout, and zizmor's approval. Its scripts run here with stand-ins for pip and
the secreview command, to show what they would run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_workflow import _lint

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    return loaded


def _step(name: str) -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in _action()["runs"]["steps"] if s.get("name") == name)
    return step


def test_a_composite_action_with_the_documented_inputs() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert {"model", "model-api-key", "api-base", "fail-on", "unreviewed", "scanners",
            "semgrep-config", "upload-sarif", "sarif-category", "junit-check", "workers",
            "python-version", "osv-url"} == set(inputs)
    assert inputs["unreviewed"]["default"] == "fail" and inputs["fail-on"]["default"] == "critical"
    assert inputs["osv-url"]["default"] == "https://api.osv.dev"  # the recipes turn it on
    assert all(spec.get("description") for spec in inputs.values())
    page = (ROOT / "docs" / "ci.md").read_text()
    documented = page[page.index("## The action"):page.index("## `secreview init`")]
    for name in inputs:
        assert f"`{name}`" in documented, f"docs/ci.md does not describe the input {name}"


def test_inputs_reach_scripts_only_through_the_environment() -> None:
    for step in _action()["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], f"{step['name']}: expressions belong in env:"
            assert step["shell"] == "bash"


def test_it_installs_the_package_from_its_own_checkout() -> None:
    step = _step("install pytest-secreview from the action's checkout")
    assert step["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert "git+" not in step["run"] and "pytest-secreview" not in step["run"]


SAME_REPOSITORY = "github.event.pull_request.head.repo.full_name == github.repository"


@pytest.mark.parametrize(("action", "asked", "output"), [
    ("github/codeql-action/upload-sarif@", "inputs.upload-sarif", "sarif"),
    ("mikepenz/action-junit-report@", "inputs.junit-check", "junit"),
])
def test_sarif_and_junit_are_published_when_asked_even_after_findings_never_on_a_fork(
    action: str, asked: str, output: str,
) -> None:
    step = next(s for s in _action()["runs"]["steps"] if str(s.get("uses", "")).startswith(action))
    assert step["if"] == (f"always() && {asked} == 'true' && steps.review.outputs.{output} != '' "
                          f"&& {SAME_REPOSITORY}")
    assert "${{ steps.review.outputs." + output + " }}" in step["with"].values()
    assert "hashFiles" not in ACTION.read_text(), "no file of the checkout is uploaded"


def test_install_and_notices_run_outside_the_checkout() -> None:
    for step in _action()["runs"]["steps"]:
        if "run" in step and step.get("name") != "review":
            assert step["working-directory"] == "${{ runner.temp }}", step["name"]


def test_the_action_passes_zizmor(tmp_path: Path) -> None:
    shutil.copy(ACTION, tmp_path / "action.yml")
    result = _lint(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def _run(script: str, env: dict[str, str], tmp_path: Path, *stand_ins: str) -> list[str]:
    """Run a step's script with stand-ins that print their arguments, one per line."""
    for name in stand_ins:
        (tmp_path / name).write_text(f'#!/bin/sh\necho "{name}"\nprintf "%s\\n" "$@"\n'
                                     'env | grep "^SECREVIEW_" | sort\n')
        (tmp_path / name).chmod(0o755)
    clean = {key: value for key, value in os.environ.items() if not key.startswith("SECREVIEW")}
    (tmp_path / "output").touch()
    result = subprocess.run(["bash", "-e", "-c", script],
                            env={**clean, "PATH": f"{tmp_path}{os.pathsep}{clean['PATH']}",
                                 "RUNNER_TEMP": "/runner/temp",
                                 "GITHUB_OUTPUT": str(tmp_path / "output"), **env},
                            capture_output=True, text=True, check=True, timeout=30)
    return result.stdout.splitlines()


@pytest.mark.parametrize(("scanners", "requirement"), [
    ("true", "/actions/pytest-secreview[scanners]"), ("false", "/actions/pytest-secreview")])
def test_the_install_script(tmp_path: Path, scanners: str, requirement: str) -> None:
    script = _step("install pytest-secreview from the action's checkout")["run"]
    lines = _run(script, {"ACTION_PATH": "/actions/pytest-secreview", "SCANNERS": scanners},
                 tmp_path, "python")
    assert lines == ["python", "-m", "pip", "install", requirement]


def test_the_review_script_passes_every_input(tmp_path: Path) -> None:
    script = _step("review")["run"]
    lines = _run(script, {"MODEL": "anthropic:claude-sonnet-4-5", "MODEL_API_KEY": "k-1",
                          "API_BASE": "", "FAIL_ON": "high", "UNREVIEWED": "warn",
                          "SEMGREP_CONFIG": ".semgrep/\n\nci/extra rules.yml\n",
                          "WORKERS": "2", "SAME_REPOSITORY": "true"}, tmp_path, "secreview")
    assert lines == [
        "secreview", "-n", "2", "--secreview-fail-on", "high", "--secreview-unreviewed", "warn",
        "--junitxml=/runner/temp/secreview.xml",
        "--secreview-sarif=/runner/temp/secreview.sarif",
        "--secreview-semgrep-config", ".semgrep/",
        "--secreview-semgrep-config", "ci/extra rules.yml",
        "SECREVIEW_API_KEY=k-1", "SECREVIEW_MODEL=anthropic:claude-sonnet-4-5"]


def test_empty_inputs_leave_the_jobs_own_settings_alone(tmp_path: Path) -> None:
    script = _step("review")["run"]
    lines = _run(script, {"MODEL": "", "MODEL_API_KEY": "", "API_BASE": "",
                          "SECREVIEW_MODEL": "openai:local", "FAIL_ON": "critical",
                          "UNREVIEWED": "fail", "SEMGREP_CONFIG": "", "WORKERS": "auto",
                          "SAME_REPOSITORY": "true"},
                 tmp_path, "secreview")
    assert "--secreview-semgrep-config" not in lines
    assert [line for line in lines if line.startswith("SECREVIEW_")] == [
        "SECREVIEW_MODEL=openai:local"]


def test_on_a_fork_no_model_and_no_comment(tmp_path: Path) -> None:
    """A fork's job has no credentials and a read-only token: the deterministic review runs,
    whatever model the input or the job names."""
    lines = _run(_step("review")["run"],
                 {"MODEL": "anthropic:claude-sonnet-4-5", "MODEL_API_KEY": "", "API_BASE": "",
                  "SECREVIEW_MODEL": "openai:local", "FAIL_ON": "critical", "UNREVIEWED": "fail",
                  "SEMGREP_CONFIG": "", "WORKERS": "auto", "SAME_REPOSITORY": "false"},
                 tmp_path, "secreview")
    assert [line for line in lines if line.startswith("SECREVIEW_")] == [
        "SECREVIEW_COMMENT=off"]


@pytest.mark.parametrize(("status", "writes"), [(1, True), (4, False)])
def test_the_outputs_name_only_what_the_review_wrote(tmp_path: Path, status: int,
                                                    writes: bool) -> None:
    (tmp_path / "secreview").write_text(
        "#!/bin/sh\n" + ('touch "$RUNNER_TEMP/secreview.sarif"\n' if writes else "")
        + f"exit {status}\n")
    (tmp_path / "secreview").chmod(0o755)
    (tmp_path / "temp").mkdir()
    (tmp_path / "output").touch()
    env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
           "RUNNER_TEMP": str(tmp_path / "temp"), "GITHUB_OUTPUT": str(tmp_path / "output"),
           "MODEL": "", "MODEL_API_KEY": "", "API_BASE": "", "FAIL_ON": "critical",
           "UNREVIEWED": "fail", "SEMGREP_CONFIG": "", "WORKERS": "auto"}
    result = subprocess.run(["bash", "-e", "-c", _step("review")["run"]], env=env,
                            capture_output=True, text=True, check=False, timeout=30)
    assert result.returncode == status
    expected = f"sarif={tmp_path / 'temp' / 'secreview.sarif'}\n" if writes else ""
    assert (tmp_path / "output").read_text() == expected
