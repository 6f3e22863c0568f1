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


def test_inline_suppressions_count_as_in_a_pytest_run(tmp_path: Path) -> None:
    # The MCP server's review_diff and `secreview bench` read this: a suppression the range
    # adds (with a reason) counts below the fail threshold and awaits a maintainer at it
    # (no author's write access is known here), and one without a reason stands.
    code = ("from flask import request\n"
            "def run():\n"
            "    # secreview: ignore[code-injection] admin console, input is our own tests\n"
            "    eval(request.args['expr'])\n"
            "def other():\n"
            "    eval(request.args['x'])  # secreview: ignore[code-injection]\n")
    repo = _repo(tmp_path, {"console.py": code})
    result = review_range(repo.path, "main", use_scanners=False)
    by_line = {f.line: f for f in result.findings if f.rule == "code-injection"}
    assert by_line[4].suppression is None and not by_line[4].muted  # CRITICAL
    assert "awaits a maintainer" in by_line[4].overruled
    assert by_line[6].suppression is None and not by_line[6].muted
    assert any(f.rule == "secreview-suppression" and f.line == 6 for f in result.findings)


def test_a_library_honouring_its_callers_verify_is_read_from_the_head_file(
        tmp_path: Path) -> None:
    # The `if not verify:` and the `def` are far from the added line (outside the hunk's
    # context): the check reads the whole head file. The caller's verify=False is the finding.
    filler = "".join(f"        log.debug('step {i}')\n" for i in range(12))
    base = ("import ssl\n\n\ndef context(verify, cafile=None):\n"
            "    ctx = ssl.create_default_context(cafile=cafile)\n"
            f"    if not verify:\n{filler}        pass\n    return ctx\n")
    head = base.replace("        pass\n", "        ctx.verify_mode = ssl.CERT_NONE\n")
    repo = GitRepo(tmp_path / "repo")
    repo.write("lib/tls.py", base)
    repo.commit("base")
    repo.branch("pr")
    repo.write("lib/tls.py", head)
    repo.write("app/client.py", "import requests\n\n\ndef get(url):\n"
                                "    return requests.get(url, verify=False)\n")
    repo.commit("pull request")
    result = review_range(repo.path, "main", use_scanners=False)
    tls = [(f.path, f.line) for f in result.findings if f.rule == "tls-verification-disabled"]
    assert tls == [("app/client.py", 5)]
    # Without the head file (no dataflow session) the line is reported, as before.
    plain = review_range(repo.path, "main", use_scanners=False, use_taint=False)
    assert ("lib/tls.py", 19) in {(f.path, f.line) for f in plain.findings
                                  if f.rule == "tls-verification-disabled"}
