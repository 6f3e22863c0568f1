"""Run the product's review on one labelled case: a real git repository per case (``main``
holding base, ``pr`` holding head), then either the deterministic layer
(:func:`~pytest_secreview.evaluation.offline.review_range`) or, with a model, the product's
own pytest path in-process, whose ``summary.json`` gives the findings and the usage.

Either way a figure ``secreview bench`` prints is a figure of the product, not of a copy.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SecreviewError
from ..gitcmd import run_git
from .corpus import Case
from .metrics import Cost
from .score import Reported

BASE, HEAD = "main", "pr"
_IDENTITY = ("-c", "user.name=secreview-bench", "-c", "user.email=bench@secreview.invalid",
             "-c", "commit.gpgsign=false")


class BenchError(SecreviewError):
    """The bench could not run a case (rules that do not parse, a review that wrote no
    summary); the message says what to fix."""


@dataclass(frozen=True)
class CaseRun:
    """What the product reported on one case, and what it cost."""

    findings: tuple[Reported, ...]
    cost_by_rule: Mapping[str, Cost]
    cost: Cost
    rules: tuple[str, ...] = ()  # ids of the rules the review loaded
    errors: tuple[str, ...] = ()


def _write(repo: Path, files: Mapping[str, bytes]) -> None:
    for rel, data in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def build_repo(repo: Path, case: Case) -> None:
    """A repository at ``repo`` whose ``main`` commit holds the case's base files and whose
    ``pr`` commit (checked out) holds exactly its head files."""
    head = case.files("head")  # first: a patch that does not apply fails before any git work
    build_trees(repo, case.files("base"), head)


def build_trees(repo: Path, base: Mapping[str, bytes], head: Mapping[str, bytes]) -> None:
    """A new repository at ``repo``: ``main`` holds the files ``base``, ``pr`` (checked out)
    exactly the files ``head``."""
    repo.mkdir(parents=True)
    run_git(repo, "init", "-q", "-b", BASE)
    _write(repo, base)
    run_git(repo, "add", "-A")
    run_git(repo, *_IDENTITY, "commit", "-q", "--allow-empty", "-m", "base")
    run_git(repo, "checkout", "-q", "-b", HEAD)
    run_git(repo, "rm", "-rq", "--ignore-unmatch", ".")
    _write(repo, head)
    run_git(repo, "add", "-A")
    run_git(repo, *_IDENTITY, "commit", "-q", "--allow-empty", "-m", "pull request")


def run_deterministic(repo: Path, rules: Sequence[str],
                      only: Collection[str] | None = None) -> CaseRun:
    """The deterministic layer's findings on ``main..pr`` with ``rules`` (as
    ``--secreview-rules`` takes them; empty: the product's defaults); with ``only``, just
    the rules of those ids run."""
    from ..evaluation.offline import load_rules, review_range

    base_sha = run_git(repo, "merge-base", BASE, HEAD).stdout.decode().strip()
    parsed, errors = load_rules(repo, base_sha, rules)
    if errors:
        raise BenchError("rule files that do not parse:\n" + "\n".join(errors))
    if only is not None:
        parsed = [rule for rule in parsed if rule.id in only]
    review = review_range(repo, BASE, HEAD, parsed_rules=parsed)
    # What fails nothing (suppressed inline, dismissed, below the minimum) is not a report.
    found = tuple(Reported(f.rule, f.cwe, f.path, f.line) for f in review.findings
                  if not f.muted)
    return CaseRun(found, {}, Cost(), tuple(r.id for r in review.rules))


# Settings a model review may take from the environment; every other SECREVIEW_* variable
# (the PR, the comment mode, report paths, the GitHub token) and GitHub Actions' variables
# are hidden from the in-process run, so a bench in CI posts nothing and annotates nothing.
_MODEL_SETTINGS = {"model", "fallback-model", "max-turns", "max-output-tokens", "max-tool-calls",
                   "max-tokens", "temperature", "timeout", "api-base", "project", "location",
                   "prices", "max-cost", "max-concurrency", "rpm"}


@contextlib.contextmanager
def _isolated(cwd: Path) -> Iterator[None]:
    from ..options import SPECS

    hidden = {spec.env for spec in SPECS if spec.name not in _MODEL_SETTINGS}
    hidden |= {"SECREVIEW", "SECREVIEW_GITHUB_TOKEN", "GITHUB_TOKEN"}
    saved = dict(os.environ)
    old = Path.cwd()
    try:
        for key in list(os.environ):
            if key in hidden or key.startswith("GITHUB_") or key in {"PYTEST_ADDOPTS",
                                                                        "PYTEST_PLUGINS"}:
                del os.environ[key]
        os.chdir(cwd)
        yield
    finally:
        os.chdir(old)
        os.environ.clear()
        os.environ.update(saved)


class _OnlyRules:
    """Deselects the review items of every rule but ``only`` (``secreview bench --rule``):
    they are neither run nor billed, the intent audit included."""

    def __init__(self, only: Collection[str]) -> None:
        self.only = frozenset(only)

    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        keep: list[Any] = []
        drop: list[Any] = []
        for item in items:
            rule = dict(item.user_properties).get("secreview_rule")
            (drop if rule is not None and rule not in self.only else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


def run_with_model(repo: Path, work: Path, rules: Sequence[str], model: str,
                   api_base: str | None, only: Collection[str] | None = None) -> CaseRun:
    """The full review (deterministic and model) through pytest in-process, in ``repo``;
    ``work`` receives the artifacts and ``summary.json``. With ``only``, just the items of
    the rules of those ids run."""
    import pytest

    from ..reporting.model import Report

    report_dir = work / "report"
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    args = ["--secreview", "--base", BASE, "-q", "-p", "no:cacheprovider",
            # Block the entry point and load the module by name: works with and without
            # PYTEST_DISABLE_PLUGIN_AUTOLOAD, and never registers the plugin twice.
            "-p", "no:secreview", "-p", "pytest_secreview.plugin",
            # The case's own pytest.ini, conftest.py and addopts are data, not settings.
            "-c", str(ini), "--rootdir", str(repo), "--noconftest",
            "--secreview-model", model, "--secreview-no-cache", "--secreview-comment", "off",
            "--secreview-artifacts", str(work / "artifacts"),
            "--secreview-report", str(report_dir)]
    if api_base:
        args += ["--secreview-api-base", api_base]
    for entry in rules:
        args += ["--secreview-rules", entry]
    out = io.StringIO()
    with _isolated(repo), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = pytest.main(args, plugins=[_OnlyRules(only)] if only is not None else [])
    summary = report_dir / "summary.json"
    if not summary.is_file():
        tail = "\n".join(out.getvalue().strip().splitlines()[-15:])
        raise BenchError(f"the review of {repo.name} wrote no summary.json (pytest exit "
                         f"status {int(status)}); its output ends with:\n{tail}")
    report = Report.model_validate_json(summary.read_bytes())
    found = tuple(Reported(f.rule, f.cwe, f.path, f.line) for f in report.findings
                  if not f.muted)
    by_rule: dict[str, Cost] = {}
    errors: list[str] = []
    for item in report.items:
        if item.rule is not None and item.usage:
            by_rule[item.rule] = by_rule.get(item.rule, Cost()) + Cost.from_usage(item.usage)
        if item.outcome == "error":
            errors.append(f"{item.nodeid}: {item.reason or 'error'}")
    usage = report.usage
    total = Cost(usage.model_calls, usage.input_tokens, usage.output_tokens, usage.cost_usd,
                 usage.failed_calls)
    return CaseRun(found, by_rule, total, tuple(r.id for r in report.rules), tuple(errors))
