"""Every shipped workflow, run for real by the Actions emulator (tests/actions_runner.py) on a
hostile pull request, for a same-repository pull request and for a fork's.

The workflows: ``action.yml`` (through the usage example of docs/ci.md), every recipe of
docs/recipes/ (``<commit-sha>`` filled in; the sharded one with 2 shards), and the mention
workflow of docs/ci.md (an ``issue_comment`` by a collaborator on the pull request). They
install pytest-secreview exactly as written (``pip install "... @ git+https://github.com/
OWNER/pytest-secreview@<sha>"``, the action's own checkout, the reusable workflow's
``job.workflow_repository``/``job.workflow_sha``) from a snapshot of this tree, offline: git
serves github.com from local repositories, pip has no index and sees the dependencies (never
pytest-secreview itself) through the job's Python.

The pull request adds a CRITICAL flaw (``pickle.loads`` of request data, an AWS access key id)
and files that write a marker outside the checkout if anything ever imports or runs them: a
``pip`` package and module, ``sitecustomize``/``usercustomize``, a ``.pth``, ``conftest.py``,
pytest configuration naming a plugin, a build backend, and executables in every ``bin``
directory a step could put on ``PATH``. For each workflow and both kinds of pull request:

1. no marker exists after the run: nothing of the checkout ran in any step;
2. the job's result is the review's: the first failing step is the review (the merge of the
   reusable workflow) ending with the verdict's exit status 1, every step before it
   succeeded, no other step failed (a fork's token cannot upload SARIF, create a check run or
   comment, and it gets no OIDC token: those steps must be skipped or succeed there); with no
   flaw the no-model recipe's job succeeds; the mention workflow succeeds and posts one answer;
3. on a fork, the step summary says what was skipped (the SARIF upload, the comment, the
   model); on the same repository it does not read so;
4. same repository: the SARIF log reached code scanning, a JUnit reporter read the review's
   JUnit file, exactly one summary comment was posted, and the model (where there is one)
   was asked with credentials it accepted.

Each test checks all four and reports every expectation that failed at once.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import secrets
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from tests.actions_runner import (
    ActionsGitHub,
    Event,
    JobRun,
    PullRequest,
    PythonToolcache,
    Runner,
    Status,
    StepRecord,
    WorkflowRun,
    dependency_links,
    evaluate_if,
    issue_comment_event,
    load_workflow,
    publish_pull_request,
    pull_request_event,
)
from tests.conftest import aws_key_id
from tests.distribution import snapshot
from tests.fake_providers import FakeServer, Recorded, Reply, anthropic_message, gemini_response
from tests.gitutil import GitRepo

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "ci.md"
RECIPES = ROOT / "docs" / "recipes"
PRODUCT = "OWNER/pytest-secreview"
REPOSITORY = "octo/app"
FORK = "mallory/app"
NUMBER = 7
SERVICE_ACCOUNT = "secreview@my-project.iam.gserviceaccount.com"
IMPERSONATED = "ya29.impersonated-for-secreview"
COLLABORATOR = "maintainer"


# ---------------------------------------------------------------------------------------------
# The product, installable offline
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Product:
    """The tree under test committed to a local repository (``sha``), the dependency links a
    job's Python sees, the pip cache every job of the session shares, and the build
    requirements the test environment does not meet (a hint when an install fails)."""

    repo: Path
    sha: str
    deps: Path
    pip_cache: Path
    build_gaps: tuple[str, ...] = ()


def _shared_dir(factory: pytest.TempPathFactory, name: str) -> Path:
    """A directory shared by every xdist worker of the session (the pip cache: a wheel built
    from one pinned commit serves them all)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def _unsatisfied_build_requirements(pyproject: Path) -> list[str]:
    """The build-system requirements this interpreter's environment does not meet (the job
    builds the wheel without isolation, from the dependencies the test venv has)."""
    requires = tomllib.loads(pyproject.read_text())["build-system"]["requires"]
    missing = []
    for text in requires:
        requirement = Requirement(text)
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(f"{text} (not installed)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{text} (installed: {version})")
    return missing


@pytest.fixture(scope="session")
def product(tmp_path_factory: pytest.TempPathFactory) -> Product:
    """The tree under test as the repository the workflows install from, once per worker
    (same files, same commit: the workers share the wheel pip caches for it)."""
    root = tmp_path_factory.mktemp("product")
    sha = snapshot(root / "pytest-secreview")
    gaps = _unsatisfied_build_requirements(root / "pytest-secreview" / "pyproject.toml")
    paths = sysconfig.get_paths()
    sites = sorted({Path(paths["purelib"]), Path(paths["platlib"])})
    deps = dependency_links(
        sites, root / "deps",
        # The product comes only from what the workflow installs: not the test venv's copy,
        # its metadata or its editable-install hooks.
        leave_out=lambda name: name.startswith(("pytest_secreview", "__editable__")))
    return Product(root / "pytest-secreview", sha, deps,
                   _shared_dir(tmp_path_factory, "pip-cache"), tuple(gaps))


# ---------------------------------------------------------------------------------------------
# The hostile pull request
# ---------------------------------------------------------------------------------------------

#: Directories a step might put on PATH (GITHUB_PATH) or a tool might look in.
SHIM_DIRS = ("bin", ".venv/bin", "venv/bin", ".local/bin", "node_modules/.bin")
SHIM_NAMES = ("python", "python3", "pip", "pip3", "secreview", "pytest", "git", "bash")


def _python_payload(markers: Path, name: str) -> str:
    return textwrap.dedent(f"""\
        # Benign stand-in for a hostile file: it records that it ran, nothing else.
        import os as _os
        import sys as _sys
        _os.makedirs({str(markers)!r}, exist_ok=True)
        with open(_os.path.join({str(markers)!r}, {name!r} + "-" + str(_os.getpid())),
                  "w") as _f:
            _f.write(" ".join(_sys.argv))
        """)


def hostile_files(markers: Path) -> dict[str, str]:
    """Every file of the checkout that must never run, each writing a marker into
    ``markers`` if it does."""
    files = {
        "pip/__init__.py": _python_payload(markers, "pip-package"),
        "pip/__main__.py": _python_payload(markers, "pip-main"),
        "pip.py": _python_payload(markers, "pip-module"),
        "sitecustomize.py": _python_payload(markers, "sitecustomize"),
        "usercustomize.py": _python_payload(markers, "usercustomize"),
        "conftest.py": _python_payload(markers, "conftest"),
        "evil_plugin.py": _python_payload(markers, "pytest-plugin"),
        "evil_backend.py": _python_payload(markers, "build-backend"),
        "evil.pth": (f"import os; os.makedirs({str(markers)!r}, exist_ok=True); "
                     f"open(os.path.join({str(markers)!r}, 'pth-' + str(os.getpid())), 'w')\n"),
        "pytest.ini": "[pytest]\naddopts = -p evil_plugin\n",
        "pyproject.toml": textwrap.dedent("""\
            [build-system]
            requires = []
            build-backend = "evil_backend"
            backend-path = ["."]

            [tool.pytest.ini_options]
            addopts = "-p evil_plugin"
            """),
    }
    for directory in SHIM_DIRS:
        for name in SHIM_NAMES:
            label = f"{directory}/{name}".replace("/", "_")
            files[f"{directory}/{name}"] = (
                f"#!/bin/sh\nmkdir -p '{markers}'\necho \"$0 $*\" > '{markers}/{label}-'$$\n")
    return files


def flaw() -> str:
    """A Flask route that unpickles the request body, and an AWS access key id."""
    return textwrap.dedent(f"""\
        import pickle

        from flask import Flask, request

        app = Flask(__name__)
        AWS_ACCESS_KEY_ID = "{aws_key_id()}"


        @app.route("/load", methods=["POST"])
        def load():
            return str(pickle.loads(request.data))
        """)


@dataclass(frozen=True)
class HostileRepo:
    """A repository whose pull request ``pr`` is served by the bare ``origin``; ``markers`` is
    where its hostile files write if they ever run."""

    origin: Path
    pr: PullRequest
    markers: Path
    patches: dict[str, str | None]


def build_hostile_repo(root: Path, *, fork: bool, flawed: bool) -> HostileRepo:
    markers = root / "markers"
    repo = GitRepo(root / "work")
    repo.write("README.md", "A small service.\n")
    repo.write("service.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.branch("feature")
    for rel, text in hostile_files(markers).items():
        path = repo.write(rel, text)
        if text.startswith("#!"):
            path.chmod(0o755)
    if flawed:
        repo.write("app.py", flaw())
    repo.commit("pull request")
    pr = publish_pull_request(repo.path, root / "origin.git", number=NUMBER, fork=fork)
    patches: dict[str, str | None] = {}
    diff = repo.git("diff", f"{pr.base_sha}...{pr.head_sha}")
    for chunk in re.split(r"(?m)^diff --git ", diff)[1:]:
        name = chunk.split("\n", 1)[0].split(" b/", 1)[1]
        hunk = chunk.find("\n@@")
        patches[name] = chunk[hunk + 1:] if hunk >= 0 else None
    return HostileRepo(root / "origin.git", pr, markers, patches)


@pytest.fixture(scope="session")
def hostile_repos(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bool, bool],
                                                                         HostileRepo]:
    """One repository per kind (fork or not, flawed or clean), built once per worker."""
    built: dict[tuple[bool, bool], HostileRepo] = {}

    def get(fork: bool, flawed: bool) -> HostileRepo:
        if (fork, flawed) not in built:
            root = tmp_path_factory.mktemp(f"{'fork' if fork else 'same'}-"
                                           f"{'flawed' if flawed else 'clean'}")
            built[(fork, flawed)] = build_hostile_repo(root, fork=fork, flawed=flawed)
        return built[(fork, flawed)]

    return get


# ---------------------------------------------------------------------------------------------
# Fake model providers and Google's token services
# ---------------------------------------------------------------------------------------------


@dataclass
class Keys:
    """The scenario's credentials (random per test; none looks like a real key)."""

    anthropic: str = field(default_factory=lambda: "test-anthropic-" + secrets.token_hex(8))
    openai: str = field(default_factory=lambda: "test-openai-" + secrets.token_hex(8))


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if "function" in tool:
            names.append(tool["function"]["name"])
        elif "functionDeclarations" in tool:
            names += [d["name"] for d in tool["functionDeclarations"]]
        elif "name" in tool:
            names.append(tool["name"])
    return names


def _final_call(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call that ends the agent loop at once: the answer to a mention's question, the
    intent audit's verdict (the change does what it says), or a review's "no finding"."""
    tools = _tool_names(body)
    if "answer_question" in tools:
        return "answer_question", {"answer": "The change unpickles request data: unsafe."}
    if "report_verdict" in tools:
        return "report_verdict", {"verdict": "MATCH",
                                  "summary": "The change does what its description says."}
    return "report_findings", {"findings": []}


def model_responder(keys: Keys, statuses: list[int]) -> Callable[[Recorded], Reply]:
    """One server for the three wire formats; each route checks its credential as the real
    provider would (401 otherwise), so a key or token that did not reach the review fails.
    The status of every answer is appended to ``statuses``."""

    def respond(request: Recorded) -> Reply:
        reply = _answer(request)
        statuses.append(reply.status)
        return reply

    def _answer(request: Recorded) -> Reply:
        body = request.json or {}
        name, args = _final_call(body)
        if request.path.endswith("/chat/completions"):
            if request.headers.get("authorization") != f"Bearer {keys.openai}":
                return Reply(401, {"error": {"message": "Incorrect API key provided"}})
            return Reply(json={"id": "chatcmpl-1", "object": "chat.completion",
                               "model": "gpt-4.1", "choices": [{
                                   "index": 0, "finish_reason": "tool_calls", "message": {
                                       "role": "assistant", "content": None, "tool_calls": [{
                                           "id": "c1", "type": "function", "function": {
                                               "name": name, "arguments": json.dumps(args)}}]}}],
                               "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                         "total_tokens": 15}})
        if request.path.endswith("/v1/messages"):
            if request.headers.get("x-api-key") != keys.anthropic:
                return Reply(401, {"type": "error", "error": {
                    "type": "authentication_error", "message": "invalid x-api-key"}})
            return Reply(json=anthropic_message(
                [{"type": "tool_use", "id": "toolu_1", "name": name, "input": args}],
                "tool_use"))
        if request.path.endswith(":generateContent"):
            if request.headers.get("authorization") != f"Bearer {IMPERSONATED}":
                return Reply(401, {"error": {"code": 401, "status": "UNAUTHENTICATED",
                                             "message": "Request had invalid credentials."}})
            return Reply(json=gemini_response([{"functionCall": {"name": name, "args": args}}]))
        return Reply(404, {"error": {"message": f"no route {request.path}"}})

    return respond


def google_responder(github: ActionsGitHub) -> Callable[[Recorded], Reply]:
    """STS (an OIDC token the runner issued, for a federated token) and IAM Credentials
    (the federated token, for the service account's)."""

    def respond(request: Recorded) -> Reply:
        if request.path == "/v1/token":
            if request.form.get("subject_token") not in github.id_tokens:
                return Reply(400, {"error": "invalid_grant",
                                   "error_description": "The subject token is invalid."})
            return Reply(json={"access_token": "ya29.federated", "expires_in": 3600,
                               "token_type": "Bearer",
                               "issued_token_type":
                                   "urn:ietf:params:oauth:token-type:access_token"})
        if request.path.endswith(f"/serviceAccounts/{SERVICE_ACCOUNT}:generateAccessToken"):
            if request.headers.get("authorization") != "Bearer ya29.federated":
                return Reply(401, {"error": {"code": 401, "message": "unauthenticated"}})
            return Reply(json={"accessToken": IMPERSONATED,
                               "expireTime": "2099-01-01T00:00:00Z"})
        return Reply(404, {"error": {"message": f"no route {request.path}"}})

    return respond


# ---------------------------------------------------------------------------------------------
# The workflows, as shipped
# ---------------------------------------------------------------------------------------------


def _yaml_blocks(section: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)


def _docs_section(title: str) -> str:
    page = DOCS.read_text()
    start = page.index(title)
    end = page.find("\n## ", start + len(title))
    return page[start:end if end > 0 else len(page)]


_PINNED = re.compile(r"(OWNER/pytest-secreview(?:/[\w./-]+)?@)(<commit-sha>|[0-9a-f]{40})")


def _pin(text: str, sha: str) -> str:
    """The workflow as a user pins it: the commit after ``OWNER/pytest-secreview...@`` (the
    ``<commit-sha>`` placeholder, or a stand-in sha) becomes the snapshot's."""
    pinned, count = _PINNED.subn(lambda m: m.group(1) + sha, text)
    assert count, "the shipped workflow pins pytest-secreview to a commit"
    return pinned


def action_usage(sha: str) -> dict[str, Any]:
    """The usage example of docs/ci.md ("The action"), in a pull_request job with exactly
    the permissions that section names (`contents: read`, `pull-requests: write`, ...)."""
    section = _docs_section("## The action")
    (example,) = _yaml_blocks(section)[:1]
    steps = yaml.safe_load(textwrap.dedent(_pin(example, sha)))["steps"]
    permissions: dict[str, str] = {}
    for scope, level in re.findall(r"`([a-z-]+): (read|write)`", section):
        if permissions.get(scope) != "write":
            permissions[scope] = level
    return {"name": "security review", "on": {"pull_request": None}, "permissions": {},
            "jobs": {"secreview": {"runs-on": "ubuntu-latest", "permissions": permissions,
                                   "steps": steps}}}


def recipe(name: str) -> Callable[[str], dict[str, Any]]:
    def load(sha: str) -> dict[str, Any]:
        workflow = load_workflow(_pin((RECIPES / name).read_text(), sha))
        for job in workflow["jobs"].values():
            if "shards" in (job.get("with") or {}):
                job["with"]["shards"] = 2  # the same workflow, two shards to keep it fast
        return workflow

    return load


def mention_workflow(sha: str) -> dict[str, Any]:
    (example,) = _yaml_blocks(_docs_section("## Answering @secreview mentions"))[:1]
    return load_workflow(_pin(example, sha))


@dataclass(frozen=True)
class Shipped:
    """A workflow to run and what it does: ``model`` (it asks a model), ``mention`` (it
    answers a comment instead of reviewing)."""

    load: Callable[[str], dict[str, Any]]
    model: bool = True
    mention: bool = False


def _asks_a_model(node: Any) -> bool:
    """True when a workflow names a model: a ``SECREVIEW_MODEL`` in some ``env:`` or a
    ``model`` input given to the action or the reusable workflow."""
    if isinstance(node, dict):
        return any((key in ("SECREVIEW_MODEL", "model") and isinstance(value, str) and value)
                   or _asks_a_model(value) for key, value in node.items())
    if isinstance(node, list):
        return any(_asks_a_model(item) for item in node)
    return False


WORKFLOWS: dict[str, Shipped] = {
    "action": Shipped(action_usage),
    **{f"recipe-{path.stem}": Shipped(recipe(path.name),
                                      model=_asks_a_model(yaml.safe_load(path.read_text())))
       for path in sorted(RECIPES.glob("*.yml"))},
    "mention": Shipped(mention_workflow, mention=True),
}


# ---------------------------------------------------------------------------------------------
# Running one
# ---------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """A finished run and everything the checks read."""

    run: WorkflowRun
    runner: Runner
    github: ActionsGitHub
    #: the status of each answer of the model server (401: a credential did not arrive)
    model_statuses: list[int]
    markers: list[str]

    def describe(self) -> str:
        return self.run.describe()


def run_shipped(name: str, *, fork: bool, flawed: bool, product: Product,
                hostile_repos: Callable[[bool, bool], HostileRepo], tmp_path: Path) -> Outcome:
    shipped = WORKFLOWS[name]
    repo = hostile_repos(fork, flawed)
    for marker in repo.markers.glob("*"):
        marker.unlink()
    keys = Keys()
    head_repository = FORK if fork else REPOSITORY
    event: Event
    if shipped.mention:
        event = issue_comment_event(repo.pr, repository=REPOSITORY,
                                    head_repository=head_repository,
                                    body="@secreview is the new /load route safe?",
                                    commenter=COLLABORATOR, association="COLLABORATOR")
    else:
        event = pull_request_event(repo.pr, repository=REPOSITORY,
                                   head_repository=head_repository)
    # A fork's pull_request run gets a read-only token; a comment event runs in the base
    # repository with the token its permissions grant, whoever opened the pull request.
    read_only = fork and not shipped.mention
    with ActionsGitHub(token="unused-" + secrets.token_hex(4), repository=REPOSITORY,
                       number=NUMBER, head_sha=repo.pr.head_sha, read_only=read_only,
                       files=dict(repo.patches),
                       permissions={COLLABORATOR: "write"}) as github:
        statuses: list[int] = []
        model = FakeServer(model_responder(keys, statuses)).start()
        google = FakeServer(google_responder(github)).start()
        try:
            runner = Runner(
                tmp_path / "run", github=github, event=event, repository=REPOSITORY,
                repositories={REPOSITORY: repo.origin, PRODUCT: product.repo},
                python=PythonToolcache(Path(getattr(sys, "_base_executable", sys.executable)),
                                       (product.deps,)),
                secrets={"ANTHROPIC_API_KEY": keys.anthropic, "OPENAI_API_KEY": keys.openai},
                vars={"SECREVIEW_API_BASE": model.url + "/v1",
                      "GCP_WORKLOAD_IDENTITY_PROVIDER":
                          "projects/123456/locations/global/workloadIdentityPools/github/"
                          "providers/app",
                      "GCP_SERVICE_ACCOUNT": SERVICE_ACCOUNT, "GCP_PROJECT": "my-project"},
                fork_pull_request=read_only,
                machine_env={
                    # pip: no index, the wheel cache of the session, no build isolation
                    # (pip reads PIP_NO_BUILD_ISOLATION inverted: 0 turns isolation off).
                    "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
                    "PIP_CACHE_DIR": str(product.pip_cache),
                    "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_PROGRESS_BAR": "off",
                    # The Anthropic and Vertex routes have no base-URL setting in the
                    # workflows: the machine's points them at the fake.
                    "SECREVIEW_API_BASE": model.url,
                    # `-n auto` sees a one-core runner: the test's own workers already
                    # share this machine's cores, and fewer processes start.
                    "PYTEST_XDIST_AUTO_NUM_WORKERS": "1",
                    # Anything that still tries the network meets a closed local port.
                    "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
                    "NO_PROXY": "127.0.0.1,localhost"},
                google_endpoint=google.url)
            run = runner.run_workflow(shipped.load(product.sha))
        finally:
            model.stop()
            google.stop()
    markers = sorted(p.name for p in repo.markers.glob("*"))
    return Outcome(run, runner, github, statuses, markers)


# ---------------------------------------------------------------------------------------------
# What each run must show
# ---------------------------------------------------------------------------------------------

_SECREVIEW = re.compile(r"(^|[\s;&|(])secreview(\s|$)", re.MULTILINE)


def _runs_review(step: StepRecord) -> bool:
    """The step that runs the review (or the merge of the shards): its script calls the
    secreview command."""
    return bool(step.run and _SECREVIEW.search(step.run))


def _ran(jobs: list[JobRun]) -> list[JobRun]:
    return [j for j in jobs if j.result != "skipped" and j.steps]


def check_no_marker(outcome: Outcome) -> list[str]:
    if outcome.markers:
        return [f"1. files of the checkout ran: {', '.join(outcome.markers)}"]
    return []


def check_result(outcome: Outcome, *, expect_failure: bool) -> list[str]:
    problems: list[str] = []
    run = outcome.run
    for job in _ran(run.all_jobs()):
        failed = [s for s in job.all_steps() if s.failed and not s.steps]
        first = job.first_failure()
        if first is not None:
            index = job.all_steps().index(first)
            early = [s.name for s in job.all_steps()[:index]
                     if s.ran and s.outcome != "success" and not s.steps]
            if early:
                problems.append(f"2. {job.name}: steps before {first.name!r} did not succeed: "
                                f"{early}")
            if not _runs_review(first):
                problems.append(f"2. {job.name}: the first failing step is {first.name!r}, "
                                "not the review")
            elif first.exit_code != 1:
                # 1 is the review's verdict (an item failed); 127 is a missing command, 2 to
                # 5 are pytest's interruptions, usage errors and "no tests".
                problems.append(f"2. {job.name}: {first.name!r} ended with exit status "
                                f"{first.exit_code}, not the review's verdict (1)")
        others = [s.name for s in failed if s is not first]
        if others:
            problems.append(f"2. {job.name}: other steps failed too: {others}")
        if job.error:
            problems.append(f"2. {job.name}: {job.error}")
    expected = "failure" if expect_failure else "success"
    if run.conclusion != expected:
        problems.append(f"2. the run's result is {run.conclusion}, expected {expected}")
    if expect_failure and not any(
            s.failed and _runs_review(s) for j in run.all_jobs() for s in j.all_steps()):
        problems.append("2. no review step failed, yet the pull request has a CRITICAL flaw")
    return problems


#: What a fork's step summary must say was skipped, and a pattern for the sentence.
_SKIP = r"(skip|not |no |without|unavailable|disabled|cannot|can't|isn't|wasn't)"
SKIPPED_NOTES = {
    "SARIF upload": re.compile(rf"(?im)^.*(sarif|code scanning).*{_SKIP}.*$|^.*{_SKIP}.*"
                               r"(sarif|code scanning).*$"),
    "comment": re.compile(rf"(?im)^.*comment.*{_SKIP}.*$|^.*{_SKIP}.*comment.*$"),
    "model": re.compile(rf"(?im)^.*model.*{_SKIP}.*$|^.*{_SKIP}.*model.*$"),
}


def _summary(outcome: Outcome) -> str:
    return "\n".join(j.summary for j in outcome.run.all_jobs())


def _notes_needed(shipped: Shipped) -> list[str]:
    return ["SARIF upload", "comment"] + (["model"] if shipped.model else [])


def check_fork_summary(outcome: Outcome, shipped: Shipped) -> list[str]:
    summary = _summary(outcome)
    return [f"3. the fork's step summary does not say the {what} was skipped"
            for what in _notes_needed(shipped) if not SKIPPED_NOTES[what].search(summary)]


def check_no_fork_notes(outcome: Outcome, shipped: Shipped) -> list[str]:
    """The other side of check 3: where nothing is skipped, the summary must not read as if
    it were (else check 3 would pass on any summary)."""
    summary = _summary(outcome)
    problems = [] if summary else ["3. the review wrote no step summary"]
    return problems + [f"3. a same-repository summary reads as if the {what} was skipped: "
                       f"{match.group(0)[:200]!r}"
                       for what in _notes_needed(shipped)
                       if (match := SKIPPED_NOTES[what].search(summary))]


def check_published(outcome: Outcome, shipped: Shipped) -> list[str]:
    problems = []
    if shipped.model and (not outcome.model_statuses
                          or any(s != 200 for s in outcome.model_statuses)):
        problems.append(f"4. the model was not asked with valid credentials (answers: "
                        f"{sorted(set(outcome.model_statuses))})")
    uploads = outcome.github.sarif_uploads
    if not uploads:
        problems.append("4. no SARIF log reached code scanning")
    elif not any(run.get("results") for u in uploads for run in u["sarif"]["runs"]):
        problems.append("4. the SARIF uploaded has no result, yet the review found the flaw")
    reads = [r for r in outcome.runner.junit_reads if r.tests]
    if not reads:
        problems.append("4. no JUnit reporter read the review's JUnit file")
    comments = outcome.github.summary_comments()
    if len(comments) != 1:
        problems.append(f"4. {len(comments)} summary comments posted, expected exactly one")
    return problems


def check_answered(outcome: Outcome) -> list[str]:
    replies = [c for c in outcome.github.issue_comments
               if c["user"]["login"] == "github-actions[bot]"]
    if len(replies) != 1:
        return [f"2. {len(replies)} answers posted to the question, expected one"]
    return []


def _report(outcome: Outcome, problems: list[str], product: Product) -> str:
    hint = ("\nnote: the jobs build pytest-secreview without build isolation or an index, "
            "and the test environment lacks build requirements: " + ", ".join(
                product.build_gaps) + "\n") if product.build_gaps else ""
    return ("\n".join(problems) + "\n" + hint + "\n--- the run ---\n" + outcome.describe()
            + "\n--- step summary ---\n" + _summary(outcome)[-3000:])


@pytest.mark.parametrize("fork", [False, True], ids=["same-repository", "fork"])
@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_a_shipped_workflow_on_a_hostile_pull_request(
    name: str, fork: bool, product: Product, hostile_repos: Callable[[bool, bool], HostileRepo],
    tmp_path: Path,
) -> None:
    shipped = WORKFLOWS[name]
    outcome = run_shipped(name, fork=fork, flawed=True, product=product,
                          hostile_repos=hostile_repos, tmp_path=tmp_path)
    problems = check_no_marker(outcome)
    if shipped.mention:
        problems += check_result(outcome, expect_failure=False) + check_answered(outcome)
    else:
        problems += check_result(outcome, expect_failure=True)
        if fork:
            problems += check_fork_summary(outcome, shipped)
        else:
            problems += check_published(outcome, shipped) + check_no_fork_notes(outcome, shipped)
    assert not problems, _report(outcome, problems, product)


@pytest.mark.parametrize("fork", [False, True], ids=["same-repository", "fork"])
def test_without_a_flaw_the_no_model_recipe_passes_and_runs_nothing_of_the_checkout(
    fork: bool, product: Product, hostile_repos: Callable[[bool, bool], HostileRepo],
    tmp_path: Path,
) -> None:
    outcome = run_shipped("recipe-no-model", fork=fork, flawed=False, product=product,
                          hostile_repos=hostile_repos, tmp_path=tmp_path)
    problems = check_no_marker(outcome) + check_result(outcome, expect_failure=False)
    assert not problems, _report(outcome, problems, product)


#: How a careless workflow would run the checkout, and the markers that must then appear
#: (check 1 can fail: each hostile file does fire when something runs it).
CARELESS = [
    ("python -m pip in the checkout", ["-m", "pip", "--version"], {}, "pip-main"),
    ("a bin directory of the checkout on PATH", None, {}, "bin_secreview"),
    ("the checkout on PYTHONPATH", ["-c", "pass"], {"PYTHONPATH": "."}, "sitecustomize"),
    ("the checkout as a site directory", ["-c", "import site; site.addsitedir('.')"], {},
     "pth"),
    ("pytest in the checkout", ["-m", "pytest", "--collect-only", "-q"], {}, "pytest-plugin"),
    ("pytest in the checkout, its conftest", ["-m", "pytest", "--collect-only", "-q", "-p",
                                               "no:evil_plugin"], {}, "conftest"),
    ("pip install of the checkout", ["-m", "pip", "install", "--no-index",
                                     "--no-build-isolation", "--dry-run", "."],
     {"PYTHONSAFEPATH": "1"}, "build-backend"),
]


@pytest.mark.parametrize(("args", "env", "marker"), [c[1:] for c in CARELESS],
                         ids=[c[0] for c in CARELESS])
def test_each_hostile_file_leaves_a_marker_when_something_runs_it(
    tmp_path: Path, args: list[str] | None, env: dict[str, str], marker: str,
) -> None:
    markers = tmp_path / "markers"
    checkout = tmp_path / "checkout"
    for rel, text in hostile_files(markers).items():
        path = checkout / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if text.startswith("#!"):
            path.chmod(0o755)
    if args is None:
        command = ["secreview", "--version"]
        env = {"PATH": f"{checkout / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    else:
        command = [sys.executable, *args]
    subprocess.run(command, cwd=checkout, env={**os.environ, **env}, capture_output=True,
                   timeout=120, check=False)
    assert any(p.name.startswith(marker) for p in markers.glob("*")), (
        f"{marker} left no marker: {sorted(p.name for p in markers.glob('*'))}")


#: Comments on a pull request and whether the mention workflow's job starts for them.
MENTIONS = [
    ("a collaborator's question", "@secreview is this safe?", "COLLABORATOR", "User", True,
     True),
    ("a member's question", "@secreview why?", "MEMBER", "User", True, True),
    ("a stranger's question", "@secreview is this safe?", "NONE", "User", True, False),
    ("a contributor's question", "@secreview is this safe?", "CONTRIBUTOR", "User", True,
     False),
    ("a bot's comment", "@secreview is this safe?", "COLLABORATOR", "Bot", True, False),
    ("no mention", "looks good to me", "OWNER", "User", True, False),
    ("a comment on a plain issue", "@secreview is this safe?", "OWNER", "User", False, False),
]


@pytest.mark.parametrize(("body", "association", "user_type", "on_pull_request", "starts"),
                         [c[1:] for c in MENTIONS], ids=[c[0] for c in MENTIONS])
def test_the_mention_workflow_starts_only_for_a_trusted_mention_on_a_pull_request(
    body: str, association: str, user_type: str, on_pull_request: bool, starts: bool,
) -> None:
    (job,) = mention_workflow("0" * 40)["jobs"].values()
    pr = PullRequest(NUMBER, "main", "b" * 40, "feature", "c" * 40, "d" * 40)
    event = issue_comment_event(pr, repository=REPOSITORY, head_repository=FORK, body=body,
                                commenter="someone", association=association,
                                user_type=user_type)
    if not on_pull_request:
        del event.payload["issue"]["pull_request"]
    github = {"event": event.payload, "event_name": event.name, "repository": REPOSITORY}
    assert evaluate_if(job["if"], {"github": github}, status=Status()) is starts
