"""The CI recipes (docs/recipes/): each is what `secreview init` writes for its situation, is
shown verbatim in the documentation, passes zizmor, and does what its situation needs: the
install line from the repository, the permissions, the hardened command, the credentials.
Also the reusable workflow's install step, run with a stand-in for pip."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_secreview.cli.init import PLACEHOLDER_SOURCE, render_workflow
from tests.test_workflow import WORKFLOW, _lint

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "docs" / "recipes"
#: file -> (provider, shards), the `secreview init` options that write it.
SITUATIONS = {
    "no-model.yml": ("none", 1),
    "vertex-ai.yml": ("vertex", 1),
    "anthropic.yml": ("anthropic", 1),
    "openai-compatible.yml": ("openai", 1),
    "sharded.yml": ("vertex", 4),
}
INSTALL = ('python -m pip install "pytest-secreview[scanners] @ '
           'git+https://github.com/OWNER/pytest-secreview@' + "0" * 40 + '"')
PINNED = "0" * 40  # a user pins a real commit; any 40-hex stands in for it here
SAME_REPOSITORY = "env.SAME_REPOSITORY == 'true'"


def _load(name: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((RECIPES / name).read_text())
    return loaded


def _job(name: str) -> dict[str, Any]:
    job: dict[str, Any] = _load(name)["jobs"]["secreview"]
    return job


def _step(name: str, step_name: str) -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in _job(name)["steps"] if s.get("name") == step_name)
    return step


def _uses(name: str) -> list[str]:
    return [str(step.get("uses", "")).split("@")[0] for step in _job(name)["steps"]]


def test_the_recipes_are_the_situations() -> None:
    assert sorted(path.name for path in RECIPES.glob("*.yml")) == sorted(SITUATIONS)


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_each_recipe_is_what_secreview_init_writes(name: str) -> None:
    provider, shards = SITUATIONS[name]
    expected = render_workflow(provider, shards=shards, source=PLACEHOLDER_SOURCE)
    assert (RECIPES / name).read_text() == expected, (
        f"docs/recipes/{name} is stale: write it again with render_workflow({provider!r}, "
        f"shards={shards})")


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_each_recipe_is_shown_verbatim_in_docs_ci(name: str) -> None:
    page = (ROOT / "docs" / "ci.md").read_text()
    assert f"```yaml\n{(RECIPES / name).read_text()}```" in page
    assert f"(recipes/{name})" in page


def test_the_readme_recipe_is_the_no_model_recipe() -> None:
    readme = (ROOT / "README.md").read_text()
    assert f"```yaml\n{(RECIPES / 'no-model.yml').read_text()}```" in readme


def test_the_recipes_pass_zizmor(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for name in SITUATIONS:  # as shipped, placeholders included
        (workflows / name).write_text((RECIPES / name).read_text())
    result = _lint(workflows)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", sorted(set(SITUATIONS) - {"sharded.yml"}))
def test_a_single_job_installs_from_the_repository_and_runs_the_hardened_command(
    name: str,
) -> None:
    install = _step(name, "install pytest-secreview from its repository")
    assert install["run"] == INSTALL
    assert install["working-directory"] == "${{ runner.temp }}", "pip never runs in the checkout"
    review = _step(name, "review")
    assert "\nsecreview -n auto " in review["run"]
    assert '--secreview-sarif="$RUNNER_TEMP/secreview.sarif"' in review["run"]
    assert review["env"]["SECREVIEW_UNREVIEWED"] == "fail"
    assert _job(name)["env"]["SAME_REPOSITORY"] == (
        "${{ github.event.pull_request.head.repo.full_name == github.repository }}")
    upload, junit = _job(name)["steps"][-2:]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"] == f"always() && steps.review.outputs.sarif == 'true' && {SAME_REPOSITORY}"
    assert upload["with"]["sarif_file"] == "${{ runner.temp }}/secreview.sarif"
    assert junit["uses"].startswith("mikepenz/action-junit-report@")
    assert junit["if"] == f"always() && steps.review.outputs.xml == 'true' && {SAME_REPOSITORY}"
    assert junit["with"]["report_paths"] == "${{ runner.temp }}/secreview.xml"
    assert _job(name)["permissions"]["checks"] == "write"
    assert "hashFiles" not in (RECIPES / name).read_text(), "no file of the checkout is uploaded"
    checkout = _job(name)["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    assert _load(name)["permissions"] == {}
    for step in _job(name)["steps"]:
        assert "${{" not in step.get("run", ""), "expressions reach scripts through env: only"
        if "uses" in step:
            assert re.search(r"@[0-9a-f]{40}$", step["uses"]), f"{step['uses']} is pinned"


def test_no_model_needs_no_credential() -> None:
    text = (RECIPES / "no-model.yml").read_text()
    assert "secrets." not in text and "vars." not in text
    assert "SECREVIEW_MODEL" not in _step("no-model.yml", "review")["env"]
    assert _job("no-model.yml")["permissions"] == {
        "contents": "read", "pull-requests": "write", "security-events": "write",
        "checks": "write"}


def test_vertex_authenticates_with_workload_identity_before_the_review() -> None:
    job = _job("vertex-ai.yml")
    assert job["permissions"]["id-token"] == "write"
    uses = _uses("vertex-ai.yml")
    auth = uses.index("google-github-actions/auth")
    install = next(i for i, s in enumerate(job["steps"]) if s.get("name", "").startswith("install"))
    assert auth < [s.get("name") for s in job["steps"]].index("review")
    assert install > uses.index("actions/setup-python")
    assert set(job["steps"][auth]["with"]) == {"workload_identity_provider", "service_account"}
    assert job["steps"][auth]["if"] == SAME_REPOSITORY, "a fork's job has no OIDC token"
    env = _step("vertex-ai.yml", "review")["env"]
    assert env["SECREVIEW_MODEL"] == (
        f"${{{{ {SAME_REPOSITORY} && 'google/gemini-2.5-pro' || '' }}}}")
    assert env["GOOGLE_CLOUD_PROJECT"] == "${{ vars.GCP_PROJECT }}"
    assert "credentials_json" not in (RECIPES / "vertex-ai.yml").read_text(), "no key stored"


def test_anthropic_reads_its_key_from_a_secret() -> None:
    env = _step("anthropic.yml", "review")["env"]
    assert env["SECREVIEW_MODEL"] == (
        f"${{{{ {SAME_REPOSITORY} && 'anthropic:claude-sonnet-4-5' || '' }}}}")
    assert env["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"
    assert "id-token" not in _job("anthropic.yml")["permissions"]


def test_an_openai_compatible_server_is_named_by_its_base_url() -> None:
    env = _step("openai-compatible.yml", "review")["env"]
    assert env["SECREVIEW_MODEL"] == f"${{{{ {SAME_REPOSITORY} && 'openai:gpt-4.1' || '' }}}}"
    assert env["SECREVIEW_API_BASE"] == "${{ vars.SECREVIEW_API_BASE }}"
    assert env["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"


def test_sharded_calls_the_reusable_workflow_with_inputs_it_has() -> None:
    job = _job("sharded.yml")
    assert job["uses"] == (
        "OWNER/pytest-secreview/.github/workflows/secreview.yml@" + "0" * 40)
    assert job["with"]["shards"] == 4
    workflow: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    assert set(job["with"]) <= set(workflow[True]["workflow_call"]["inputs"])
    asked = {p for j in workflow["jobs"].values() for p, v in j["permissions"].items()
             if v == "write"}
    granted = {p for p, v in job["permissions"].items() if v == "write"}
    assert asked <= granted, "the caller grants every permission the reusable workflow asks for"


def test_every_action_is_pinned_like_the_reusable_workflow() -> None:
    pins = dict(re.findall(r"uses: ([\w./-]+)@([0-9a-f]{40})", WORKFLOW.read_text()))
    for name in SITUATIONS:
        for action, commit in re.findall(r"uses: ([\w./-]+)@([0-9a-f]{40})",
                                         (RECIPES / name).read_text()):
            if action in pins:
                assert commit == pins[action], f"{name}: {action} pinned to another commit"


def _install_script(job: str) -> tuple[str, dict[str, str]]:
    workflow: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    step = next(s for s in workflow["jobs"][job]["steps"] if s.get("name") == "install")
    return step["run"], step["env"]


@pytest.mark.parametrize(("package", "scanners", "installed"), [
    ("", "false", "pytest-secreview @ git+https://github.com/octo/pytest-secreview@" + PINNED),
    ("", "true",
     "pytest-secreview[scanners] @ git+https://github.com/octo/pytest-secreview@" + PINNED),
    ("pytest-secreview==0.2.0", "true", "pytest-secreview[scanners]==0.2.0"),
    ("pytest-secreview @ git+https://github.com/fork/pytest-secreview@" + PINNED, "true",
     "pytest-secreview[scanners] @ git+https://github.com/fork/pytest-secreview@" + PINNED),
])
def test_the_reusable_workflow_installs_its_own_commit_unless_told_otherwise(
    tmp_path: Path, package: str, scanners: str, installed: str,
) -> None:
    script, declared = _install_script("review")
    assert declared["OWN_COMMIT"] == ("pytest-secreview @ git+https://github.com/"
                                      "${{ job.workflow_repository }}@${{ job.workflow_sha }}")
    # A stand-in for python that prints its arguments, one per line, instead of installing.
    (tmp_path / "python").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (tmp_path / "python").chmod(0o755)
    env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "PACKAGE": package,
           "SCANNERS": scanners,
           "OWN_COMMIT": "pytest-secreview @ git+https://github.com/octo/pytest-secreview@"
                         + PINNED}
    result = subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True,
                            text=True, check=True, timeout=30)
    assert result.stdout.splitlines() == ["-m", "pip", "install", installed]


@pytest.mark.parametrize(("status", "writes_sarif"), [(0, True), (1, True), (4, False)])
def test_the_review_step_keeps_the_status_and_says_whether_it_wrote_sarif(
    tmp_path: Path, status: int, writes_sarif: bool,
) -> None:
    """Run with a stand-in for secreview: findings (1) still upload the SARIF it wrote; a usage
    error (4) that wrote none uploads nothing, whatever the checkout holds."""
    (tmp_path / "secreview").write_text(
        "#!/bin/sh\n"
        + ('touch "$RUNNER_TEMP/secreview.sarif"\n' if writes_sarif else "")
        + f"exit {status}\n")
    (tmp_path / "secreview").chmod(0o755)
    runner_temp = tmp_path / "temp"
    runner_temp.mkdir()
    output = tmp_path / "output"
    output.touch()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "secreview.sarif").write_text("{}")  # a pull request's forged report
    result = subprocess.run(
        ["bash", "-e", "-c", _step("no-model.yml", "review")["run"]], cwd=checkout,
        env={"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
             "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(output)},
        capture_output=True, text=True, check=False, timeout=30)
    assert result.returncode == status
    assert output.read_text() == ("sarif=true\n" if writes_sarif else "")
