"""The coverage guarantee: every changed hunk of code reaches the model in some item, through
a specific rule or the general `security-review` rule's batches (issue 11, item 1)."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.bench.coverage_cases import CoverageCase, load_cases, model_view, reached
from pytest_secreview.evaluation.offline import review_range
from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_no_findings,
)
from tests.gitutil import GitRepo

Build = Callable[..., ReviewRepo]
CASES = load_cases(Path(__file__).parent / "coverage_cases")
GENERAL = (bundled_rules_dir() / "security-review.md").read_text()


def _pr_repo(path: Path, base: dict[str, str], head: dict[str, str]) -> GitRepo:
    repo = GitRepo(path)
    repo.write("README.md", "service\n")
    for rel, text in base.items():
        repo.write(rel, text)
    repo.commit("base")
    repo.branch("pr")
    for rel in set(base) - set(head):
        (path / rel).unlink()
    for rel, text in head.items():
        repo.write(rel, text)
    repo.commit("pull request")
    return repo


def test_the_corpus_is_large_enough_and_every_case_changes_something() -> None:
    assert len(CASES) >= 15
    for case in CASES:
        assert case.base != case.head, case.name
        assert case.must_reach, case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_vulnerable_hunk_is_in_front_of_the_model(case: CoverageCase,
                                                        tmp_path: Path) -> None:
    repo = _pr_repo(tmp_path / "repo", case.base, case.head)
    review = review_range(repo.path, "main", "pr")
    view = model_view(review)
    for line in case.must_reach:
        assert reached(view, line), f"{case.name}: {line!r} reaches no model item"


def test_without_the_general_rule_the_corpus_is_mostly_missed(tmp_path: Path) -> None:
    """The corpus is made of changes no grep catches: the specific rules alone miss most of
    them (so the test above measures the general rule, not the keywords)."""
    missed = 0
    specific = [str(p) for p in sorted(bundled_rules_dir().glob("*.md"))
                if p.name != "security-review.md"]
    for i, case in enumerate(CASES):
        repo = _pr_repo(tmp_path / f"r{i}", case.base, case.head)
        view = model_view(review_range(repo.path, "main", "pr", rules=specific))
        missed += not all(reached(view, line) for line in case.must_reach)
    assert missed >= len(CASES) * 2 // 3


# -- through the plugin, against a scripted model server --------------------------------------

def _report_nothing() -> Reply:
    return openai_no_findings(
        usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        srv = running.start(lambda _request: _report_nothing())
        yield srv


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


#: A hunk line as the model sees it: sign, head line number (none on a removed line), tab.
_NUMBERED = re.compile(r"(?m)^([+ -]) *\d*\t")


def _as_git(text: str) -> str:
    """``text`` with the hunks' head line numbers taken out: diff lines as git prints them."""
    return _NUMBERED.sub(r"\1", text)


def _sent(requests: list[Recorded]) -> str:
    return _as_git("\n".join(s for r in requests for s in _strings(r.json)))


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider", *args)


def _model(server: FakeServer) -> tuple[str, ...]:
    return ("--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url,
            "--secreview-no-cache")


def test_the_whole_corpus_reaches_the_scripted_model(pytester: pytest.Pytester,
                                                     review_repo: Build,
                                                     server: FakeServer) -> None:
    base = {f"{c.name}/{p}": t for c in CASES for p, t in c.base.items()}
    head = {f"{c.name}/{p}": t for c in CASES for p, t in c.head.items()}
    review_repo(base=base, pr=head)
    report = pytester.path / "r.json"
    # The intent audit (one item per pull request) answers with a verdict tool this scripted
    # model does not speak; tests/test_audit_intent.py covers it.
    result = _review(pytester, *_model(server), "--json-report",
                     f"--json-report-file={report}", "--deselect", "rules/intent.md::intent")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    sent = _sent(server.requests)
    for case in CASES:
        for line in case.must_reach:
            assert line in sent, f"{case.name}: {line!r} never reached the model"
    # A big change makes a few batched items, not one per file.
    batches = [t for t in json.loads(report.read_text())["tests"]
               if "::security-review[" in t["nodeid"]]
    assert 1 <= len(batches) < len(CASES) // 2
    assert "coverage: " in result.stdout.str()


def test_a_removed_path_check_reaches_the_model_with_only_the_general_rule(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    case = next(c for c in CASES if c.name == "py-confinement-helper-removed")
    review_repo(base=case.base, pr=case.head, rules={"security-review": GENERAL})
    result = _review(pytester, "--secreview-rules", "secreview/rules", *_model(server))
    result.assert_outcomes(passed=1)
    request = server.requests[0].json
    task = request["messages"][1]["content"]
    assert "-    if not _inside(EXPORTS, candidate):" in _as_git(task)
    assert "- app/exports.py (modified)" in task
    assert "General security review" in request["messages"][0]["content"]


def test_without_a_model_the_general_review_makes_no_item_and_the_summary_says_so(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(base={"a.py": "x = 1\n", "b.go": "package b\n"},
                pr={"a.py": "x = 2\n", "b.go": "package b\n\nvar y = 3\n"},
                rules={"security-review": GENERAL})
    result = _review(pytester, "--secreview-rules", "secreview/rules",
                     "--secreview-unreviewed=fail")
    result.assert_outcomes()
    assert "1 rule(s) that need a model made no item (security-review)" in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK


def test_batches_follow_the_budget_and_node_ids_are_stable(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    small = GENERAL.replace("lines_per_item: 400", "lines_per_item: 4").replace(
        "max_items: 40", "max_items: 3")
    files = {f"src/m{i:02d}.py": f"v{i} = 0\n" for i in range(8)}
    review_repo(base=files, pr={p: t + "w = 1\n" for p, t in files.items()},
                rules={"security-review": small})
    first = _review(pytester, "--secreview-rules", "secreview/rules", *_model(server),
                    "--collect-only", "-q")
    ids = [line for line in first.stdout.lines if "::" in line]
    again = _review(pytester, "--secreview-rules", "secreview/rules", *_model(server),
                    "--collect-only", "-q")
    assert ids == [line for line in again.stdout.lines if "::" in line]
    # One added line per file: 4 changed lines per item -> 4 files per item, at most 3 items.
    assert ids == ["secreview/rules/security-review.md::security-review[b1:src/m00.py+3]",
                   "secreview/rules/security-review.md::security-review[b2:src/m04.py+3]"]
    capped = small.replace("max_items: 3", "max_items: 1")
    (pytester.path / "secreview/rules/security-review.md").write_text(capped)
    result = _review(pytester, "--secreview-rules", "secreview/rules",
                     "--secreview-rules-from=head", *_model(server))
    out = result.stdout.str()
    assert "over the coverage budget" in out and "src/m04.py" in out
    summary = json.loads((pytester.path / "secreview-artifacts/report/summary.json").read_text())
    over = sorted(n["path"] for n in summary["not_reviewed"]
                  if n["reason"].startswith("over the coverage budget"))
    assert over == [f"src/m0{i}.py" for i in range(4, 8)]


def test_specific_matches_are_not_sent_twice_and_leftovers_are_listed(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    specific = textwrap.dedent("""\
        ---
        title: SQL injection
        grep:
          any: ["execute\\\\("]
        ---
        Trace input into SQL.
        """)
    review_repo(
        base={"db.py": "def f(q):\n    pass\n"},
        pr={"db.py": "def f(q):\n    cur.execute(q)\n", "package-lock.json": "{}\n",
            "docs/guide.md": "how to\n", "vendor/lib/x.go": "package x\n",
            "ui/app.min.js": "var a=1\n", "tool.py": "y = 1\n"},
        rules={"sqli": specific, "security-review": GENERAL},
    )
    result = _review(pytester, "--secreview-rules", "secreview/rules", *_model(server),
                     "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == ["secreview/rules/security-review.md::security-review[b1:tool.py]",
                   "secreview/rules/sqli.md::sqli[db.py]"]
    listed = _review(pytester, "--secreview-rules", "secreview/rules",
                     *_model(server)).stdout.str()
    for expected in ("documentation: docs/guide.md", "lock file (its manifest is reviewed): "
                     "package-lock.json", "vendored third-party code: vendor/lib/x.go",
                     "generated file (by its path): ui/app.min.js"):
        assert expected in listed
    triage = json.loads((pytester.path / "secreview-artifacts/triage.json").read_text())
    assert triage["coverage"]["items"] == [
        {"label": "b1:tool.py", "paths": ["tool.py"], "hunks": 1}]
    assert triage["languages"] == ["go", "javascript", "json", "python"]
    assert triage["dependency_files"] == ["package-lock.json"]


def test_a_docs_only_change_runs_nothing_says_so_and_exits_zero(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"docs/a.md": "# A\n", "CHANGELOG.rst": "1.0\n", "logo.png": "x\n"},
                rules={"security-review": GENERAL})
    result = _review(pytester, "--secreview-rules", "secreview/rules")
    assert result.ret == pytest.ExitCode.OK
    lines = [line for line in result.stdout.lines if line.startswith("nothing to review")]
    assert lines == ["nothing to review: 3 changed file(s), none of them code or "
                     "configuration (1 asset, 2 docs)"]


def test_without_a_general_rule_the_gap_is_said(pytester: pytest.Pytester,
                                                review_repo: Build) -> None:
    review_repo(pr={"app.py": "x = 1\n"}, rules={"other": "---\ntitle: Other\ngrep:\n"
                                                  "  any: ['nomatch']\n---\nReview.\n"})
    result = _review(pytester, "--secreview-rules", "secreview/rules")
    out = result.stdout.str()
    assert "no general review rule" in out
    assert "nothing to review: no rule matched the changes in this range" in out
    assert result.ret == pytest.ExitCode.OK


def test_batches_are_the_same_on_every_xdist_worker(pytester: pytest.Pytester,
                                                    review_repo: Build,
                                                    server: FakeServer) -> None:
    small = GENERAL.replace("lines_per_item: 400", "lines_per_item: 2")
    files = {f"pkg/m{i}.py": f"v{i} = 0\n" for i in range(6)}
    review_repo(base=files, pr={p: t + "w = 1\n" for p, t in files.items()},
                rules={"security-review": small})
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", "-rs", *_model(server))
    serial = pytester.runpytest_subprocess(*args)
    parallel = pytester.runpytest_subprocess(*args, "-n", "2")
    for result in (serial, parallel):
        result.assert_outcomes(passed=3)  # two files per item: the same three items
        assert result.ret == pytest.ExitCode.OK


def test_a_batch_never_sends_what_the_gate_withholds(pytester: pytest.Pytester,
                                                     review_repo: Build,
                                                     server: FakeServer) -> None:
    marker = "super" + "secret-value-" + "0451"
    review_repo(pr={"app.py": "x = 1\n", ".env.production": f"PASSWORD={marker}\n"},
                rules={"security-review": GENERAL})
    report = pytester.path / "r.json"
    result = _review(pytester, "--secreview-rules", "secreview/rules", *_model(server),
                     "--json-report", f"--json-report-file={report}")
    result.assert_outcomes(passed=1)
    sent = _sent(server.requests)
    assert "+x = 1" in sent and marker not in sent and ".env.production" not in sent
    (item,) = json.loads(report.read_text())["tests"]
    assert "environment file" in item["metadata"]["secreview"]["usage"]["withheld"]
