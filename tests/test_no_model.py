"""Defaults that are safe and usable (issue 20, item 4): with no model configured the review
is the deterministic one and says so first; what needs a model is not collected (not skipped,
not failed), so ``--secreview-unreviewed=fail`` applies to real gaps only."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]
KIND_LINE = "deterministic review: no model is configured"


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-unreviewed=fail", *args)


def _markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path / "secreview-artifacts" / "report" / "summary.md").read_text()


def test_a_code_change_with_the_bundled_pack_and_no_model_is_green_and_says_why(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(base={"app.py": "def f(x):\n    return x\n"},
                pr={"app.py": "def f(x):\n    return x + 1\n", "db.py": "def q(cur, v):\n"
                    "    cur.execute('SELECT 1 WHERE a = %s', (v,))\n"})
    ids = [line for line in _review(pytester, "--collect-only", "-q").stdout.lines
           if "::" in line]
    assert not [i for i in ids if "security-review[" in i or "::intent" in i]
    result = _review(pytester)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    assert " skipped" not in out.split("= secreview =")[0]  # pytest's own line: nothing skipped
    assert "items: " in out and ", 0 skipped," in out
    summary = out.split("= secreview =")[1]
    assert summary.index(KIND_LINE) < summary.index("items: ")
    assert "security-review" in summary and "made no item" in summary
    markdown = _markdown(pytester)
    assert markdown.index(KIND_LINE) < markdown.index("No findings.")


def test_a_dangerous_change_still_fails_on_its_deterministic_finding(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"views.py": "import pickle\n\n\ndef load(request):\n"
                                "    return pickle.loads(request.data)\n"})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "views.py:5  CRITICAL" in result.stdout.str()
    assert "not reviewed" not in result.stdout.str().split("= secreview =")[0]


def test_a_docs_only_change_is_green_with_no_model(pytester: pytest.Pytester,
                                                   review_repo: Build) -> None:
    review_repo(pr={"docs/guide.md": "# Guide\n", "CHANGELOG.md": "- 1.1\n"})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


def test_a_missing_scanner_is_a_real_gap(pytester: pytest.Pytester, review_repo: Build,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bandit", None)  # an environment without the extra
    review_repo(pr={"app.py": "import subprocess\nsubprocess.call('ls', shell=True)\n"})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "bandit is not installed" in result.stdout.str()


def test_the_general_reviews_budget_is_no_gap_when_it_makes_no_item(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # Without a model the general review makes no item: the hunks it would have left over its
    # budget are not "not reviewed" (nothing is in front of a model; the review-kind line
    # says so once), and --secreview-unreviewed=fail has no gap to fail.
    from pytest_secreview.rules.loader import bundled_rules_dir

    capped = (bundled_rules_dir() / "security-review.md").read_text().replace(
        "lines_per_item: 400", "lines_per_item: 2").replace("max_items: 40", "max_items: 1")
    review_repo(pr={f"src/m{i}.py": "a = 1\nb = 2\n" for i in range(5)},
                rules={"security-review": capped})
    result = _review(pytester, "--secreview-rules", "secreview/rules")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    assert "over the coverage budget" not in out
    assert "coverage.max_items" not in out
    summary = json.loads((pytester.path / "secreview-artifacts/report/summary.json").read_text())
    assert summary["not_reviewed"] == []
    assert "over the coverage budget" not in _markdown(pytester)
