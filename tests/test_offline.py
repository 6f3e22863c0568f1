"""The deterministic review of a range without pytest, in a real git repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_secreview.errors import GitError
from pytest_secreview.evaluation.offline import review_range
from tests.conftest import aws_key_id
from tests.gitutil import GitRepo


def _repo(tmp_path: Path, pr: dict[str, str]) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("README.md", "service\n")
    repo.commit("base")
    repo.branch("pr")
    for rel, text in pr.items():
        repo.write(rel, text)
    repo.commit("pull request")
    return repo


def test_bundled_pack_reports_a_committed_key_at_its_line(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"app/settings.py": f"DEBUG = False\nKEY = '{aws_key_id()}'\n"})
    result = review_range(repo.path, "main")
    secrets = [f for f in result.findings if f.rule == "hardcoded-secrets"]
    assert [(f.path, f.line) for f in secrets] == [("app/settings.py", 2)]
    assert result.rule_errors == ()
    assert any(rule.id == "hardcoded-secrets" for rule in result.rules)


def test_rules_that_need_a_model_are_listed(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"db.py": "cur.execute('SELECT 1 FROM t WHERE id=' + uid)\n"})
    result = review_range(repo.path, "main")
    assert ("sql-injection", "db.py") in result.needs_model


def test_unknown_base_is_an_actionable_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"a.py": "x = 1\n"})
    with pytest.raises(GitError, match="no-such-branch"):
        review_range(repo.path, "no-such-branch")
