"""The holes of a trust rule that asked WHO lowers a finding, never WHAT it is applied to.

``core.decide`` accepted a lowering when its origin was trusted (the base's baseline, a
suppression comment already in the base, the review's defaults), though the thing it was
applied to (the line a fingerprint names, the path a default exclusion reads, the call a
comment sits above) was chosen by the pull request. Each test drives the real plugin through
``pytester`` in a real git repository and asserts the safe behaviour; each was a strict xfail
(or failed) before its hole was closed, and stays as the regression test.

Hole 4, replaying a stored "no findings" model review from the evaluation cache, is a
decision with a switch: ``--secreview-cache-replay=all`` (the default, an accepted risk
documented in docs/security.md) replays it; ``failing`` asks again (the last tests)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.core.findings import fingerprint
from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServers,
    Reply,
    openai_completion,
    openai_no_findings,
    openai_tool_call,
)
from tests.test_scale import RULE as MODEL_RULE  # a rule only a model reviews

Build = Callable[..., ReviewRepo]

RULES = {name: (bundled_rules_dir() / f"{name}.md").read_text()
         for name in ("command-injection", "unsafe-deserialization")}
SHELL_LINE = '    os.system("convert " + request.args["f"])'


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


ROUTE = textwrap.dedent('''\


    @app.get("/{kind}/convert")
    {guard}def {kind}_convert():
    {line}
        return {{"ok": True}}
    ''')
HEAD = textwrap.dedent('''\
    import os

    from flask import Flask, request

    from app.auth import admin_required

    app = Flask(__name__)
    ''')
ADMIN = ROUTE.format(kind="admin", guard="@admin_required\n", line=SHELL_LINE)
PUBLIC = ROUTE.format(kind="public", guard="", line=SHELL_LINE)
#: The base's module and what the pull request makes of it.
ROUTES_BASE = HEAD + ADMIN
COPIES = {"after": HEAD + ADMIN + PUBLIC, "before": HEAD + PUBLIC + ADMIN}


def _accept_the_admin_route(pytester: pytest.Pytester, review_repo: Build,
                            baseline: Path) -> ReviewRepo:
    """The team's baseline as ``--secreview-baseline-update`` writes it: the pull request
    that added the admin route, reviewed and accepted (the file lives outside the work tree,
    where CI keeps it); then main holds the route and a new branch is checked out."""
    repo = review_repo(rules=RULES, pr={"app/routes.py": ROUTES_BASE})
    _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    written = json.loads(baseline.read_text())
    (entry,) = written["findings"]
    assert entry["context"] and entry["line"] == 13
    entry["note"] = "admin-only route, input checked by admin_required"
    baseline.write_text(json.dumps(written))
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "pr")
    repo.git("checkout", "-q", "-b", "next")
    return repo


def _decided(pytester: pytest.Pytester) -> dict[int, dict[str, Any]]:
    summary = json.loads((pytester.path / "secreview-artifacts/report/summary.json").read_text())
    return {f["line"]: f for f in summary["findings"] if f["rule"] == "command-injection"}


@pytest.mark.parametrize("where", sorted(COPIES))
def test_a_baselined_line_copied_into_a_new_route_is_not_muted(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
    where: str,
) -> None:
    """Hole 1, closed: the entry accepts the finding in its context (rule, normalised line
    and the route that encloses it: ``@app.get("/admin/convert") @admin_required def
    admin_convert()``). The same line copied into a new, unauthenticated route, after or
    before the admin one, is a new finding and fails; the admin route's stays muted."""
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    repo = _accept_the_admin_route(pytester, review_repo, baseline)
    repo.write("app/routes.py", COPIES[where])
    repo.commit("a public route")
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules",
                                f"--secreview-baseline={baseline}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    (public,) = _decided(pytester).values()  # the admin route's line is not in the diff
    assert (public["line"], public["suppression"]) == (19 if where == "after" else 12, None)


def test_a_baselined_route_moved_stays_muted_and_losing_its_guard_does_not(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The twin: the entry survives a move of its route below a longer one (git shows the
    route's lines removed and added again, at other numbers), and stops applying when the
    route's header changes (``@admin_required`` removed): the code it was about is not the
    code that is there now."""
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    repo = _accept_the_admin_route(pytester, review_repo, baseline)
    health = "\n\n@app.get('/health')\ndef health():\n" + "".join(
        f"    check_{n}()\n" for n in range(12)) + "    return {'ok': True}\n"
    repo.write("app/routes.py", HEAD + health + ADMIN)
    repo.commit("the health route first")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "next")
    repo.git("checkout", "-q", "-b", "moved")
    repo.write("app/routes.py", HEAD + ADMIN + health)
    repo.commit("the admin route first")
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", f"--secreview-baseline={baseline}")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert _decided(pytester)[13]["suppression"] == "baseline"  # in the diff, and muted
    repo.write("app/routes.py", HEAD + ADMIN.replace("@admin_required\n", "") + health)
    repo.commit("the guard goes")
    assert pytester.runpytest(*args).ret == pytest.ExitCode.TESTS_FAILED
    assert _decided(pytester)[12]["suppression"] is None


def test_an_entry_without_a_context_mutes_only_the_line_the_base_had(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """An entry written before contexts were recorded names the line's text only. It still
    mutes the base's line; on a line the pull request writes (the copy placed before the
    original takes the first occurrence's fingerprint) it is a lowering of what the base did
    not see, refused at the threshold and shown as such."""
    entry = {"fingerprint": fingerprint("command-injection", "app/routes.py", SHELL_LINE),
             "rule": "command-injection", "path": "app/routes.py",
             "note": "admin-only route, input checked by admin_required"}
    review_repo(rules=RULES,
                base={"app/routes.py": ROUTES_BASE,
                      ".secreview/baseline.json": json.dumps({"version": 1,
                                                              "findings": [entry]})},
                pr={"app/routes.py": COPIES["before"]})
    result = _review(pytester, "--secreview-baseline=.secreview/baseline.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    public = _decided(pytester)[12]
    assert public["suppression"] is None
    assert "baseline by baseline: baseline speaks for what the base revision held" in \
        public["overruled"]


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


def _reports_injection() -> Reply:
    finding = {"severity": "CRITICAL", "title": "SQL built from request data",
               "path": "app/db.py", "line": 1, "confidence": 0.9,
               "explanation": "request.args flows into execute.",
               "recommendation": "Use a parameterised query."}
    return Reply(json=openai_completion(tool_calls=[openai_tool_call(
        "c1", "report_findings", json.dumps({"findings": [finding]}))],
        finish_reason="tool_calls"))


def test_a_stored_clean_review_stands_in_only_under_the_default_replay(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """Hole 4: the first run's model was talked out of the finding (steered by the pull
    request) and its clean review is stored. Under the default (``all``) the re-run replays
    it and passes without asking. Under ``failing`` a stored review that fails nothing is
    asked again (here the model now reports the injection: red), and a stored review that
    fails is replayed (no model call: it can only keep the run red)."""
    review_repo(rules={"inj": MODEL_RULE},
                pr={"app/db.py": "cur.execute('SELECT ' + request.args['q'])\n",
                    ".gitignore": "cache/\nsecreview-artifacts/\n"})
    with FakeServers() as servers:
        server = servers.start()
        server.queue(openai_no_findings(), _reports_injection())

        def run(*args: str) -> pytest.RunResult:
            return pytester.runpytest(
                "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
                "secreview/rules", "--secreview-model", "openai:test-model",
                "--secreview-api-base", server.url, "--secreview-verify=false",
                f"--secreview-cache-dir={pytester.path / 'cache'}", *args)

        run().assert_outcomes(passed=1)
        run().assert_outcomes(passed=1)  # the accepted risk: replayed
        assert len(server.requests) == 1
        steered = run("--secreview-cache-replay=failing")
        steered.assert_outcomes(failed=1)
        assert len(server.requests) == 2
        run("--secreview-cache-replay=failing").assert_outcomes(failed=1)
        assert len(server.requests) == 2  # the failing review stands in: no model call
