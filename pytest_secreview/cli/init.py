"""``secreview init``: set a repository up for the review.

It writes ``.github/workflows/secreview.yml``, a GitHub Actions workflow that reviews every pull
request: one job with ``--shards 1`` (the default), or a caller of pytest-secreview's reusable
workflow that spreads the review over several jobs. ``--provider`` chooses the model route (none:
the deterministic rules only). With ``--rule NAME`` it also writes a starter team rule,
``secreview/rules/NAME.md`` (the directory the review loads beside the bundled pack).

pytest-secreview is not on PyPI, so the workflow installs it from its git repository pinned to a
commit (``--source OWNER/REPO@COMMIT``; by default the repository and commit this copy was
installed from, when pip recorded them). Without one it writes the placeholders ``OWNER`` and
a commit of 40 zeros and says to fill them in. The recipes under ``docs/recipes/`` are this
command's output with those placeholders, checked by the tests.

An existing file is never overwritten without ``--force``. Exit status: 0 written, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..atomic import write_text_atomic
from ..errors import SecreviewError
from ..gitcmd import run_git
from ..rules.loader import REPO_RULES_DIR, bundled_rules_dir
from ..rules.parse import parse_rule

WORKFLOW_PATH = Path(".github/workflows/secreview.yml")
#: Written when the source of pytest-secreview is unknown; the user replaces both parts. The
#: commit is 40 zeros rather than a word: a pin of the right shape keeps the workflow
#: linter-clean as shipped, and pip fails on it at once if it is left in.
PLACEHOLDER_COMMIT = "0" * 40
PLACEHOLDER_SOURCE = f"OWNER/pytest-secreview@{PLACEHOLDER_COMMIT}"
MAX_SHARDS = 32  # the reusable workflow's own limit

# Every action is pinned to a commit (the same pins as the reusable workflow).
CHECKOUT = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2"
SETUP_PYTHON = "actions/setup-python@0b93645e9fea7318ecaed2b359559ac225c90a2b # v5.3.0"
GOOGLE_AUTH = "google-github-actions/auth@ba79af03959ebeac9769e648f473a284504d9193 # v2.1.10"
UPLOAD_SARIF = ("github/codeql-action/upload-sarif@5d4e8d1aca955e8d8589aabd499c5cae939e33c7"
                " # v4.31.9")
JUNIT_REPORT = ("mikepenz/action-junit-report@3585e9575db828022551b4231f165eb59a0e74e3"
                " # v5.6.2")

_SOURCE = re.compile(r"(?P<repo>[A-Za-z0-9-]+/[A-Za-z0-9._-]+)@(?P<commit>[0-9a-f]{40})")
_MODEL = re.compile(r"[A-Za-z0-9._:/@-]+")
_RULE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
_GITHUB_URL = re.compile(r"https://github\.com/(?P<repo>[A-Za-z0-9-]+/[A-Za-z0-9._-]+?)(\.git)?/?")


@dataclass(frozen=True)
class Provider:
    """How a workflow reaches one model route: its credentials, as repository variables and
    secrets the user creates once."""

    name: str
    label: str
    model: str  # the default --secreview-model
    prefix: str  # what a model string of this route looks like
    env: tuple[tuple[str, str], ...]  # the review step's credentials (single job)
    with_inputs: tuple[tuple[str, str], ...] = ()  # the reusable workflow's inputs
    model_api_key: str | None = None  # the reusable workflow's secret of that name
    vertex: bool = False  # Workload Identity Federation: id-token and the auth step
    shardable: bool = True


PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    Provider("none", "deterministic rules only, no model", "", "", ()),
    Provider(
        "vertex", "Vertex AI through Workload Identity Federation", "google/gemini-2.5-pro",
        "a Vertex AI model such as google/gemini-2.5-pro or anthropic/claude-sonnet-4-5",
        (("GOOGLE_CLOUD_PROJECT", "${{ vars.GCP_PROJECT }}"),),
        (("workload-identity-provider", "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}"),
         ("service-account", "${{ vars.GCP_SERVICE_ACCOUNT }}"),
         ("gcp-project", "${{ vars.GCP_PROJECT }}")),
        vertex=True),
    Provider(
        "anthropic", "Anthropic's API", "anthropic:claude-sonnet-4-5", "anthropic:<model>",
        (("ANTHROPIC_API_KEY", "${{ secrets.ANTHROPIC_API_KEY }}"),),
        model_api_key="${{ secrets.ANTHROPIC_API_KEY }}"),
    Provider(
        "openai", "an OpenAI-compatible server (vLLM, Ollama, LiteLLM, a hosted API)",
        "openai:gpt-4.1", "openai:<model>",
        (("SECREVIEW_API_BASE", "${{ vars.SECREVIEW_API_BASE }}"),
         ("OPENAI_API_KEY", "${{ secrets.OPENAI_API_KEY }}")),
        shardable=False),
)}

#: What each provider needs in the repository's settings (Secrets and variables > Actions).
SETUP_NOTES: dict[str, tuple[str, ...]] = {
    "none": ("nothing: no secret, no variable",),
    "vertex": ("variable GCP_WORKLOAD_IDENTITY_PROVIDER: projects/N/locations/global/"
               "workloadIdentityPools/POOL/providers/PROVIDER",
               "variable GCP_SERVICE_ACCOUNT: the service account it impersonates",
               "variable GCP_PROJECT: the Google Cloud project"),
    "anthropic": ("secret ANTHROPIC_API_KEY",),
    "openai": ("variable SECREVIEW_API_BASE: the server's base URL (e.g. https://host/v1)",
               "secret OPENAI_API_KEY, if the server asks for a key"),
}


def _check_model(provider: Provider, model: str | None) -> str:
    chosen = model or provider.model
    if provider.name == "none":
        if model:
            raise SecreviewError(f"--model {model!r} needs a --provider (vertex, anthropic or "
                                 "openai); --provider none reviews with the deterministic rules")
        return ""
    route_ok = (chosen.startswith(f"{provider.name}:") if provider.name != "vertex"
                else "/" in chosen and ":" not in chosen)
    if not _MODEL.fullmatch(chosen) or not route_ok:
        raise SecreviewError(f"--model {chosen!r} is not a model of --provider "
                             f"{provider.name}: give {provider.prefix}")
    return chosen


def _requirement(source: str) -> str:
    repo, _, commit = source.partition("@")
    return f"pytest-secreview[scanners] @ git+https://github.com/{repo}@{commit}"


#: The job-level test for a pull request from this repository (not a fork): GitHub gives a
#: fork's workflow a read-only token, no secrets and no OIDC token.
SAME_REPOSITORY = "${{ github.event.pull_request.head.repo.full_name == github.repository }}"


def _fork_notice(provider: Provider) -> str:
    """A step that writes into the step summary what a fork's pull request skips, so an empty
    checks tab or a missing comment is explained where the job's result is read."""
    skipped = ["the SARIF upload to code scanning", "the JUnit check in the checks tab",
               "the PR comment"]
    if provider.name != "none":
        skipped.insert(0, "the model review (no credentials)")
    return (
        "      - name: say what a pull request from a fork skips\n"
        "        if: env.SAME_REPOSITORY != 'true'\n"
        "        working-directory: ${{ runner.temp }}\n"
        "        run: |\n"
        "          {\n"
        '            echo "### secreview: pull request from a fork"\n'
        '            echo "GitHub gives a fork\'s workflow a read-only token and no secrets, '
        'so this job skipped ' + ", ".join(skipped[:-1]) + " and " + skipped[-1] + '."\n'
        '            echo "The deterministic review ran; its verdict is the job\'s result."\n'
        '          } >> "$GITHUB_STEP_SUMMARY"\n'
    )


def _single_job(provider: Provider, model: str, source: str) -> str:
    permissions = ["contents: read            # check out the pull request"]
    if provider.vertex:
        permissions.append("id-token: write           # Workload Identity Federation for Vertex AI")
    permissions += ["pull-requests: write      # the one summary comment",
                    "security-events: write    # the SARIF upload",
                    "checks: write             # the JUnit results in the checks tab"]
    auth = ""
    if provider.vertex:
        auth = ("      - if: env.SAME_REPOSITORY == 'true'   # a fork's job has no OIDC token\n"
                f"        uses: {GOOGLE_AUTH}\n"
                "        with:\n"
                "          workload_identity_provider: ${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}\n"
                "          service_account: ${{ vars.GCP_SERVICE_ACCOUNT }}\n")
    env = ["SECREVIEW_UNREVIEWED: fail    # what could not be reviewed fails the job",
           "GITHUB_TOKEN: ${{ github.token }}",
           "SECREVIEW_COMMENT: ${{ env.SAME_REPOSITORY == 'true' && 'summary' || 'off' }}",
           "SECREVIEW_OSV_URL: https://api.osv.dev  # changed dependencies' known advisories"]
    if model:
        env.append(f"SECREVIEW_MODEL: ${{{{ env.SAME_REPOSITORY == 'true' && '{model}' || '' }}}}")
    env += [f"{key}: {value}" for key, value in provider.env]
    return (
        "jobs:\n"
        "  secreview:\n"
        "    name: security review\n"
        "    runs-on: ubuntu-latest\n"
        "    permissions:\n"
        + "".join(f"      {line}\n" for line in permissions)
        + "    env:\n"
        f"      SAME_REPOSITORY: {SAME_REPOSITORY}\n"
        "    steps:\n"
        f"      - uses: {CHECKOUT}\n"
        "        with:\n"
        "          fetch-depth: 0        # the review needs the merge base\n"
        "          persist-credentials: false\n"
        f"      - uses: {SETUP_PYTHON}\n"
        "        with:\n"
        '          python-version: "3.12"\n'
        + auth
        + "      - name: install pytest-secreview from its repository\n"
        "        # Outside the checkout: `python -m` puts the working directory first on\n"
        "        # sys.path, and the checkout is the pull request's (its pip/ folder would run).\n"
        "        working-directory: ${{ runner.temp }}\n"
        f'        run: python -m pip install "{_requirement(source)}"\n'
        + _fork_notice(provider)
        + "      - name: review\n"
        "        id: review\n"
        "        env:\n"
        + "".join(f"          {line}\n" for line in env)
        + "        # Outputs go to the runner's temporary directory: the checkout is the pull\n"
        "        # request's, and a file it commits must never pass for the review's report.\n"
        "        run: |\n"
        "          status=0\n"
        '          secreview -n auto --junitxml="$RUNNER_TEMP/secreview.xml" \\\n'
        '            --secreview-sarif="$RUNNER_TEMP/secreview.sarif" || status=$?\n'
        '          for name in sarif xml; do\n'
        '            if [ -f "$RUNNER_TEMP/secreview.$name" ]; then\n'
        '              echo "$name=true" >> "$GITHUB_OUTPUT"\n'
        "            fi\n"
        "          done\n"
        '          exit "$status"\n'
        "      - if: always() && steps.review.outputs.sarif == 'true' && env.SAME_REPOSITORY == "
        "'true'\n"
        f"        uses: {UPLOAD_SARIF}\n"
        "        with:\n"
        "          sarif_file: ${{ runner.temp }}/secreview.sarif\n"
        "          category: secreview\n"
        "      - if: always() && steps.review.outputs.xml == 'true' && env.SAME_REPOSITORY == "
        "'true'\n"
        f"        uses: {JUNIT_REPORT}\n"
        "        with:\n"
        "          report_paths: ${{ runner.temp }}/secreview.xml\n"
        "          check_name: secreview\n"
    )


def _sharded(provider: Provider, model: str, shards: int, source: str) -> str:
    repo, _, commit = source.partition("@")
    inputs = [f"shards: {shards}", "scanners: true"]
    if model:
        inputs.insert(0, f"model: {model}")
    inputs += [f"{key}: {value}" for key, value in provider.with_inputs]
    secrets = (f"    secrets:\n      model-api-key: {provider.model_api_key}\n"
               if provider.model_api_key else "")
    return (
        "jobs:\n"
        "  secreview:\n"
        "    name: security review\n"
        f"    uses: {repo}/.github/workflows/secreview.yml@{commit}\n"
        "    permissions:\n"
        "      contents: read            # check out the pull request\n"
        "      id-token: write           # its review job asks for it (Vertex AI's Workload "
        "Identity)\n"
        "      pull-requests: write      # the one summary comment\n"
        "      security-events: write    # the SARIF upload\n"
        "      checks: write             # JUnit results in the checks tab\n"
        "    with:\n"
        + "".join(f"      {line}\n" for line in inputs)
        + secrets
    )


def render_workflow(provider: str = "none", *, shards: int = 1, source: str = PLACEHOLDER_SOURCE,
                    model: str | None = None) -> str:
    """The workflow ``secreview init`` writes, as text (comments included)."""
    if provider not in PROVIDERS:
        raise SecreviewError(f"--provider {provider!r}: choose one of {', '.join(PROVIDERS)}")
    chosen = PROVIDERS[provider]
    if not 1 <= shards <= MAX_SHARDS:
        raise SecreviewError(f"--shards {shards}: give a whole number from 1 to {MAX_SHARDS}")
    if source != PLACEHOLDER_SOURCE and not _SOURCE.fullmatch(source):
        raise SecreviewError(f"--source {source!r}: give OWNER/REPO@COMMIT with the full "
                             "40-character commit to pin, e.g. octo/pytest-secreview@" + "0" * 40)
    if shards > 1 and not chosen.shardable:
        raise SecreviewError(
            f"--provider {provider} with --shards {shards}: the reusable workflow that shards the "
            "review has no input for the server's URL; use --shards 1 for an OpenAI-compatible "
            "server")
    model_id = _check_model(chosen, model)
    what = chosen.label if shards == 1 else f"{chosen.label}, over {shards} jobs"
    header = (
        f"# Security review of every pull request with pytest-secreview: {what}.\n"
        "# Written by `secreview init`. It needs, in the repository's settings (Secrets and\n"
        "# variables > Actions):\n"
        + "".join(f"#   {note}\n" for note in SETUP_NOTES[provider])
        + "name: security review\n"
        "on:\n"
        "  pull_request:\n"
        "permissions: {}\n"
        "concurrency:                    # a new push replaces the review of the old head\n"
        "  group: secreview-${{ github.event.pull_request.number }}\n"
        "  cancel-in-progress: true\n"
    )
    body = (_single_job(chosen, model_id, source) if shards == 1
            else _sharded(chosen, model_id, shards, source))
    return header + body


def render_rule(name: str) -> str:
    """A starter team rule with id ``name``: a deterministic pattern and the reviewer's
    instructions, both meant to be edited."""
    return f"""---
id: {name}
title: HTTP request without a timeout
description: A requests call without a timeout can hang a worker for ever.
severity: medium
category: reliability
applies_to:
  file_extensions: [".py"]
grep:
  any: ['\\brequests\\.(get|post|put|patch|delete|head|request)\\(']
detect:
  - pattern: '\\brequests\\.(get|post|put|patch|delete|head)\\('
    unless: '\\btimeout\\s*='
    message: requests call without a timeout
    recommendation: Pass timeout=(connect, read) seconds, e.g. timeout=(3, 30).
examples:                   # checked by `secreview test-rules secreview/rules`
  path: app/client.py
  bad:
    - 'requests.get(url)'
    - 'requests.post(url, json=payload)'
  good:
    - 'requests.get(url, timeout=(3, 30))'
---
Check each changed outbound HTTP call made with the requests library. Report a call that has no
`timeout` argument, including one whose arguments span several lines (the pattern above sees
one line only). A call through a session that sets a default timeout is fine.

## GitHub Comment
`{{path}}:{{line}}`: {{title}}. Pass an explicit `timeout=` to every outbound call.
"""


def bundled_ids() -> set[str]:
    """The ids of the bundled rules."""
    directory = bundled_rules_dir()
    return {parse_rule(path.read_bytes(), f"rules/{path.name}").id
            for path in sorted(directory.glob("*.md"))}


def source_from_direct_url(raw: str | None) -> str | None:
    """``OWNER/REPO@COMMIT`` from pip's record of where a package came from (PEP 610's
    ``direct_url.json``) when it is a GitHub repository at a commit, else None."""
    try:
        record = json.loads(raw or "")
    except ValueError:
        return None
    vcs = record.get("vcs_info") if isinstance(record, dict) else None
    if not isinstance(vcs, dict) or vcs.get("vcs") != "git":
        return None
    url = _GITHUB_URL.fullmatch(str(record.get("url", "")).removeprefix("git+"))
    commit = str(vcs.get("commit_id", ""))
    if not url or not re.fullmatch(r"[0-9a-f]{40}", commit):
        return None
    return f"{url.group('repo')}@{commit}"


def installed_source() -> str | None:
    """Where this copy of pytest-secreview was installed from, when pip recorded a GitHub
    repository and commit."""
    try:
        raw = metadata.distribution("pytest-secreview").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    return source_from_direct_url(raw)


def _check_target(path: Path, *, force: bool) -> None:
    if path.is_symlink():
        raise SecreviewError(f"{path} is a symbolic link: remove it, then run secreview init "
                             "again (nothing is written through a link)")
    if path.exists() and not force:
        raise SecreviewError(f"{path} already exists: pass --force to replace it")


def _repository_root(start: Path) -> Path:
    result = run_git(start, "rev-parse", "--show-toplevel", check=False)
    if result.returncode != 0:
        raise SecreviewError(f"{start} is not inside a git repository: run secreview init in "
                             "the repository to set up, or pass --repo DIR")
    return Path(result.stdout.decode().strip())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="secreview init",
        description="Write .github/workflows/secreview.yml (and, with --rule, a starter rule).")
    parser.add_argument("--provider", choices=tuple(PROVIDERS), default="none",
                        help="model route: none (deterministic rules only, the default), vertex "
                             "(Workload Identity Federation), anthropic, openai (an "
                             "OpenAI-compatible server)")
    parser.add_argument("--model", metavar="MODEL",
                        help="the model (default: google/gemini-2.5-pro, "
                             "anthropic:claude-sonnet-4-5 or openai:gpt-4.1)")
    parser.add_argument("--shards", type=int, default=1, metavar="N",
                        help=f"spread the review over N jobs (1 to {MAX_SHARDS}) with the "
                             "reusable workflow (default 1: one job)")
    parser.add_argument("--source", metavar="OWNER/REPO@COMMIT",
                        help="the repository and commit of pytest-secreview to install (default: "
                             "the ones this copy was installed from, else placeholders)")
    parser.add_argument("--rule", metavar="NAME",
                        help=f"also write a starter rule {REPO_RULES_DIR}/NAME.md with id NAME")
    parser.add_argument("--repo", type=Path, metavar="DIR",
                        help="the repository to set up (default: the one around the current "
                             "directory)")
    parser.add_argument("--force", action="store_true", help="replace files that exist")
    return parser


def init(args: argparse.Namespace) -> list[str]:
    """Write the files; return the lines to print."""
    source = args.source or installed_source() or PLACEHOLDER_SOURCE
    workflow = render_workflow(args.provider, shards=args.shards, source=source,
                               model=args.model)
    rule = None
    if args.rule is not None:
        if not _RULE_NAME.fullmatch(args.rule):
            raise SecreviewError(f"--rule {args.rule!r}: a rule id is lower-case letters, digits "
                                 "and hyphens, starting with a letter or digit (e.g. "
                                 "team-http-timeout)")
        if args.rule in bundled_ids():
            raise SecreviewError(f"--rule {args.rule!r} is the id of a bundled rule: choose "
                                 "another name (e.g. team-" + args.rule + ")")
        rule = render_rule(args.rule)
    root = _repository_root(args.repo or Path.cwd())
    targets = [(root / WORKFLOW_PATH, workflow)]
    if rule is not None:
        targets.append((root / REPO_RULES_DIR / f"{args.rule}.md", rule))
    for path, _ in targets:  # refuse before writing anything
        _check_target(path, force=args.force)
    lines = []
    for path, text in targets:
        write_text_atomic(path, text)
        lines.append(f"wrote {path.relative_to(root)}")
    lines.append("the workflow needs, in the repository's settings (Secrets and variables > "
                 "Actions): " + "; ".join(SETUP_NOTES[args.provider]))
    if source == PLACEHOLDER_SOURCE:
        lines.append(f"replace OWNER and the commit {PLACEHOLDER_COMMIT} in {WORKFLOW_PATH} "
                     "with the GitHub repository of pytest-secreview you use and the full "
                     "commit to pin")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``secreview init``."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        lines = init(args)
    except SecreviewError as exc:
        print(f"secreview init: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0
