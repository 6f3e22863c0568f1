"""Inline suppressions (issue 13, item 2): ``secreview: ignore[rule] reason`` in the comment
syntax of the file's language, on the finding's line or alone on the line above. Suppressed
findings stay in every report (JSON, SARIF ``inSource`` with the reason, the summary's
counts); one without a reason is reported and suppresses nothing; one the pull request adds
is shown as such in the summary comment.

One the pull request adds counts at or above the fail threshold only when its author has
write access (issue 20): every review here runs as a pull request of a maintainer on a fake
GitHub (the ``github`` fixture), except where a test makes the author someone else."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import pytest

from pytest_secreview.core.severity import Severity
from pytest_secreview.reporting.markdown import to_markdown
from pytest_secreview.suppression.inline import comment_styles, parse_line
from tests.conftest import ReviewRepo
from tests.fake_github import FakeGitHub, make_token
from tests.fake_providers import FakeServer, FakeServers, Recorded, Reply, openai_completion
from tests.fake_providers import openai_tool_call as tool_call
from tests.test_plugin_taint import HELPERS, VIEWS
from tests.test_sarif import _errors, make_report, validator
from tests.test_sarif import finding as sarif_finding
from tests.test_scanners import BANDIT_RULE, BASE_APP, PR_APP, needs_bandit

__all__ = ["validator"]  # the SARIF schema fixture, reused

Build = Callable[..., ReviewRepo]

DANGER = textwrap.dedent("""\
    ---
    title: Dangerous call
    severity: critical
    detect:
      - pattern: "dangerous\\\\("
        message: A dangerous call
    ---
    """)


@pytest.fixture(autouse=True)
def github(pytester: pytest.Pytester) -> Iterator[FakeGitHub]:
    """A fake GitHub on which the pull request's author, ``maintainer``, has write access."""
    token = make_token()
    with FakeGitHub(token=token, repository="octo/shop",
                    permissions={"maintainer": "write", "visitor": "read"}) as fake:
        pytester._monkeypatch.setenv("GITHUB_TOKEN", token)
        pytester._monkeypatch.setenv("GITHUB_API_URL", fake.api_url)
        pytester._monkeypatch.setenv("GITHUB_REPOSITORY", fake.repository)
        _pull_request_by(pytester, "maintainer")
        yield fake


def _pull_request_by(pytester: pytest.Pytester, author: str) -> None:
    event = pytester.path.parent / f"event-{author}.json"
    event.write_text(json.dumps({"pull_request": {
        "number": 7, "title": "Change", "body": "", "user": {"login": author, "type": "User"}}}))
    pytester._monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", "--secreview-sarif=o.sarif",
                              "--secreview-comment=off", *args)


def _review_with_model(pytester: pytest.Pytester, server: FakeServer,
                       findings: list[dict[str, Any]], *args: str) -> pytest.RunResult:
    """A review whose model reports ``findings`` on every item (the second look off: one
    scripted answer per call)."""

    def answer(request: Recorded) -> Reply:
        reported = json.dumps({"findings": findings})
        return Reply(json=openai_completion(
            tool_calls=[tool_call("c1", "report_findings", reported)],
            finish_reason="tool_calls"))

    server._responder = answer
    return _review(pytester, "--secreview-model", "openai:gpt-4.1", "--secreview-api-base",
                   server.url, "--secreview-no-cache", "--secreview-verify=false", *args)


def _summary(pytester: pytest.Pytester) -> dict[str, Any]:
    path = pytester.path / "secreview-artifacts/report/summary.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path / "secreview-artifacts/report/summary.md").read_text()


def _sarif(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "o.sarif").read_text())  # type: ignore[no-any-return]


# One file per language, the suppression in that language's comment syntax: on the line
# above (alone) or at the end of the finding's line.
LANGUAGES = {
    "python": ("app/jobs.py", "x = 1\n# secreview: ignore[danger] input is a constant\n"
               "result = dangerous(x)\n", 3, "input is a constant"),
    "javascript": ("web/run.js", "const x = 1;\nconst r = dangerous(x); // secreview: "
                   "ignore[danger] runs in a sandboxed worker\n", 2,
                   "runs in a sandboxed worker"),
    "go": ("cmd/main.go", "package main\n\n/* secreview: ignore[danger] only called from "
           "tests */\nvar r = dangerous(x)\n", 4, "only called from tests"),
    "yaml": (".github/workflows/ci.yml", "steps:\n  # secreview: ignore[other-rule, danger] "
             "the image is pinned by digest\n  - run: dangerous(x)\n", 3,
             "the image is pinned by digest"),
    "html": ("site/index.html", "<p>hi</p>\n<!-- secreview: ignore[danger] static page -->\n"
             "<script>dangerous(1)</script>\n", 3, "static page"),
}


@pytest.mark.parametrize("case", LANGUAGES.values(), ids=LANGUAGES.keys())
def test_inline_suppression_in_each_language(
    pytester: pytest.Pytester, review_repo: Build, validator: jsonschema.Draft4Validator,
    case: tuple[str, str, int, str],
) -> None:
    path, text, line, reason = case
    review_repo(rules={"danger": DANGER}, base={path: "\n"}, pr={path: text})
    result = _review(pytester)
    result.assert_outcomes(passed=1)
    assert "suppressed: 1 inline (1 added by this pull request)" in result.stdout.str()
    (finding,) = _summary(pytester)["findings"]
    assert (finding["path"], finding["line"], finding["suppression"]) == (path, line, "inline")
    assert finding["suppression_reason"] == reason
    sarif = _sarif(pytester)
    (result_,) = sarif["runs"][0]["results"]
    assert result_["suppressions"] == [{"kind": "inSource", "status": "accepted",
                                        "justification": reason,
                                        "properties": {"addedByPullRequest": True}}]
    assert _errors(validator, sarif) == []


def test_another_languages_comment_syntax_does_not_suppress(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # "//" is no comment in Python: the words are not a suppression there.
    review_repo(rules={"danger": DANGER},
                pr={"app/jobs.py": "r = dangerous(1)  // secreview: ignore[danger] constant\n"})
    _review(pytester).assert_outcomes(failed=1)
    (finding,) = _summary(pytester)["findings"]
    assert finding["suppression"] is None


def test_a_suppression_names_the_rule_it_suppresses(pytester: pytest.Pytester,
                                                    review_repo: Build) -> None:
    review_repo(rules={"danger": DANGER},
                pr={"app/jobs.py": "r = dangerous(1)  # secreview: ignore[other] constant\n"})
    _review(pytester).assert_outcomes(failed=1)


def test_a_suppression_without_a_reason_is_reported_and_suppresses_nothing(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER},
                pr={"app/jobs.py": "# secreview: ignore[danger]\nr = dangerous(1)\n"})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    findings = {f["rule"]: f for f in _summary(pytester)["findings"]}
    assert findings["danger"]["suppression"] is None
    problem = findings["secreview-suppression"]
    assert (problem["path"], problem["line"], problem["severity"]) == ("app/jobs.py", 1, "LOW")
    assert "no reason" in problem["title"] and "write the reason" in problem["title"]
    assert "ignore[danger] input is validated" in problem["explanation"]
    assert "Suppression comment has no reason" in result.stdout.str()


def test_a_reasonless_suppression_the_pr_adds_is_reported_even_without_a_finding(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER},
                pr={"app/jobs.py": "r = dangerous(1)\n# secreview: ignore[danger]\nok = 1\n"})
    _review(pytester).assert_outcomes(failed=1)
    rules = sorted(f["rule"] for f in _summary(pytester)["findings"])
    assert rules == ["danger", "secreview-suppression"]


def test_a_suppression_naming_no_rule_is_reported(pytester: pytest.Pytester,
                                                  review_repo: Build) -> None:
    review_repo(rules={"danger": DANGER},
                pr={"app/jobs.py": "r = dangerous(1)  # secreview: ignore because I said so\n"})
    _review(pytester).assert_outcomes(failed=1)
    problem = next(f for f in _summary(pytester)["findings"]
                   if f["rule"] == "secreview-suppression")
    assert "names no rule" in problem["title"]


def test_the_summary_shows_a_suppression_the_pull_request_adds(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # The comment on app/old.py was already there, but the call under it is new: a
    # suppression now covering new code is news to the reviewer, like a new comment.
    old = "# secreview: ignore[danger] legacy, tracked in SEC-12\n"
    review_repo(rules={"danger": DANGER}, base={"app/old.py": old + "old = 0\n",
                                                "app/new.py": "\n"},
                pr={"app/old.py": old + "old = dangerous(0)\n",
                    "app/new.py": "new = dangerous(1)  # secreview: ignore[danger] trust me\n"})
    result = _review(pytester, "--secreview-dry-run", "--secreview-comment=all",
                     "--secreview-repo=octo/shop", "--secreview-pr=7")
    result.assert_outcomes(passed=2)
    by_path = {f["path"]: f for f in _summary(pytester)["findings"]}
    assert by_path["app/new.py"]["suppression_added"] is True
    assert by_path["app/old.py"]["suppression_added"] is True
    # The PR comment itself (its dry-run request) shows them; no inline comment is posted.
    requests = [json.loads(p.read_text()) for p in
                sorted((pytester.path / "secreview-artifacts/github-requests").iterdir())]
    (comment,) = [r["json"]["body"] for r in requests if r["url"].endswith("/issues/7/comments")]
    assert "Suppressions added by this pull request (2)" in comment and "trust me" in comment
    assert "legacy, tracked in SEC" in comment
    assert not [r for r in requests if r["url"].endswith("/pulls/7/reviews")]
    markdown = _markdown(pytester)
    added, _, rest = markdown.partition("### 🔕 Suppressions added by this pull request (2)")
    assert rest, markdown
    assert "findings: none · 2 suppressed" in added
    section = rest.split("<details>")[0]
    assert "app/new.py" in section and "trust me" in section and "app/old.py" in section
    sarif = [r["suppressions"][0] for r in _sarif(pytester)["runs"][0]["results"]]
    assert [s["properties"] for s in sarif] == [{"addedByPullRequest": True}] * 2


# ------------------------------------------------- who added it: the author's write access

def test_a_suppression_the_pr_adds_at_the_threshold_awaits_a_maintainer(
    pytester: pytest.Pytester, review_repo: Build, github: FakeGitHub
) -> None:
    _pull_request_by(pytester, "visitor")  # read access only
    review_repo(rules={"danger": DANGER}, pr={
        "app/jobs.py": "r = dangerous(request.data)  # secreview: ignore[danger] it is fine\n"})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    (finding,) = _summary(pytester)["findings"]
    assert finding["suppression"] is None
    assert "awaits a maintainer" in finding["overruled"]
    out = result.stdout.str()
    assert "not accepted: suppress by pr-comment: a suppression this pull request adds at " \
        "or above CRITICAL awaits a maintainer" in out
    assert "the others await a maintainer: visitor has read access to octo/shop, not write" \
        in out
    assert "awaits a maintainer" in _markdown(pytester)
    # Asked once, of the one endpoint.
    assert [r.path for r in github.requests] == ["/repos/octo/shop/collaborators/visitor/"
                                                 "permission"]


def test_without_a_token_a_pr_added_suppression_at_the_threshold_does_not_count(
    pytester: pytest.Pytester, review_repo: Build, github: FakeGitHub
) -> None:
    pytester._monkeypatch.delenv("GITHUB_TOKEN")
    review_repo(rules={"danger": DANGER}, pr={
        "app/jobs.py": "r = dangerous(1)  # secreview: ignore[danger] a constant\n"})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    assert "no GitHub token, pull request or author" in result.stdout.str()
    assert not github.requests


def test_below_the_threshold_a_pr_added_suppression_mutes(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    _pull_request_by(pytester, "visitor")
    review_repo(rules={"danger": DANGER.replace("severity: critical", "severity: medium")},
                pr={"app/jobs.py": "r = dangerous(1)  # secreview: ignore[danger] constant\n"})
    _review(pytester, "--secreview-fail-on=medium").assert_outcomes(failed=1)
    _review(pytester, "--secreview-fail-on=high").assert_outcomes(passed=1)
    (finding,) = _summary(pytester)["findings"]
    assert (finding["suppression"], finding["overruled"]) == ("inline", "")


# ----------------------------------------------------------------------- a model's finding

SQL = textwrap.dedent("""\
    ---
    title: SQL injection
    severity: high
    grep:
      any: ["execute\\\\("]
    ---
    Trace user input into the SQL string.
    """)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def test_a_model_finding_is_suppressed_and_the_model_cannot_suppress(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    finding = {"severity": "HIGH", "title": "SQL built from input", "path": "app/db.py",
               "line": 2, "explanation": "user input", "recommendation": "bind it",
               "suppression": "inline",
               "suppression_reason": "the model says so"}
    other = {**finding, "line": 3, "title": "Another"}
    review_repo(rules={"sql": SQL}, pr={"app/db.py": (
        "# secreview: ignore[sql] the id is an integer from the router\n"
        "cur.execute('SELECT * FROM t WHERE id=' + str(i))\n"
        "cur.execute('SELECT * FROM u WHERE id=' + name)\n")})
    result = _review_with_model(pytester, server, [finding, other], "--secreview-fail-on",
                                "high")
    result.assert_outcomes(failed=1)
    by_line = {f["line"]: f for f in _summary(pytester)["findings"]}
    assert by_line[2]["suppression"] == "inline"
    assert by_line[2]["suppression_reason"] == "the id is an integer from the router"
    assert by_line[3]["suppression"] is None  # what the model claimed counts for nothing


# --------------------------------------------------------------------------- the parser

@pytest.mark.parametrize(("path", "text", "rules", "reason", "alone"), [
    ("a.py", "x = 1  # secreview: ignore[a, b] constant input", ("a", "b"), "constant input",
     False),
    ("a.ts", "/** secreview: ignore[a] checked */", ("a",), "checked", True),
    ("a.go", "/* secreview: ignore[a] checked */ x := 1", ("a",), "checked", False),
    ("q.sql", "SELECT 1; -- secreview:ignore[a] fixed query", ("a",), "fixed query", False),
    ("a.yml", "  # secreview: ignore[a]: reviewed", ("a",), "reviewed", True),
    ("Makefile", "run: ; echo # secreview: ignore[a] ok", ("a",), "ok", False),
    ("a.py", "# secreview: ignore[a] --", ("a",), "", True),
])
def test_parse_line(path: str, text: str, rules: tuple[str, ...], reason: str,
                    alone: bool) -> None:
    found = parse_line(text, 7, comment_styles(path))
    assert found is not None
    assert (found.line, found.rules, found.reason, found.alone) == (7, rules, reason, alone)


@pytest.mark.parametrize(("path", "text"), [
    ("a.py", "x = 1  -- secreview: ignore[a] not a comment in Python"),
    ("a.js", "x = 1  # secreview: ignore[a] not a comment in JavaScript"),
    ("a.py", "x = 1  # secreview ignore[a] no colon"),
])
def test_not_a_suppression(path: str, text: str) -> None:
    assert parse_line(text, 1, comment_styles(path)) is None


# ------------------------------------------------------------------ the summary's blocks

def test_a_suppression_the_pr_adds_survives_shortening_and_others_go_first() -> None:
    noise = [sarif_finding("noise", f"src/f{i}.py", i + 1, Severity.MEDIUM,
                           explanation="x" * 2000) for i in range(40)]
    muted = [sarif_finding("danger", f"old/m{i}.py", 1, Severity.CRITICAL, suppression="baseline",
                           suppression_reason="accepted in SEC-1") for i in range(30)]
    added = sarif_finding("danger", "app/new.py", 3, Severity.CRITICAL, suppression="inline",
                          suppression_reason="trust me", suppression_added=True)
    report = make_report([*noise, *muted, added])
    full = to_markdown(report, max_chars=1_000_000)
    assert "🔕 Suppressed (30)" in full and "… and 10 more in `summary.json`" in full
    assert "findings: 40 MEDIUM · 31 suppressed" in full
    # Suppressed ones fail nothing; one the pull request adds makes the summary yellow.
    assert "## 🟡 pytest-secreview: 0 findings at or above CRITICAL" in full
    short = to_markdown(report, max_chars=4_000)
    assert len(short) <= 4_000
    assert "Suppressions added by this pull request (1)" in short and "trust me" in short
    assert "🔕 Suppressed (30)" not in short and "the suppressed section was left out" in short


def test_workers_decide_the_same_suppressions(pytester: pytest.Pytester,
                                              review_repo: Build) -> None:
    review_repo(rules={"danger": DANGER}, pr={
        "app/a.py": "r = dangerous(1)  # secreview: ignore[danger] a constant\n",
        "app/b.py": "r = dangerous(2)\n"})
    _review(pytester, "-n", "2").assert_outcomes(passed=1, failed=1)
    by_path = {f["path"]: f for f in _summary(pytester)["findings"]}
    assert by_path["app/a.py"]["suppression_reason"] == "a constant"
    assert by_path["app/b.py"]["suppression"] is None


# --------------------------------------------------------------- dataflow and a scanner

def test_a_taint_flow_is_suppressed_at_its_sink(pytester: pytest.Pytester,
                                                review_repo: Build) -> None:
    helpers = HELPERS.replace(
        "def run(cmd):\n",
        "def run(cmd):\n    # secreview: ignore[command-injection] labels are validated upstream\n")
    review_repo(pr={"shop/__init__.py": "", "shop/helpers.py": helpers, "shop/views.py": VIEWS})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", ":bundled", "-k", "command-injection")
    # Not failed: the suppressed flow fails nothing (no model: the deterministic review).
    result.assert_outcomes(passed=2)
    findings = [f for f in _summary(pytester)["findings"] if f["rule"] == "command-injection"]
    assert any("taint" in f["source"] for f in findings)
    assert all(f["suppression_reason"] == "labels are validated upstream" for f in findings)


@needs_bandit
def test_a_scanner_finding_is_suppressed(pytester: pytest.Pytester, review_repo: Build) -> None:
    app = PR_APP.replace("subprocess.call(x, shell=True)\n", "subprocess.call(x, shell=True)"
                         "  # secreview: ignore[scanner-bandit] x is one of three commands\n")
    assert app != PR_APP
    review_repo(base={"app.py": BASE_APP}, pr={"app.py": app})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", BANDIT_RULE, "--secreview-fail-on=high")
    result.assert_outcomes(passed=1)
    (finding,) = [f for f in _summary(pytester)["findings"] if f["title"].startswith("B602")]
    assert finding["source"] == "scanner:bandit" and finding["suppression"] == "inline"


def test_a_failing_item_lists_its_suppressed_findings_with_the_reason(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": (
        "a = dangerous(1)  # secreview: ignore[danger] a constant\nb = dangerous(2)\n")})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "1 finding(s) at or above CRITICAL" in out
    assert "also reported, below CRITICAL or suppressed:" in out
    assert "suppressed (inline): a constant" in out


def test_a_hostile_reason_is_inert_in_the_comment() -> None:
    reason = "@octo/admins see [this](https://evil.example) <img src=x onerror=alert(1)> #12"
    added = sarif_finding("danger", "app/new.py", 3, Severity.CRITICAL, suppression="inline",
                          suppression_reason=reason, suppression_added=True)
    text = to_markdown(make_report([added]))
    assert "<img" not in text and "](https://evil" not in text
    assert "@octo" not in text and "#12" not in text  # no mention, no cross-reference


# ------------------------------------------------- review findings (new-user walkthrough)

def test_an_old_suppression_over_a_line_the_pr_changes_is_shown_as_added(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # The comment was already in the base; the call it now covers is new: that is news.
    old = "# secreview: ignore[danger] legacy, tracked in SEC-12\n"
    review_repo(rules={"danger": DANGER}, base={"app/old.py": old + "old = 0\n"},
                pr={"app/old.py": old + "old = dangerous(0)\n"})
    result = _review(pytester)
    result.assert_outcomes(passed=1)
    (finding,) = _summary(pytester)["findings"]
    assert (finding["suppression"], finding["suppression_added"]) == ("inline", True)
    out = result.stdout.str()
    assert "1 added by this pull request" in out
    # The terminal counts as summary.md does: the suppressed finding is not a CRITICAL.
    assert "findings: none · 1 suppressed" in out and "findings: 1 CRITICAL" not in out


def test_a_skipped_items_worst_finding_leaves_out_the_suppressed(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    # A rule that also wants a model whose provider refuses (skipped under on-error=skip):
    # the "not reviewed" line says what the deterministic checks found, not what was
    # suppressed.
    refusal = Reply(400, {"error": {"message": "model gpt-4.1 does not exist"}})
    server.queue(*[refusal] * 8)
    rule = DANGER + "Look for dangerous calls.\n"
    review_repo(rules={"danger": rule}, pr={"app/jobs.py": (
        "a = dangerous(1)  # secreview: ignore[danger] a constant\n")})
    result = _review(pytester, "--secreview-model", "openai:gpt-4.1", "--secreview-api-base",
                     server.url, "--secreview-on-error=skip", "--secreview-no-cache")
    result.assert_outcomes(skipped=1)
    out = result.stdout.str()
    assert "danger[app/jobs.py]" in out and "worst CRITICAL" not in out


@pytest.mark.parametrize(("path", "text"), [
    ("a.py", 'x = "# secreview: ignore[a] not a comment, a string"'),
    ("a.py", "x = f'{y} # secreview: ignore[a] in an f-string'"),
    ("a.py", 'x = "it\\"s # secreview: ignore[a] after an escaped quote"'),
    ("a.py", 'x = """# secreview: ignore[a] a triple-quoted string"""'),
    ("a.js", "const s = '// secreview: ignore[a] a string';"),
    ("a.js", "const s = `/* secreview: ignore[a] a template literal */`;"),
    ("a.go", 'var s = "// secreview: ignore[a] a string"'),
    ("a.go", "var s = `// secreview: ignore[a] a raw string`"),
    ("a.yml", "run: 'echo # secreview: ignore[a] quoted scalar'"),
    ("a.yml", 'run: "echo # secreview: ignore[a] quoted scalar"'),
    ("a.py", "x = 'unterminated # secreview: ignore[a] in doubt, no'"[:-1]),
])
def test_the_marker_inside_a_string_literal_is_not_a_suppression(path: str, text: str) -> None:
    assert parse_line(text, 1, comment_styles(path)) is None


@pytest.mark.parametrize(("path", "text", "reason"), [
    ("a.py", 'x = "a # b"  # secreview: ignore[a] after a string', "after a string"),
    ("a.py", "x = 'it\\'s'  # secreview: ignore[a] escaped quote closed", "escaped quote closed"),
    ("a.js", "f('//', \"x\"); // secreview: ignore[a] after strings", "after strings"),
    ("a.go", "s := `raw` /* secreview: ignore[a] after a raw string */", "after a raw string"),
    ("a.yml", "run: 'echo hi' # secreview: ignore[a] after a quoted scalar",
     "after a quoted scalar"),
    ("a.py", "# it's # secreview: ignore[a] a quote inside the comment is fine",
     "a quote inside the comment is fine"),
])
def test_the_marker_after_a_string_literal_is_a_suppression(path: str, text: str,
                                                            reason: str) -> None:
    found = parse_line(text, 1, comment_styles(path))
    assert found is not None and found.reason == reason


def test_a_marker_in_a_string_does_not_suppress_in_a_review(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": (
        'r = dangerous("# secreview: ignore[danger] smuggled in a string")\n')})
    _review(pytester).assert_outcomes(failed=1)
    (finding,) = _summary(pytester)["findings"]
    assert finding["suppression"] is None


SECRET = textwrap.dedent("""\
    ---
    title: Hard-coded AWS key
    severity: critical
    category: secrets
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    """)


def test_a_pr_added_suppression_does_not_mute_a_committed_credential(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    from tests.conftest import aws_key_id

    line = f"KEY = '{aws_key_id()}'  # secreview: ignore[aws] only a test key"
    review_repo(rules={"aws": SECRET}, pr={"settings.py": line + "\n"})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    (finding,) = _summary(pytester)["findings"]
    assert (finding["rule"], finding["suppression"], finding["severity"]) == (
        "aws", None, "CRITICAL")
    # Refused by the one decision (whoever wrote the comment), shown on the finding.
    assert "a committed credential is a leak whatever is said now: rotate it" in \
        finding["overruled"]
    assert "baseline" in finding["overruled"]
    assert aws_key_id() not in result.stdout.str()


def test_a_suppression_in_the_base_still_mutes_a_credential(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    # A model reports the credential on a line the pull request does not touch, under a
    # suppression the base already had: that suppression keeps working.
    finding = {"severity": "CRITICAL", "title": "Key in source", "path": "settings.py",
               "line": 2, "category": "secrets", "explanation": "a key",
               "recommendation": "rotate"}

    old = "# secreview: ignore[keys] a revoked test key\nKEY = load('test')\n"
    review_repo(rules={"keys": SQL.replace("execute", "load")}, base={"settings.py": old},
                pr={"settings.py": old + "OTHER = load('x')\n"})
    result = _review_with_model(pytester, server, [finding])
    result.assert_outcomes(passed=1)
    (reported,) = _summary(pytester)["findings"]
    assert (reported["category"], reported["suppression"]) == ("secrets", "inline")
    assert reported["suppression_added"] is False


@pytest.mark.parametrize(("path", "text", "line"), [
    ("app/jobs.py", 'x = """\n# secreview: ignore[danger] smuggled in a docstring\n'
                    '"""; r = dangerous(1)\n', 3),
    ("app/jobs.py", "x = f'''{a}\n  b\n    # secreview: ignore[danger] in a string\n"
                    "''' + dangerous(1)\n", 4),
    ("web/run.js", "const t = `\n// secreview: ignore[danger] in a template literal\n"
                   "`; dangerous(1);\n", 3),
    ("cmd/main.go", "var t = `\n/* secreview: ignore[danger] in a raw string */\n"
                    "`; var r = dangerous(x)\n", 3),
])
def test_a_marker_in_a_string_spanning_lines_does_not_suppress(
    pytester: pytest.Pytester, review_repo: Build, path: str, text: str, line: int,
) -> None:
    review_repo(rules={"danger": DANGER}, pr={path: text})
    _review(pytester).assert_outcomes(failed=1)
    (finding,) = _summary(pytester)["findings"]
    assert (finding["line"], finding["suppression"]) == (line, None)


def test_inside_strings_keeps_real_comments_after_strings_close() -> None:
    from pytest_secreview.suppression.inline import inside_strings

    lines = ['"""doc', "still doc", '"""', "# a comment with a ` and a '''", "x = 1"]
    assert inside_strings(lines, "a.py") == frozenset({2, 3})
    assert inside_strings(["a = '`'", "b = 1"], "a.js") == frozenset()


def test_a_credential_rules_model_finding_is_a_credential_whatever_the_model_calls_it(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    finding = {"severity": "CRITICAL", "title": "Key in source", "path": "settings.py",
               "line": 1, "category": "configuration", "explanation": "a key",
               "recommendation": "rotate"}

    rule = SQL.replace("execute", "load").replace("severity: high",
                                                  "severity: high\ncategory: secrets")
    review_repo(rules={"keys": rule}, pr={
        "settings.py": "KEY = load('k')  # secreview: ignore[keys] only a test key\n"})
    result = _review_with_model(pytester, server, [finding])
    result.assert_outcomes(failed=1)
    (reported,) = _summary(pytester)["findings"]
    assert (reported["rule"], reported["category"], reported["suppression"]) == (
        "keys", "secrets", None)  # the rule's category: a credential
    assert "rotate it" in reported["overruled"]
