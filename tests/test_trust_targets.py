"""Known holes of the trust rule: it asks WHO lowers a finding, never WHAT it is applied to.

``core.decide`` accepts a lowering when its origin is trusted (the base's baseline, a
suppression comment already in the base, the review's defaults), but the thing it is applied
to (the line a fingerprint names, the path a default exclusion reads, the call a comment sits
above) is chosen by the pull request. Each test drives the real plugin through ``pytester`` in
a real git repository, asserts the safe behaviour, and is a strict xfail until the hole is
closed (``xfail_strict``: a fix makes it XPASS and fail, so the marker must go). A closed
hole keeps its test, without the marker, as the regression test.

Not here: replaying a stored "no findings" model review from the evaluation cache. That is
documented behaviour (docs/models.md: "A re-run of an unchanged PR makes no model call") and
pinned by ``tests/test_scale.py``; changing it is a design decision, not a regression test."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

import pytest

from pytest_secreview.core.findings import fingerprint
from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

RULES = {name: (bundled_rules_dir() / f"{name}.md").read_text()
         for name in ("command-injection", "unsafe-deserialization")}
SHELL_LINE = '    os.system("convert " + request.args["f"])'


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


ROUTES_BASE = textwrap.dedent('''\
    import os

    from flask import Flask, request

    from app.auth import admin_required

    app = Flask(__name__)


    @app.get("/admin/convert")
    @admin_required
    def admin_convert():
    {line}
        return {{"ok": True}}
    ''').format(line=SHELL_LINE)

ROUTES_PR = ROUTES_BASE + textwrap.dedent('''\


    @app.get("/public/convert")
    def public_convert():
    {line}
        return {{"ok": True}}
    ''').format(line=SHELL_LINE)


@pytest.mark.xfail(strict=True, reason="hole: a baseline entry mutes its line's text copied "
                                        "anywhere in the file the pull request chooses")
def test_a_baselined_line_copied_into_a_new_route_is_not_muted(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """Hole 1: the baseline entry names a line's text, so the same line copied into a new,
    unauthenticated route hashes alike and is muted by the base's (trusted) baseline."""
    entry = {"fingerprint": fingerprint("command-injection", "app/routes.py", SHELL_LINE),
             "rule": "command-injection", "path": "app/routes.py",
             "note": "admin-only route, input checked by admin_required"}
    review_repo(rules=RULES,
                base={"app/routes.py": ROUTES_BASE,
                      ".secreview/baseline.json": json.dumps({"version": 1,
                                                              "findings": [entry]})},
                pr={"app/routes.py": ROUTES_PR})
    result = _review(pytester, "--secreview-baseline=.secreview/baseline.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.assert_outcomes(failed=1)


OPS = textwrap.dedent('''\
    import os
    import pickle

    from flask import request


    def convert():
        os.system("convert " + request.args["f"])


    def restore():
        return pickle.loads(request.data)
    ''')


@pytest.mark.parametrize("path", [
    "app/ops.py",  # the control: the same code outside an excluded path
    "app/vendor/ops.py", "app/ops_generated.py", "app/testing/ops.py", "app/load_test.py",
])
def test_the_pull_request_does_not_choose_what_is_out_of_the_rules(
    pytester: pytest.Pytester, review_repo: Build, path: str
) -> None:
    """Closed: the default exclusions (vendored, generated, test code) are trusted by origin
    (the review's defaults), but the path they read was the pull request's choice. Shell and
    pickle injection from request data, imported by the app, is red at ``app/ops.py`` and
    red under a path the pull request names vendored, generated or test, since the
    exclusion is judged with what it is applied to (``core.decide.judge_exclusion``)."""
    module = path.removeprefix("app/").removesuffix(".py").replace("/", ".")
    review_repo(rules=RULES, base={"app/__init__.py": ""},
                pr={"app/__init__.py": f"from app.{module} import convert, restore\n",
                    path: OPS})
    result = _review(pytester, "--secreview-unreviewed=fail")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    if path != "app/ops.py":
        result.stdout.fnmatch_lines([f"*reviewed all the same*({path})*"])


def test_test_code_only_tests_use_stays_out_of_the_rules(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """The twin: a test helper the pull request adds, named only by tests, keeps the default
    exclusion (test code is not the application's code), and so does a file the base already
    held at a test path, whatever the pull request now imports from it."""
    review_repo(rules=RULES,
                base={"app/__init__.py": "", "tests/legacy.py": "X = 1\n"},
                pr={"tests/helpers.py": OPS,
                    "tests/test_ops.py": "from tests.helpers import convert\n",
                    "tests/legacy.py": OPS,
                    "app/__init__.py": "from tests.legacy import convert\n"})
    result = _review(pytester, "--secreview-unreviewed=fail")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*out of the non-credential rules by default: 3 test code*"])


RUN_BASE = textwrap.dedent('''\
    import subprocess

    from flask import request


    def listing():
        # secreview: ignore[command-injection] a fixed argument list, no shell
        subprocess.run(
            ["ls", "-l", "/srv/data"],
        )
    ''')
RUN_PR = RUN_BASE.replace('["ls", "-l", "/srv/data"],',
                          '"sh -c " + request.args["cmd"], shell=True,')


def test_a_base_suppression_does_not_cover_a_rewritten_argument_line(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """Closed: a suppression already in the base covers the call's first line; the pull
    request rewrites only the argument line. The comment was written for the whole call, so
    a change to any line of it makes the comment the pull request's, which does not count
    at the threshold without a maintainer."""
    review_repo(rules=RULES, base={"app/jobs.py": RUN_BASE}, pr={"app/jobs.py": RUN_PR})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*not accepted: suppress by pr-comment: a suppression this pull request adds*",
        "FAILED *command-injection*app/jobs.py*"], consecutive=False)


def test_a_base_suppression_still_covers_its_call_when_the_pull_request_changes_other_code(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """The twin: the pull request changes a line outside the call the base comment covers
    (where the command comes from); the call itself is as the base had it, so the comment
    (the base's word on that statement) still counts."""
    base = textwrap.dedent('''\
        import subprocess

        from flask import request


        def listing():
            cmd = "ls -l /srv/data"
            # secreview: ignore[command-injection] the command is checked by the caller
            subprocess.run(
                cmd, shell=True,
            )
        ''')
    review_repo(rules=RULES, base={"app/jobs.py": base},
                pr={"app/jobs.py": base.replace('"ls -l /srv/data"', 'request.args["cmd"]')})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*suppressed: 1 inline*"])
