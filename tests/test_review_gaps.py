"""What no item reviews is an item of its own (issue 20, item 3): hunks over the general
review's budget and added or moved submodules are unreviewed items, so that
``--secreview-unreviewed=fail`` applies to them, and never pass silently."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    openai_no_findings,
)
from tests.gitutil import GitRepo

Build = Callable[..., ReviewRepo]
GENERAL = (bundled_rules_dir() / "security-review.md").read_text()


def _report_nothing(_request: object) -> Reply:
    return openai_no_findings(
        usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start(_report_nothing)


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


def _model(server: FakeServer) -> tuple[str, ...]:
    return ("--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url,
            "--secreview-no-cache")


def _summary(pytester: pytest.Pytester) -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (pytester.path / "secreview-artifacts/report/summary.json").read_text())
    return data


def test_hunks_over_the_budget_are_unreviewed_items_that_the_policy_fails(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    # Filler that sorts first fills the only item; the dangerous file is over the budget.
    capped = GENERAL.replace("lines_per_item: 400", "lines_per_item: 2").replace(
        "max_items: 40", "max_items: 1")
    review_repo(pr={"aaa/filler.py": "a = 1\nb = 2\n",
                    "zzz/views.py": "import pickle\nobj = pickle.loads(body)\n"},
                rules={"security-review": capped})
    result = _review(pytester, *_model(server), "--secreview-unreviewed=fail")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "secreview::unreviewed[zzz/views.py]" in out
    assert "over the coverage budget" in out
    sent = "".join(r.raw.decode() for r in server.requests)
    assert "pickle.loads" not in sent  # it really was not reviewed: the item says so
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # Under the default policy the item is skipped with the reason, never passed.
    warned = _review(pytester, *_model(server))
    warned.assert_outcomes(passed=1, skipped=1)


def _embedded_repo(path: Path) -> str:
    dep = GitRepo(path)
    dep.write("lib.py", "x = 1\n")
    return dep.commit("dependency")


def test_an_added_submodule_is_an_unreviewed_item_named_with_its_url_and_commit(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    repo = review_repo(rules={"security-review": GENERAL})
    sha = _embedded_repo(repo.path / "libs" / "dep")
    url = "https://git.example.invalid/attacker/dep.git"
    repo.write(".gitmodules", f'[submodule "dep"]\n\tpath = libs/dep\n\turl = {url}\n')
    repo.commit("add a submodule")
    result = _review(pytester, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    assert "secreview::unreviewed[libs/dep]" in out
    assert url in out and sha[:12] in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    not_reviewed = {n["path"]: n["reason"] for n in _summary(pytester)["not_reviewed"]}  # type: ignore[attr-defined]
    assert url in not_reviewed["libs/dep"]


def test_a_moved_submodule_is_unreviewed_at_its_new_path(pytester: pytest.Pytester) -> None:
    repo = GitRepo(pytester.path)
    repo.write("README.md", "service\n")
    repo.write("secreview/rules/security-review.md", GENERAL)
    sha = _embedded_repo(repo.path / "libs" / "dep")
    repo.write(".gitmodules", '[submodule "dep"]\n\tpath = libs/dep\n\turl = ../dep.git\n')
    repo.commit("a submodule on the base branch")
    repo.branch("pr")
    repo.git("rm", "-q", "--cached", "libs/dep")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/dep")
    repo.write(".gitmodules", '[submodule "dep"]\n\tpath = vendor/dep\n\turl = ../dep.git\n')
    repo.git("add", ".gitmodules")
    repo.git("commit", "-q", "-m", "move it")
    result = _review(pytester, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    assert "secreview::unreviewed[vendor/dep]" in out
    assert "../dep.git" in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


# -- symlinks: judged by their target, and reviewed themselves -------------------------------

DESERIALISATION = (bundled_rules_dir() / "unsafe-deserialization.md").read_text()
VIEW = "import pickle\n\n\ndef load(request):\n    return pickle.loads(request.data)\n"


def test_code_behind_a_symlink_is_judged_as_the_link_names_it(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # app.py becomes a symlink to a .txt file that holds the code: Python runs it as app.py.
    repo = review_repo(base={"app.py": "def load(request):\n    return None\n"},
                       rules={"unsafe-deserialization": DESERIALISATION,
                              "security-review": GENERAL})
    (repo.path / "app.py").unlink()
    repo.write("notes/impl.txt", VIEW)
    (repo.path / "app.py").symlink_to("notes/impl.txt")
    repo.commit("move the code")
    result = _review(pytester, "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if "::" in line]
    rule = "secreview/rules/unsafe-deserialization.md::unsafe-deserialization"
    assert f"{rule}[notes/impl.txt]" in ids
    failed = _review(pytester)
    assert "notes/impl.txt:5  CRITICAL" in failed.stdout.str()
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    triage = json.loads((pytester.path / "secreview-artifacts/triage.json").read_text())
    assert "notes/impl.txt" not in {x["path"] for x in triage["coverage"]["left_out"]}
    kinds = {f["path"]: f["kind"] for f in triage["files"]}
    assert kinds["notes/impl.txt"] == "code"


@pytest.mark.parametrize(("target", "why"), [
    ("/etc/passwd", "leaves the repository"),
    ("../../home/runner/.ssh/id_rsa", "leaves the repository"),
    (".env", "points at a secret file"),
    ("config/deploy.pem", "points at a secret file"),
])
def test_a_new_symlink_out_of_the_repository_or_at_a_secret_is_an_unreviewed_item(
    pytester: pytest.Pytester, review_repo: Build, target: str, why: str
) -> None:
    repo = review_repo(base={".env": "A=1\n", "config/deploy.pem": "cert\n"},
                       rules={"security-review": GENERAL})
    (repo.path / "static").mkdir()
    (repo.path / "static" / "favicon.ico").symlink_to(target)
    repo.commit("a link")
    result = _review(pytester, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    assert "secreview::unreviewed[static/favicon.ico]" in out
    assert why in out and target in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_budget_line_counts_each_file_once_and_says_what_would_change_it(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    capped = GENERAL.replace("lines_per_item: 400", "lines_per_item: 2").replace(
        "max_items: 40", "max_items: 1")
    long_base = "".join(f"v{i} = {i}\n" for i in range(30))
    two_hunks = long_base.replace("v1 = 1\n", "v1 = 10\n").replace("v28 = 28\n", "v28 = 0\n")
    review_repo(base={"zzz/two.py": long_base},
                pr={"aaa/filler.py": "a = 1\nb = 2\n", "zzz/one.py": "c = 3\n",
                    "zzz/two.py": two_hunks, "zzz/three.py": "d = 4\n"},
                rules={"security-review": capped})
    result = _review(pytester, *_model(server))
    out = result.stdout.str()
    over = [n for n in _summary(pytester)["not_reviewed"]  # type: ignore[attr-defined]
            if n["reason"].startswith("over the coverage budget")]
    assert sorted(n["path"] for n in over) == ["zzz/one.py", "zzz/three.py", "zzz/two.py"]
    # One reason for every file over the budget of one rule: one line that counts files.
    (reason,) = {n["reason"] for n in over}
    assert reason.startswith("over the coverage budget of security-review (1 item)")
    assert "raise coverage.max_items in secreview/rules/security-review.md" in reason
    assert "split the pull request" in reason
    assert f"not reviewed: 3 (listed in summary.md): 3 x {reason}" in out
    # The hunks are counted once each, in the coverage line.
    assert "4 hunk(s) of 3 file(s) over its budget are not reviewed" in out


def test_the_advice_for_the_bundled_rule_names_a_change_that_takes_effect() -> None:
    from pytest_secreview.diff.parser import parse_diff_text
    from pytest_secreview.rules.parse import parse_rule
    from pytest_secreview.triage.coverage import plan_coverage

    bundled = parse_rule((bundled_rules_dir() / "security-review.md").read_bytes(),
                         "rules/security-review.md")
    assert bundled.coverage is not None
    body = "".join(f"+x{i} = {i}\n" for i in range(300))
    patch = "".join(
        f"diff --git a/m{n:02d}.py b/m{n:02d}.py\nnew file mode 100644\n--- /dev/null\n"
        f"+++ b/m{n:02d}.py\n@@ -0,0 +1,300 @@\n{body}"
        for n in range(bundled.coverage.max_items + 2))
    plan = plan_coverage(parse_diff_text(patch), [bundled], [])
    assert len(plan.batches) == bundled.coverage.max_items
    over = [x for x in plan.left_out if x.over_budget]
    assert [(x.path, x.hunks) for x in over] == [("m40.py", 1), ("m41.py", 1)]
    reason = over[0].reason
    # The bundled file cannot be edited: the advice says what to do instead.
    assert "raise coverage.max_items in rules/security-review.md" not in reason
    assert "copy rules/security-review.md" in reason and ":bundled" in reason
