"""The ignore file ``.secreviewignore`` (issue 21, item 5), read from the base revision: the
paths it names are not reviewed and not counted as unreviewed, the summary lists them, and
credential rules still run on them. A pull request cannot change it for its own review."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ReviewRepo, aws_key_id
from tests.test_plugin import DEBUG_RULE, run

Build = Callable[..., ReviewRepo]

CREDS = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    category: secrets
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    """
)
IGNORE = "# translations and third-party code\nlocale/**/*.mo\nvendor/\n"
#: A compiled translation catalogue: binary to git (it holds a NUL byte).
CATALOGUE = "\x00\x01\x02 messages\n"


def summary(pytester: pytest.Pytester) -> dict[str, object]:
    path = Path(pytester.path) / "secreview-artifacts" / "report" / "summary.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_ignored_paths_are_not_reviewed_nor_unreviewed_but_credentials_are_found(
    pytester: pytest.Pytester, review_repo: Build, workers: tuple[str, ...]
) -> None:
    review_repo(
        rules={"debug": DEBUG_RULE, "creds": CREDS},
        base={".secreviewignore": IGNORE},
        pr={"app.py": "debug = True\n",
            "vendor/lib.py": f"debug = True\nKEY = '{aws_key_id()}'\n",
            "locale/de/LC_MESSAGES/messages.mo": CATALOGUE},
    )
    result = run(pytester, "--secreview-fail-on", "medium", "--secreview-unreviewed", "fail",
                 *workers)
    out = result.stdout.str()
    # debug on app.py and the key in vendor/lib.py fail; the catalogue passes (not unreviewed).
    result.assert_outcomes(failed=2, passed=1)
    assert "app.py:1  MEDIUM  Debug mode enabled" in out
    assert "vendor/lib.py:2  CRITICAL  AWS access key id in source" in out
    assert "vendor/lib.py:1" not in out
    assert ("note: .secreviewignore: 2 changed file(s) not reviewed, by the base revision's "
            "patterns locale/**/*.mo, vendor/; credential rules still ran on them") in out
    items = summary(pytester)["items"]
    assert isinstance(items, list)
    assert not [i for i in items if i.get("not_reviewed")]


def test_the_pull_request_cannot_ignore_its_own_files(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, base={".secreviewignore": "vendor/\n"},
                pr={".secreviewignore": "vendor/\n*.py\n", "app.py": "debug = True\n"})
    result = run(pytester, "--secreview-fail-on", "medium")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "app.py:1  MEDIUM  Debug mode enabled" in out
    assert ("note: .secreviewignore: this pull request changes it; the base revision's "
            "version") in out


def test_an_ignore_file_the_pull_request_adds_is_not_used(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE},
                pr={".secreviewignore": "*.py\n", "app.py": "debug = True\n"})
    result = run(pytester, "--secreview-fail-on", "medium")
    result.assert_outcomes(failed=1)
    assert "this pull request changes it; the base revision's version" in result.stdout.str()


def test_an_ignore_file_that_is_not_text_is_a_clear_error(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"debug": DEBUG_RULE}, base={".secreviewignore": "vendor/\n"},
                pr={"app.py": "debug = True\n"})
    repo = ReviewRepo.__new__(ReviewRepo)
    repo.path = Path(pytester.path)
    repo.git("checkout", "-q", "main")
    repo.write(".secreviewignore", b"\xff\xfe vendor/\n")
    repo.commit("a latin-1 ignore file")
    repo.git("checkout", "-q", "pr")
    repo.git("rebase", "-q", "main")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert ".secreviewignore at the base revision" in err
    assert "not UTF-8 text" in err and "save it as UTF-8" in err


def test_the_offline_review_honours_the_base_revisions_ignore_file(tmp_path: Path) -> None:
    from pytest_secreview.evaluation.offline import review_range
    from pytest_secreview.rules.parse import parse_rule

    repo = ReviewRepo(tmp_path / "repo")
    repo.write(".secreviewignore", IGNORE)
    repo.commit("base")
    repo.branch("pr")
    repo.write("vendor/lib.py", f"debug = True\nKEY = '{aws_key_id()}'\n")
    repo.write("locale/de/LC_MESSAGES/messages.mo", CATALOGUE)
    repo.write("app.py", "debug = True\n")
    repo.commit("pull request")
    rules = [parse_rule(DEBUG_RULE.encode(), "debug.md"), parse_rule(CREDS.encode(), "creds.md")]
    review = review_range(repo.path, "main", parsed_rules=rules)
    assert sorted((f.path, f.line, f.rule) for f in review.findings) == [
        ("app.py", 1, "debug"), ("vendor/lib.py", 2, "creds")]
    assert review.not_reviewed == ()
