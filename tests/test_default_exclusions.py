"""Vendored, minified and test code is out of the non-credential rules by default (issue 23,
item 3), judged by the one exclusion judgement (``core.decide.judge_exclusion``): the summary
says how many files and why, and the credential rules still read them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]
RULES = {name: (bundled_rules_dir() / f"{name}.md").read_text()
         for name in ("xss", "command-injection", "hardcoded-secrets")}
JQUERY_LIKE = "!function(e){e.innerHTML=t.html;var k=document.location.hash}(window);\n"


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


def test_vendored_minified_and_test_code_is_out_of_the_pattern_rules(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"static/vendor/jquery.js": JQUERY_LIKE, "static/app.min.js": JQUERY_LIKE,
                    "tests/test_shell.py": "import os\n\n\ndef test_ls(tmp):\n"
                                           "    os.system('ls ' + tmp)\n",
                    "web/view.js": "el.innerHTML = req.query.name;\n"}, rules=RULES)
    ids = [line for line in _review(pytester, "--collect-only", "-q").stdout.lines
           if "::" in line]
    assert ids == ["secreview/rules/xss.md::xss[web/view.js]"]
    out = _review(pytester).stdout.str()
    assert ("3 changed file(s) out of the non-credential rules by default: 1 minified or "
            "generated, 1 test code, 1 vendored; credential rules still read them") in out


def test_a_key_in_excluded_code_still_fails(pytester: pytest.Pytester,
                                            review_repo: Build) -> None:
    review_repo(pr={"tests/fixtures/settings.py": f"AWS = '{aws_key_id()}'\n",
                    "static/vendor/sdk.min.js": f"var k='{aws_key_id()}';\n"}, rules=RULES)
    result = _review(pytester)
    result.assert_outcomes(failed=2)


def test_conftest_is_not_test_code_it_runs_in_ci(pytester: pytest.Pytester,
                                                review_repo: Build) -> None:
    review_repo(pr={"tests/conftest.py": "import os\n\n\ndef helper(name):\n"
                                         "    os.system('ls ' + name)\n"},
                rules=RULES)
    ids = [line for line in _review(pytester, "--collect-only", "-q").stdout.lines
           if "::" in line]
    assert "secreview/rules/command-injection.md::command-injection[tests/conftest.py]" in ids


def test_a_vendored_file_too_large_to_review_is_scanned_by_the_credential_rules_only(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    padding = JQUERY_LIKE * (9 * 1024 * 1024 // len(JQUERY_LIKE))  # over the 8 MiB limit
    review_repo(pr={"static/vendor/big.min.js": padding + f"var k='{aws_key_id()}';\n"},
                rules=RULES)
    out = _review(pytester).stdout.str()
    assert "AWS access key id in source" in out
    assert "innerHTML" not in out and "(xss)" not in out
