"""The GitHub Actions emulator (tests/actions_runner.py) against GitHub's documented behaviour,
with tiny workflows written here: the expression language, the runner files, shells and
working directories, ``if:`` and step results, composite actions, ``needs``, matrices and
reusable workflows, the trust of a fork's pull request, and the stand-in actions."""

from __future__ import annotations

import hashlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.actions_runner import (
    ActionNotEmulated,
    ActionsGitHub,
    ExpressionError,
    JobRun,
    PullRequest,
    PythonToolcache,
    Runner,
    Status,
    WorkflowInvalid,
    WorkflowRun,
    evaluate,
    evaluate_if,
    expand,
    interpolate,
    parse_env_file,
    publish_pull_request,
    pull_request_event,
)
from tests.gitutil import GitRepo

SHA = "11bd71901bbe5b1630ceea73d27597364c9af683"  # any 40-hex pin for the stand-ins

# ---------------------------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------------------------

CONTEXTS: dict[str, Any] = {
    "github": {
        "event_name": "pull_request", "repository": "octo/app",
        "event": {"pull_request": {"number": 7, "head": {"repo": {"full_name": "mallory/app"}}},
                  "labels": [{"name": "bug"}, {"name": "Security"}]},
    },
    "inputs": {"upload-sarif": "true", "shards": 2.0, "scanners": True},
    "steps": {"review": {"outputs": {"sarif": "/tmp/secreview.sarif"}, "outcome": "failure"}},
    "env": {"EMPTY": ""},
}

EXPRESSIONS = [
    ("null", "null", None),
    ("boolean", "true", True),
    ("integer", "711", 711),
    ("negative float", "-9.2", -9.2),
    ("hex number", "0xff", 255),
    ("exponent", "-2.99e-2", -0.0299),
    ("a quote escaped by doubling", "'It''s open source!'", "It's open source!"),
    ("strings compare ignoring case", "'ABC' == 'abc'", True),
    ("a number equals its string", "1 == '1'", True),
    ("null equals zero", "null == 0", True),
    ("true equals one", "true == 1", True),
    ("the empty string equals zero", "'' == 0", True),
    ("a hex string with spaces equals its number", "' 0xff ' == 255", True),
    ("a word is not a number", "'a' == 0", False),
    ("NaN is not equal to itself", "NaN == NaN", False),
    ("a word compared with a number is NaN", "'a' != 0 && !('a' < 1) && !('a' >= 1)", True),
    ("objects are equal only to themselves", "fromJSON('{}') == fromJSON('{}')", False),
    ("strings order ignoring case", "'b' > 'A'", True),
    ("numbers order", "1 < 2 && 2 <= 2 && 3 >= 2 && !(3 < 2)", True),
    ("a string and a number order as numbers", "'10' > 9", True),
    ("|| returns the first truthy operand", "env.EMPTY || 'default'", "default"),
    ("&& returns the last operand", "'a' && 'b'", "b"),
    ("&& returns the falsy operand", "0 && 'x'", 0),
    ("the string 'false' is truthy", "!'false'", False),
    ("the empty string is falsy", "!''", True),
    ("property dereference", "github.event.pull_request.head.repo.full_name == github.repository",
     False),
    ("a missing property is null", "github.event.pull_request.nope.deeper", None),
    ("hyphens in names", "inputs.upload-sarif == 'true'", True),
    ("index by string", "github['event_name']", "pull_request"),
    ("names ignore case", "GITHUB.Event_Name", "pull_request"),
    ("object filter", "github.event.labels.*.name", ["bug", "Security"]),
    ("array index", "fromJSON('[1, 2]')[1]", 2),
    ("an index out of range is null", "fromJSON('[1, 2]')[5]", None),
    ("contains in a string ignores case", "contains('Hello World', 'WORLD')", True),
    ("contains in an array", "contains(github.event.labels.*.name, 'security')", True),
    ("contains in a JSON array", "contains(fromJSON('[\"OWNER\", \"MEMBER\"]'), 'member')", True),
    ("startsWith ignores case", "startsWith('refs/pull/7/merge', 'REFS/PULL/')", True),
    ("endsWith ignores case", "endsWith('secreview.sarif', '.SARIF')", True),
    ("format with escaped braces", "format('{0} {{1}} {1}', 'a', 2)", "a {1} 2"),
    ("join with a separator", "join(github.event.labels.*.name, ', ')", "bug, Security"),
    ("join with the default separator", "join(fromJSON('[1, true]'))", "1,true"),
    ("toJSON indents by two", "toJSON(fromJSON('{\"a\": [1]}'))", '{\n  "a": [\n    1\n  ]\n}'),
    ("a step output", "steps.review.outputs.sarif != ''", True),
    ("a number input", "inputs.shards > 1", True),
    ("a boolean input", "inputs.scanners", True),
]


@pytest.mark.parametrize(("expression", "expected"), [c[1:] for c in EXPRESSIONS],
                         ids=[c[0] for c in EXPRESSIONS])
def test_expression(expression: str, expected: Any) -> None:
    value = evaluate(expression, CONTEXTS)
    assert value == expected
    if isinstance(expected, bool) or expected is None:
        assert value is expected
    else:
        assert isinstance(value, type(expected) if not isinstance(expected, int) else float)


ERRORS = [
    ("an unknown context", "foo.bar"),
    ("an unknown function", "frobnicate(1)"),
    ("a dangling operator", "1 =="),
    ("double quotes", '"x"'),
    ("invalid JSON", "fromJSON('{')"),
    ("too many arguments", "contains('a', 'b', 'c')"),
    ("format's missing argument", "format('{1}', 'a')"),
    ("an unclosed parenthesis", "(true"),
    ("arithmetic", "1-1"),
]


@pytest.mark.parametrize("expression", [c[1] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_an_invalid_expression_is_refused(expression: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate(expression, CONTEXTS)


INTERPOLATIONS = [
    ("null prints empty", "a${{ null }}b", "ab"),
    ("whole numbers print without a point", "${{ 1 }}/${{ 0.5 }}", "1/0.5"),
    ("booleans print lower case", "${{ true }}", "true"),
    ("closing braces inside a string", "${{ '}}' }}", "}}"),
    ("several expressions", "${{ github.repository }}@${{ github.event.pull_request.number }}",
     "octo/app@7"),
    ("a missing property prints empty", "[${{ github.nope }}]", "[]"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in INTERPOLATIONS],
                         ids=[c[0] for c in INTERPOLATIONS])
def test_interpolation(text: str, expected: str) -> None:
    assert interpolate(text, CONTEXTS) == expected


def test_a_lone_expression_keeps_its_type_where_types_matter() -> None:
    assert expand("${{ fromJSON('[1, 2]') }}", CONTEXTS) == [1, 2]
    assert expand("${{ inputs.shards }}", CONTEXTS) == 2.0
    assert expand("shard ${{ inputs.shards }}", CONTEXTS) == "shard 2"
    assert expand({"a": ["${{ true }}"]}, CONTEXTS) == {"a": [True]}


CONDITIONS = [
    ("a plain condition implies success()", "true", True, False),
    ("always() runs after a failure", "always()", True, True),
    ("failure() runs after a failure", "failure()", True, True),
    ("failure() does not run without one", "failure()", False, False),
    ("success() and a condition", "success() && github.repository == 'octo/app'", False, True),
    ("a condition wrapped in ${{ }}", "${{ false }}", False, False),
    ("text around ${{ }} is a non-empty string, so true", "x ${{ false }}", False, True),
    ("no condition is success()", "", True, False),
    ("always() with a step output", "always() && steps.review.outputs.sarif != ''", True, True),
    ("a status function inside a condition", "!cancelled() && inputs.scanners", True, True),
]


@pytest.mark.parametrize(("condition", "failed", "expected"), [c[1:] for c in CONDITIONS],
                         ids=[c[0] for c in CONDITIONS])
def test_if(condition: str, failed: bool, expected: bool) -> None:
    assert evaluate_if(condition, CONTEXTS, status=Status(failed=failed)) is expected


def test_hash_files_hashes_the_hashes_of_the_matching_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b")
    (tmp_path / "c.md").write_text("c")
    outer = hashlib.sha256()
    for name in ("a.txt", "sub/b.txt"):
        outer.update(hashlib.sha256((tmp_path / name).read_bytes()).digest())
    assert evaluate("hashFiles('**/*.txt')", CONTEXTS, workspace=tmp_path) == outer.hexdigest()
    assert evaluate("hashFiles('**/*.nothing')", CONTEXTS, workspace=tmp_path) == ""


# ---------------------------------------------------------------------------------------------
# Runner files
# ---------------------------------------------------------------------------------------------

ENV_FILES = [
    ("name=value lines", "A=1\nB=x=y\n", {"A": "1", "B": "x=y"}),
    ("a multi-line value", "M<<EOF\nl1\nl2\nEOF\nA=2\n", {"M": "l1\nl2", "A": "2"}),
    ("CRLF line ends", "A=1\r\nM<<X\r\nv\r\nX\r\n", {"A": "1", "M": "v"}),
    ("an empty value", "A=\n", {"A": ""}),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in ENV_FILES],
                         ids=[c[0] for c in ENV_FILES])
def test_env_file(text: str, expected: dict[str, str]) -> None:
    assert parse_env_file(text) == expected


@pytest.mark.parametrize("text", ["M<<EOF\nl1\n", "JUSTTEXT\n"],
                         ids=["a block without its delimiter", "a line without ="])
def test_an_invalid_env_file_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_env_file(text)


# ---------------------------------------------------------------------------------------------
# A small scenario to run workflows in
# ---------------------------------------------------------------------------------------------


class Scenario:
    """A repository with a pull request served by a bare origin, and a fake GitHub."""

    def __init__(self, root: Path, github: ActionsGitHub, pr: PullRequest,
                 origin: Path) -> None:
        self.root = root
        self.github = github
        self.pr = pr
        self.origin = origin
        self.repositories: dict[str, Path] = {"octo/app": origin}
        self.runs = 0

    def runner(self, *, fork: bool = False, **options: Any) -> Runner:
        self.runs += 1
        self.github.read_only = fork
        event = pull_request_event(self.pr, repository="octo/app",
                                   head_repository="mallory/app" if fork else "octo/app")
        return Runner(self.root / f"run-{self.runs}", github=self.github, event=event,
                      repository="octo/app", repositories=self.repositories,
                      fork_pull_request=fork, **options)

    def run(self, workflow: str, **options: Any) -> WorkflowRun:
        return self.runner(**options).run_workflow(textwrap.dedent(workflow))

    def job(self, steps: str, *, permissions: str = "{contents: read}", env: str = "",
            defaults: str = "", **options: Any) -> JobRun:
        """Run one job of ``steps`` (YAML, indented as under ``steps:``)."""
        workflow = (f"on: pull_request\njobs:\n  j:\n    runs-on: ubuntu-latest\n"
                    f"    permissions: {permissions}\n{env}{defaults}    steps:\n"
                    + textwrap.indent(textwrap.dedent(steps), "      "))
        run = self.runner(**options).run_workflow(workflow)
        (job,) = run.jobs["j"]
        return job

    def add_repository(self, name: str, files: dict[str, str]) -> str:
        """A repository ``name`` holding ``files``; returns its commit."""
        repo = GitRepo(self.root / "repos" / name)
        for rel, text in files.items():
            repo.write(rel, textwrap.dedent(text))
        sha = repo.commit("files")
        self.repositories[name] = repo.path
        return sha


@pytest.fixture
def scenario(tmp_path: Path) -> Iterator[Scenario]:
    repo = GitRepo(tmp_path / "work")
    repo.write("README.md", "base\n")
    repo.commit("base")
    repo.branch("feature")
    repo.write("app.py", "print('pr')\n")
    repo.commit("pull request")
    pr = publish_pull_request(repo.path, tmp_path / "origin.git", number=7)
    with ActionsGitHub(token="unused", repository="octo/app", number=7,
                       head_sha=pr.head_sha) as github:
        yield Scenario(tmp_path, github, pr, tmp_path / "origin.git")


def _step(job: JobRun, name: str) -> Any:
    return next(s for s in job.all_steps() if s.name == name)


# ---------------------------------------------------------------------------------------------
# Steps: runner files, environment, shells, directories, results
# ---------------------------------------------------------------------------------------------


def test_env_path_outputs_and_summary_pass_from_step_to_step(scenario: Scenario) -> None:
    job = scenario.job("""\
        - id: one
          run: |
            echo "PLAIN=plain" >> "$GITHUB_ENV"
            { echo "MULTI<<END"; printf 'l1\\nl2\\n'; echo END; } >> "$GITHUB_ENV"
            mkdir -p "$RUNNER_TEMP/tools"
            printf '#!/bin/sh\\necho hello from tools\\n' > "$RUNNER_TEMP/tools/hello"
            chmod +x "$RUNNER_TEMP/tools/hello"
            echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
            echo "answer=42" >> "$GITHUB_OUTPUT"
            echo "first part" >> "$GITHUB_STEP_SUMMARY"
        - name: two
          run: |
            test "$PLAIN" = plain
            test "$MULTI" = "$(printf 'l1\\nl2')"
            test "$(hello)" = "hello from tools"
            test "${{ steps.one.outputs.answer }}" = 42
            test "${{ env.PLAIN }}" = plain
            echo "second part" >> "$GITHUB_STEP_SUMMARY"
        """)
    assert job.result == "success", job.describe()
    assert job.summary == "first part\nsecond part\n"


def test_env_blocks_win_over_github_env_which_cannot_change_runner_variables(
    scenario: Scenario,
) -> None:
    job = scenario.job("""\
        - run: |
            echo "FROM_JOB=file" >> "$GITHUB_ENV"
            echo "ONLY_FILE=file" >> "$GITHUB_ENV"
            echo "GITHUB_SHA=forged" >> "$GITHUB_ENV"
        - name: check
          env:
            STEP: step
          run: |
            test "$FROM_JOB" = job
            test "$ONLY_FILE" = file
            test "$STEP" = step
            test "$GITHUB_SHA" = "${{ github.sha }}"
            test "$GITHUB_SHA" != forged
        """, env="    env:\n      FROM_JOB: job\n")
    assert job.result == "success", job.describe()


def test_the_runner_sets_its_variables_and_a_fresh_temp_outside_the_workspace(
    scenario: Scenario,
) -> None:
    job = scenario.job("""\
        - run: |
            test "$GITHUB_ACTIONS" = true && test "$CI" = true && test "$RUNNER_OS" = Linux
            test "$GITHUB_EVENT_NAME" = pull_request && test "$GITHUB_REPOSITORY" = octo/app
            test "$GITHUB_BASE_REF" = main && test "$GITHUB_HEAD_REF" = feature
            test "$GITHUB_REF" = refs/pull/7/merge
            grep -q '"number": 7' "$GITHUB_EVENT_PATH"
            test "$PWD" = "$GITHUB_WORKSPACE"
            test -d "$RUNNER_TEMP" && case "$RUNNER_TEMP" in "$GITHUB_WORKSPACE"*) exit 1;; esac
            test -n "$GITHUB_API_URL"
        """)
    assert job.result == "success", job.describe()


SHELLS = [
    ("the default shell has no pipefail", None, "false | true", "success"),
    ("shell: bash has pipefail", "bash", "false | true", "failure"),
    ("the default shell stops at the first error", None, "false\ntrue", "failure"),
    ("sh", "sh", 'test -n "$0"', "success"),
    ("a custom shell template", "bash -c 'exit 3' {0}", "true", "failure"),
]


@pytest.mark.parametrize(("shell", "script", "outcome"), [c[1:] for c in SHELLS],
                         ids=[c[0] for c in SHELLS])
def test_shell(scenario: Scenario, shell: str | None, script: str, outcome: str) -> None:
    step = {"name": "s", "run": script, **({"shell": shell} if shell else {})}
    job = scenario.job(json.dumps([step]))
    assert _step(job, "s").outcome == outcome, job.describe()


DIRECTORIES = [
    ("the workspace by default", "", "", '"$GITHUB_WORKSPACE"'),
    ("the step's", "", "  working-directory: ${{ runner.temp }}\n", '"$RUNNER_TEMP"'),
    ("defaults.run's", "    defaults:\n      run:\n        working-directory: sub\n", "",
     '"$GITHUB_WORKSPACE/sub"'),
    ("the step's over defaults.run's",
     "    defaults:\n      run:\n        working-directory: sub\n",
     "  working-directory: ${{ runner.temp }}\n", '"$RUNNER_TEMP"'),
]


@pytest.mark.parametrize(("defaults", "step_option", "expected"), [c[1:] for c in DIRECTORIES],
                         ids=[c[0] for c in DIRECTORIES])
def test_working_directory(scenario: Scenario, defaults: str, step_option: str,
                           expected: str) -> None:
    job = scenario.job("- run: mkdir -p sub\n  working-directory: ${{ github.workspace }}\n"
                       f"- name: where\n{step_option}  run: test \"$PWD\" = {expected}\n",
                       defaults=defaults)
    assert _step(job, "where").outcome == "success", job.describe()


def test_a_missing_working_directory_fails_the_step(scenario: Scenario) -> None:
    job = scenario.job("- name: s\n  working-directory: nowhere\n  run: true\n")
    assert _step(job, "s").outcome == "failure"


def test_step_results_if_and_continue_on_error(scenario: Scenario) -> None:
    job = scenario.job("""\
        - id: tolerated
          continue-on-error: true
          run: exit 3
        - name: after a tolerated failure
          run: true
        - name: fails
          run: exit 1
        - name: skipped after a failure
          run: true
        - name: always
          if: always()
          run: true
        - name: on failure
          if: failure()
          run: true
        - name: reads an outcome
          if: >-
            always() && steps.tolerated.outcome == 'failure'
            && steps.tolerated.conclusion == 'success'
          run: true
        """)
    tolerated = _step(job, "Run exit 3")
    assert (tolerated.outcome, tolerated.conclusion, tolerated.exit_code) == ("failure",
                                                                              "success", 3)
    ran = {s.name: s.ran for s in job.steps}
    assert ran == {"Run exit 3": True, "after a tolerated failure": True, "fails": True,
                   "skipped after a failure": False, "always": True, "on failure": True,
                   "reads an outcome": True}
    assert job.result == "failure"
    first = job.first_failure()
    assert first is not None and first.name == "Run exit 3"


def test_a_job_with_only_tolerated_failures_succeeds(scenario: Scenario) -> None:
    job = scenario.job("- run: exit 1\n  continue-on-error: true\n")
    assert job.result == "success"


# ---------------------------------------------------------------------------------------------
# Composite actions
# ---------------------------------------------------------------------------------------------

ACTION = """\
    name: greet
    inputs:
      who:
        description: whom to greet
        default: world
      fail:
        description: fail after greeting
        default: "false"
    outputs:
      greeting:
        description: what it said
        value: ${{ steps.say.outputs.text }}
    runs:
      using: composite
      steps:
        - id: say
          shell: bash
          env:
            WHO: ${{ inputs.who }}
          run: |
            test "$GITHUB_ACTION_PATH" = "${{ github.action_path }}"
            test -f "$GITHUB_ACTION_PATH/action.yml"
            echo "text=hello $WHO" >> "$GITHUB_OUTPUT"
            echo "GREETED=$WHO" >> "$GITHUB_ENV"
        - if: inputs.fail == 'true'
          shell: bash
          run: exit 1
        - name: cleanup
          if: always()
          shell: bash
          run: echo cleaned
    """


COMPOSITES = [
    ("defaults apply", "", "hello world", "success"),
    ("inputs are passed", "  with:\n    who: octocat\n", "hello octocat", "success"),
    ("a failing step fails the action", "  with:\n    fail: 'true'\n", "hello world", "failure"),
]


@pytest.mark.parametrize(("with_", "greeting", "outcome"), [c[1:] for c in COMPOSITES],
                         ids=[c[0] for c in COMPOSITES])
def test_composite_action(scenario: Scenario, with_: str, greeting: str, outcome: str) -> None:
    sha = scenario.add_repository("octo/greet", {"action.yml": ACTION})
    job = scenario.job(f"- id: greet\n  uses: octo/greet@{sha}\n{with_}"
                       "- name: after\n  if: always()\n"
                       "  run: test \"${{ steps.greet.outputs.greeting }}\" = "
                       f"\"{greeting}\" && test -n \"$GREETED\"\n")
    greet = _step(job, "Run octo/greet@" + sha)
    assert greet.outcome == outcome, job.describe()
    assert _step(job, "after").outcome == "success", job.describe()
    assert _step(job, "cleanup").ran, "an always() step of the composite runs after a failure"


def test_a_composite_run_step_must_name_its_shell(scenario: Scenario) -> None:
    sha = scenario.add_repository("octo/bad", {"action.yml": """\
        name: bad
        runs:
          using: composite
          steps:
            - run: true
        """})
    with pytest.raises(WorkflowInvalid, match="shell"):
        scenario.job(f"- uses: octo/bad@{sha}\n")


UNPINNED = [
    ("a tag", "- uses: actions/checkout@v4\n"),
    ("a branch", "- uses: actions/checkout@main\n"),
    ("an action without a stand-in", f"- uses: someone/else@{SHA}\n"),
]


@pytest.mark.parametrize("steps", [c[1] for c in UNPINNED], ids=[c[0] for c in UNPINNED])
def test_an_unpinned_or_unknown_action_is_refused(scenario: Scenario, steps: str) -> None:
    with pytest.raises(ActionNotEmulated):
        scenario.job(steps)


# ---------------------------------------------------------------------------------------------
# Jobs: needs, matrices, reusable workflows
# ---------------------------------------------------------------------------------------------


def test_needs_outputs_matrix_and_job_conditions(scenario: Scenario) -> None:
    run = scenario.run("""\
        on: pull_request
        jobs:
          plan:
            runs-on: ubuntu-latest
            outputs:
              groups: ${{ steps.g.outputs.groups }}
            steps:
              - id: g
                run: echo "groups=[1,2,3]" >> "$GITHUB_OUTPUT"
          shard:
            name: shard ${{ matrix.group }}
            needs: plan
            runs-on: ubuntu-latest
            strategy:
              fail-fast: false
              matrix:
                group: ${{ fromJSON(needs.plan.outputs.groups) }}
            steps:
              - run: test "${{ matrix.group }}" != 2
          after-failure:
            needs: shard
            runs-on: ubuntu-latest
            steps:
              - run: true
          report:
            needs: [plan, shard]
            if: always() && needs.shard.result != 'skipped'
            runs-on: ubuntu-latest
            steps:
              - run: test "${{ needs.shard.result }}" = failure
        """)
    assert [(j.name, j.result) for j in run.jobs["shard"]] == [
        ("shard 1", "success"), ("shard 2", "failure"), ("shard 3", "success")]
    assert run.result("shard") == "failure"
    assert run.result("after-failure") == "skipped"
    assert run.result("report") == "success", run.describe()


def test_fail_fast_cancels_the_rest_of_the_matrix(scenario: Scenario) -> None:
    run = scenario.run("""\
        on: pull_request
        jobs:
          m:
            runs-on: ubuntu-latest
            strategy:
              matrix:
                n: [1, 2, 3]
            steps:
              - run: test "${{ matrix.n }}" != 1
        """)
    assert [j.result for j in run.jobs["m"]] == ["failure", "cancelled", "cancelled"]


CALLED = """\
    on:
      workflow_call:
        inputs:
          count:
            type: number
            default: 1
          flag:
            type: boolean
            default: false
        secrets:
          token:
            required: false
        outputs:
          said:
            value: ${{ jobs.inner.outputs.said }}
    permissions: {}
    jobs:
      inner:
        runs-on: ubuntu-latest
        permissions:
          contents: read
        outputs:
          said: ${{ steps.s.outputs.said }}
        steps:
          - id: s
            env:
              TOKEN: ${{ secrets.token }}
              WHERE: ${{ job.workflow_repository }}@${{ job.workflow_sha }}
            run: |
              test "$TOKEN" = s3cret-for-test
              test "${{ inputs.count > 1 && inputs.flag }}" = true
              echo "said=$WHERE" >> "$GITHUB_OUTPUT"
    """


def test_a_reusable_workflow_gets_typed_inputs_secrets_and_its_own_ref(
    scenario: Scenario,
) -> None:
    sha = scenario.add_repository("octo/lib", {".github/workflows/called.yml": CALLED})
    run = scenario.run(f"""\
        on: pull_request
        jobs:
          call:
            uses: octo/lib/.github/workflows/called.yml@{sha}
            permissions:
              contents: read
            with:
              count: 2
              flag: true
            secrets:
              token: ${{{{ secrets.MY_TOKEN }}}}
          after:
            needs: call
            runs-on: ubuntu-latest
            steps:
              - run: test "${{{{ needs.call.outputs.said }}}}" = "octo/lib@{sha}"
        """, secrets={"MY_TOKEN": "s3cret-for-test"})
    assert run.conclusion == "success", run.describe()
    (call,) = run.jobs["call"]
    assert [j.name for j in call.called] == ["call / inner"]


CALL_ERRORS = [
    ("an input the workflow does not declare", "with:\n      nope: 1\n", "{contents: read}"),
    ("a permission the caller does not grant", "", "{}"),
    ("a secret the workflow does not declare", "secrets:\n      other: x\n",
     "{contents: read}"),
]


@pytest.mark.parametrize(("extra", "permissions"), [c[1:] for c in CALL_ERRORS],
                         ids=[c[0] for c in CALL_ERRORS])
def test_an_invalid_call_is_refused_like_github_refuses_it(
    scenario: Scenario, extra: str, permissions: str,
) -> None:
    sha = scenario.add_repository("octo/lib", {".github/workflows/called.yml": CALLED})
    with pytest.raises(WorkflowInvalid):
        scenario.run(f"on: pull_request\njobs:\n  call:\n"
                     f"    uses: octo/lib/.github/workflows/called.yml@{sha}\n"
                     f"    permissions: {permissions}\n    {extra}")


# ---------------------------------------------------------------------------------------------
# Trust: a fork's pull request
# ---------------------------------------------------------------------------------------------

TRUST = [
    ("same repository", False, "s3cret", "value", True),
    ("fork", True, "", "", False),
]


@pytest.mark.parametrize(("fork", "secret", "variable", "oidc"), [c[1:] for c in TRUST],
                         ids=[c[0] for c in TRUST])
def test_what_a_fork_gets(scenario: Scenario, fork: bool, secret: str, variable: str,
                          oidc: bool) -> None:
    """GitHub gives a fork's pull request no secret but GITHUB_TOKEN, no configuration
    variable and no OIDC token, whatever the job asks for."""
    job = scenario.job("""\
        - id: check
          env:
            SECRET: ${{ secrets.MY_SECRET }}
            VARIABLE: ${{ vars.MY_VAR }}
            TOKEN: ${{ secrets.GITHUB_TOKEN }}
            SAME_TOKEN: ${{ github.token }}
          run: |
            test -n "$TOKEN" && test "$TOKEN" = "$SAME_TOKEN"
            echo "secret=$SECRET" >> "$GITHUB_OUTPUT"
            echo "variable=$VARIABLE" >> "$GITHUB_OUTPUT"
            echo "oidc=${ACTIONS_ID_TOKEN_REQUEST_URL:+yes}" >> "$GITHUB_OUTPUT"
        """, permissions="{contents: read, id-token: write}", fork=fork,
        secrets={"MY_SECRET": "s3cret"}, vars={"MY_VAR": "value"})
    assert job.result == "success", job.describe()
    assert job.steps[0].outputs == {"secret": secret, "variable": variable,
                                    "oidc": "yes" if oidc else ""}


# ---------------------------------------------------------------------------------------------
# Stand-ins
# ---------------------------------------------------------------------------------------------

CHECKOUTS = [
    ("the merge commit by default", "{persist-credentials: false}", "merge_sha", False, False),
    ("every branch with fetch-depth 0", "{fetch-depth: 0, persist-credentials: false}",
     "merge_sha", True, False),
    ("a pull request's head by ref", "{ref: refs/pull/7/head, fetch-depth: 0}", "head_sha", True,
     True),
]


@pytest.mark.parametrize(("with_", "head", "has_base", "keeps_token"), [c[1:] for c in CHECKOUTS],
                         ids=[c[0] for c in CHECKOUTS])
def test_checkout(scenario: Scenario, with_: str, head: str, has_base: bool,
                  keeps_token: bool) -> None:
    job = scenario.job(f"""\
        - uses: actions/checkout@{SHA}
          with: {with_}
        - id: look
          run: |
            echo "head=$(git rev-parse HEAD)" >> "$GITHUB_OUTPUT"
            echo "base=$(git rev-parse --verify -q origin/main || true)" >> "$GITHUB_OUTPUT"
            echo "token=$(git config --local --get http.https://github.com/.extraheader || true)" \\
              >> "$GITHUB_OUTPUT"
        """)
    assert job.result == "success", job.describe()
    (look,) = [s for s in job.steps if s.id == "look"]
    outputs = look.outputs
    assert outputs["head"] == getattr(scenario.pr, head)
    assert bool(outputs["base"]) is has_base
    assert bool(outputs["token"]) is keeps_token
    assert job.workspace is not None and (job.workspace / "app.py").is_file()


SARIF = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [
    {"ruleId": "r", "message": {"text": "m"}}]}]}

UPLOADS = [
    ("granted", "{security-events: write}", False, "success", 1),
    ("not granted", "{contents: read}", False, "failure", 0),
    ("a fork's read-only token", "{security-events: write}", True, "failure", 0),
]


@pytest.mark.parametrize(("permissions", "fork", "outcome", "uploads"), [c[1:] for c in UPLOADS],
                         ids=[c[0] for c in UPLOADS])
def test_upload_sarif(scenario: Scenario, permissions: str, fork: bool, outcome: str,
                      uploads: int) -> None:
    job = scenario.job(f"""\
        - run: |
            echo '{json.dumps(SARIF)}' > "$RUNNER_TEMP/x.sarif"
        - name: upload
          uses: github/codeql-action/upload-sarif@{SHA}
          with:
            sarif_file: ${{{{ runner.temp }}}}/x.sarif
            category: secreview
        """, permissions=permissions, fork=fork)
    assert _step(job, "upload").outcome == outcome, job.describe()
    assert len(scenario.github.sarif_uploads) == uploads
    if uploads:
        assert scenario.github.sarif_uploads[0]["sarif"]["runs"][0]["results"]


def test_upload_sarif_refuses_a_file_that_is_not_sarif(scenario: Scenario) -> None:
    job = scenario.job(f"""\
        - run: |
            echo '{{"version": "1.0"}}' > "$RUNNER_TEMP/x.sarif"
        - name: upload
          uses: github/codeql-action/upload-sarif@{SHA}
          with:
            sarif_file: ${{{{ runner.temp }}}}/x.sarif
        """, permissions="{security-events: write}")
    assert _step(job, "upload").outcome == "failure"


JUNIT = ('<testsuites><testsuite name="s" tests="2"><testcase name="ok"/>'
         '<testcase name="bad"><failure message="x"/></testcase></testsuite></testsuites>')

REPORTS = [
    ("a check run with checks: write", "{checks: write}", False, "", "success", 1),
    ("a check run without the permission", "{contents: read}", False, "", "failure", 0),
    ("a check run on a fork", "{checks: write}", True, "", "failure", 0),
    ("annotations only on a fork", "{checks: write}", True, "annotate_only: true", "success", 0),
    ("failing on a failed test", "{checks: write}", False, "fail_on_failure: true", "failure",
     1),
]


@pytest.mark.parametrize(("permissions", "fork", "option", "outcome", "checks"),
                         [c[1:] for c in REPORTS], ids=[c[0] for c in REPORTS])
def test_junit_report(scenario: Scenario, permissions: str, fork: bool, option: str,
                      outcome: str, checks: int) -> None:
    runner = scenario.runner(fork=fork)
    option_line = f"      {option}\n" if option else ""
    run = runner.run_workflow(
        f"on: pull_request\njobs:\n  j:\n    runs-on: ubuntu-latest\n"
        f"    permissions: {permissions}\n    steps:\n"
        f"      - run: echo '{JUNIT}' > \"$RUNNER_TEMP/junit.xml\"\n"
        f"      - name: report\n        uses: mikepenz/action-junit-report@{SHA}\n"
        f"        with:\n          report_paths: ${{{{ runner.temp }}}}/junit.xml\n"
        f"          check_name: secreview\n" + textwrap.indent(option_line, "    "))
    (job,) = run.jobs["j"]
    assert _step(job, "report").outcome == outcome, job.describe()
    assert len(scenario.github.check_runs) == checks
    assert [(r.tests, r.failures) for r in runner.junit_reads] == [(2, 1)]
    assert "secreview" in job.summary


AUTH = [
    ("with an OIDC token", "{contents: read, id-token: write}", False, "success"),
    ("without id-token: write", "{contents: read}", False, "failure"),
    ("on a fork", "{contents: read, id-token: write}", True, "failure"),
]


@pytest.mark.parametrize(("permissions", "fork", "outcome"), [c[1:] for c in AUTH],
                         ids=[c[0] for c in AUTH])
def test_google_auth(scenario: Scenario, permissions: str, fork: bool, outcome: str) -> None:
    job = scenario.job(f"""\
        - name: auth
          uses: google-github-actions/auth@{SHA}
          with:
            workload_identity_provider: projects/1/locations/global/workloadIdentityPools/p/x
            service_account: sa@my-project.iam.gserviceaccount.com
        - name: credentials
          run: |
            grep -q '"type": "external_account"' "$GOOGLE_APPLICATION_CREDENTIALS"
            test "$GOOGLE_CLOUD_PROJECT" = my-project
        """, permissions=permissions, fork=fork, google_endpoint="http://127.0.0.1:9")
    assert _step(job, "auth").outcome == outcome, job.describe()
    assert _step(job, "credentials").ran is (outcome == "success")
    if outcome == "success":
        assert _step(job, "credentials").outcome == "success", job.describe()
        assert len(scenario.github.id_tokens) == 1


def test_artifacts_upload_and_download_nested_by_name(scenario: Scenario) -> None:
    run = scenario.run(f"""\
        on: pull_request
        jobs:
          up:
            runs-on: ubuntu-latest
            strategy:
              matrix:
                n: [1, 2]
            steps:
              - run: |
                  mkdir -p "$RUNNER_TEMP/out/sub"
                  echo "${{{{ matrix.n }}}}" > "$RUNNER_TEMP/out/sub/n.txt"
                  echo hidden > "$RUNNER_TEMP/out/.hidden"
              - uses: actions/upload-artifact@{SHA}
                with:
                  name: shard-${{{{ matrix.n }}}}
                  path: ${{{{ runner.temp }}}}/out
          down:
            needs: up
            runs-on: ubuntu-latest
            steps:
              - uses: actions/download-artifact@{SHA}
                with:
                  pattern: shard-*
                  path: ${{{{ runner.temp }}}}/all
              - uses: actions/download-artifact@{SHA}
                with:
                  name: shard-2
                  path: ${{{{ runner.temp }}}}/one
              - run: |
                  test "$(cat "$RUNNER_TEMP/all/shard-1/sub/n.txt")" = 1
                  test "$(cat "$RUNNER_TEMP/all/shard-2/sub/n.txt")" = 2
                  test "$(cat "$RUNNER_TEMP/one/sub/n.txt")" = 2
                  test ! -e "$RUNNER_TEMP/all/shard-1/.hidden"
              - name: same name again
                uses: actions/upload-artifact@{SHA}
                with:
                  name: shard-1
                  path: ${{{{ runner.temp }}}}/all/shard-1
        """)
    (down,) = run.jobs["down"]
    first = down.first_failure()
    assert first is not None and first.name == "same name again", down.describe()


def test_cache_restores_by_key_then_by_prefix(scenario: Scenario) -> None:
    run = scenario.run(f"""\
        on: pull_request
        jobs:
          save:
            runs-on: ubuntu-latest
            steps:
              - run: mkdir -p "$RUNNER_TEMP/c" && echo saved > "$RUNNER_TEMP/c/f"
              - uses: actions/cache/save@{SHA}
                with:
                  path: ${{{{ runner.temp }}}}/c
                  key: k-7-1
          restore:
            needs: save
            runs-on: ubuntu-latest
            steps:
              - id: exact
                uses: actions/cache/restore@{SHA}
                with:
                  path: ${{{{ runner.temp }}}}/exact
                  key: k-7-1
              - id: prefix
                uses: actions/cache/restore@{SHA}
                with:
                  path: ${{{{ runner.temp }}}}/prefix
                  key: k-7-2
                  restore-keys: |
                    k-7-
              - id: miss
                uses: actions/cache/restore@{SHA}
                with:
                  path: ${{{{ runner.temp }}}}/miss
                  key: other
              - run: |
                  test "${{{{ steps.exact.outputs.cache-hit }}}}" = true
                  test "${{{{ steps.prefix.outputs.cache-hit }}}}" = false
                  test "${{{{ steps.prefix.outputs.cache-matched-key }}}}" = k-7-1
                  test "$(cat "$RUNNER_TEMP/prefix/f")" = saved
                  test ! -e "$RUNNER_TEMP/miss"
        """)
    assert run.conclusion == "success", run.describe()


def test_setup_python_puts_a_fresh_python_first_on_path(scenario: Scenario,
                                                        tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "only_here.py").write_text("VALUE = 1\n")
    job = scenario.job(f"""\
        - uses: actions/setup-python@{SHA}
          with:
            python-version: "3.12"
        - run: |
            test "$(command -v python)" = "$pythonLocation/bin/python"
            python -c 'import only_here, sys; assert sys.prefix != sys.base_prefix'
            python -m pip --version
            pip --version
        """, python=PythonToolcache(Path(getattr(sys, "_base_executable", sys.executable)),
                                    (site,)))
    assert job.result == "success", job.describe()


def test_a_step_that_never_ends_times_out(scenario: Scenario) -> None:
    job = scenario.job("- name: slow\n  timeout-minutes: 0.01\n  run: sleep 30\n")
    assert _step(job, "slow").outcome == "failure"
    assert "timed out" in _step(job, "slow").log

