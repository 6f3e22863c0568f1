"""Publishing on a pull request against the fake GitHub server: one summary comment found
again and edited, inline comments never posted twice, resolved findings, suggestions, GitHub's
refusals (422, a fork's 403), rate limits, dry runs, GHE, and the token never shown."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.github.client import GitHubClient
from pytest_secreview.github.context import PullRequest
from pytest_secreview.publish.comment_state import SUMMARY_MARKER, decode_state, encode_state
from pytest_secreview.publish.comments import publish
from pytest_secreview.publish.inline import right_side_lines
from pytest_secreview.publish.result import PublishResult
from pytest_secreview.reporting.model import ItemReport, Report
from tests.fake_github import (
    FakeGitHub,
    Sleeps,
    iter_bodies,
    make_client,
    make_finding,
    make_report,
    make_token,
)

# Right side of app/run.py's diff: lines 1-6 (2-4 added); line 40 is elsewhere in the file.
PATCH = (
    "@@ -1,3 +1,6 @@\n import os\n+def run(name):\n+    os.system('convert ' + name)\n"
    "+    return 1\n \n def other():\n"
)


@pytest.fixture
def token() -> str:
    return make_token()


@pytest.fixture
def server(token: str) -> Iterator[FakeGitHub]:
    with FakeGitHub(token=token, files={"app/run.py": PATCH, "logo.png": None}) as fake:
        yield fake


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def client(server: FakeGitHub, token: str, sleeps: Sleeps) -> GitHubClient:
    return make_client(server.api_url, token, sleeps)


def pull_request(server: FakeGitHub, token: str | None) -> PullRequest:
    return PullRequest(repository=server.repository, number=server.number,
                       api_url=server.api_url, head_sha=server.head_sha, token=token)


@pytest.fixture
def pr(server: FakeGitHub, token: str) -> PullRequest:
    return pull_request(server, token)


def summary_body(server: FakeGitHub) -> str:
    comments = server.summary_comments()
    assert len(comments) == 1
    body: str = comments[0]["body"]
    return body


A = make_finding(title="Shell injection in run", line=3,
                 suggestion="subprocess.run(['convert', name])")
B = make_finding(title="Second problem", rule="other", line=2, severity="HIGH")


def test_right_side_lines_of_a_patch() -> None:
    assert right_side_lines(PATCH) == {1, 2, 3, 4, 5, 6}
    two_hunks = "@@ -1 +1 @@\n-a\n+b\n@@ -10,2 +10,3 @@\n c\n+d\n e\n\\ No newline at end of file"
    assert right_side_lines(two_hunks) == {1, 10, 11, 12}


def test_summary_is_created_then_edited_in_place(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    first = publish(make_report([A]), pr, mode="summary", client=client)
    second = publish(make_report([]), pr, mode="summary", client=client)
    assert (first.summary, second.summary) == ("created", "updated")
    assert first.summary_comment_id == second.summary_comment_id
    body = summary_body(server)
    assert body.startswith(SUMMARY_MARKER + "\n## 🟢 pytest-secreview")
    assert [r.method for r in server.requests if "comments" in r.path] == [
        "GET", "POST", "GET", "PATCH"]
    assert first.warnings == second.warnings == ()
    assert first.lines[0].startswith("PR comment: summary created: https://github.com/")


def test_the_marker_is_found_on_page_three_of_250_comments(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    for i in range(230):
        server.add_issue_comment(f"chatter {i}")
    ours = server.add_issue_comment(SUMMARY_MARKER + "\nold summary",
                                    login="github-actions[bot]", user_type="Bot")
    for i in range(19):
        server.add_issue_comment(f"more chatter {i}")
    result = publish(make_report([A]), pr, mode="summary", client=client)
    assert result.summary == "updated" and result.summary_comment_id == ours["id"]
    assert [r.query.get("page", "1") for r in server.calls("GET", "/issues/7/comments")] == [
        "1", "2", "3"]
    assert server.calls("POST") == []
    assert "Shell injection in run" in summary_body(server)


def test_the_tokens_own_comment_wins_over_a_marker_pasted_by_a_person(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    fake_state = encode_state(decode_state(
        '<!-- pytest-secreview:state {"v":1,"findings":[["f00d","HIGH","r","x.py",1,"Fake"]]} -->'))
    server.add_issue_comment(f"{SUMMARY_MARKER}\npasted\n{fake_state}", login="mallory")
    bot = server.add_issue_comment(f"{SUMMARY_MARKER}\nreal", login="github-actions[bot]",
                                   user_type="Bot")
    result = publish(make_report([A]), pr, mode="summary", client=client)
    assert result.summary_comment_id == bot["id"] and result.resolved == 0
    assert server.issue_comments[0]["body"].endswith(fake_state)


def test_a_marker_posted_before_the_first_run_is_never_edited(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    # Anyone can comment on a pull request, bots of other apps included: only a comment the
    # token itself wrote is ever ours to edit.
    person = server.add_issue_comment(f"{SUMMARY_MARKER}\nall clear, merge it", login="mallory")
    other_bot = server.add_issue_comment(f"{SUMMARY_MARKER}\n0 findings", login="helper[bot]",
                                         user_type="Bot")
    result = publish(make_report([A]), pr, mode="summary", client=client)
    assert result.summary == "created"
    assert result.summary_comment_id not in (person["id"], other_bot["id"])
    assert server.calls("PATCH") == []
    assert person["body"].endswith("merge it") and other_bot["body"].endswith("0 findings")
    assert server.calls("GET", "/user"), "the token's identity was asked once"


def test_a_personal_token_edits_only_its_own_comment(token: str) -> None:
    with FakeGitHub(token=token, files={"app/run.py": PATCH}, login="octocat") as server:
        actions = server.add_issue_comment(f"{SUMMARY_MARKER}\nold", login="github-actions[bot]",
                                           user_type="Bot")
        pr = pull_request(server, token)
        client = make_client(server.api_url, token)
        first = publish(make_report([A]), pr, mode="summary", client=client)
        second = publish(make_report([]), pr, mode="summary", client=client)
        assert (first.summary, second.summary) == ("created", "updated")
        assert first.summary_comment_id == second.summary_comment_id != actions["id"]
        assert actions["body"].endswith("old")
        again = publish(make_report([]), pr, mode="summary",
                        client=make_client(server.api_url, token))
        assert again.summary_comment_id == first.summary_comment_id
        assert len(server.calls("GET", "/user")) == 1, "the identity is found once per run"


def test_a_finding_marker_forged_by_someone_else_does_not_silence_the_inline_comment(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    first = publish(make_report([A]), pr, mode="inline", client=client)
    marker = server.review_comments[0]["body"].split("\n", 1)[0]
    server.review_comments.clear()
    server.review_comments.append({"id": server.new_id(), "body": f"{marker}\nlooks fine",
                                   "path": "app/run.py", "line": 3,
                                   "user": {"login": "mallory", "type": "User"}})
    again = publish(make_report([A]), pr, mode="inline", client=client)
    assert first.inline_posted == again.inline_posted == 1
    assert again.inline_already_posted == 0


def test_inline_comments_are_never_posted_twice(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    report = make_report([A, B])
    first = publish(report, pr, mode="all", client=client)
    second = publish(report, pr, mode="all", client=client)
    assert (first.inline_posted, first.inline_already_posted) == (2, 0)
    assert (second.inline_posted, second.inline_already_posted) == (0, 2)
    assert len(server.reviews) == 1 and len(server.review_comments) == 2
    review = server.calls("POST", "/reviews")[0].json
    assert review["commit_id"] == server.head_sha and review["event"] == "COMMENT"
    for comment in review["comments"]:
        assert comment["body"].startswith("<!-- pytest-secreview:finding:")
        assert comment["side"] == "RIGHT"
    assert "PR comment: 0 inline comment(s) posted, 2 already posted earlier" in second.lines


def test_suggestion_blocks_and_multi_line_comments(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    single = make_finding(title="single", line=3, suggestion="x = ```ticks```")
    multi = make_finding(title="multi", line=2, end_line=4, suggestion="a\nb")
    partial = make_finding(title="partial", line=5, end_line=9, suggestion="whole")
    result = publish(make_report([single, multi, partial]), pr, mode="inline", client=client)
    assert result.inline_posted == 3 and result.warnings == ()
    by_title = {c["body"].split(" · ", 1)[1].split("\n")[0]: c for c in server.review_comments}
    assert "````suggestion\nx = ```ticks```\n````" in by_title["single"]["body"]
    assert by_title["single"]["line"] == 3 and "start_line" not in by_title["single"]
    assert (by_title["multi"]["start_line"], by_title["multi"]["line"]) == (2, 4)
    assert by_title["multi"]["start_side"] == "RIGHT"
    assert "```suggestion\na\nb\n```" in by_title["multi"]["body"]
    # Only part of 5-9 is in the diff: anchored at 5, and the fix is not offered as a
    # one-click suggestion that would replace the wrong lines.
    assert by_title["partial"]["line"] == 5
    assert "suggestion" not in by_title["partial"]["body"].split("Suggested fix")[1][:20]
    assert "📖 [Learn more: OS command injection](https://cheatsheetseries" in (
        by_title["single"]["body"])


def test_findings_outside_the_diff_go_to_the_summary(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    far = make_finding(title="far away", line=40)
    binary = make_finding(title="in a binary", path="logo.png", line=1)
    result = publish(make_report([A, far, binary]), pr, mode="all", client=client)
    assert (result.inline_posted, result.inline_outside_diff) == (1, 2)
    body = summary_body(server)
    assert "2 finding(s) are on lines outside this pull request" in body
    assert "app/run.py:40" in body and "logo.png:1" in body


def test_low_findings_stay_out_of_inline_comments(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    low = make_finding(title="low", severity="LOW", line=2)
    medium = make_finding(title="medium", severity="MEDIUM", line=3)
    result = publish(make_report([low, medium]), pr, mode="inline", client=client)
    assert result.inline_posted == 1
    assert "medium" in server.review_comments[0]["body"]
    assert server.issue_comments == []  # mode inline writes no summary


def test_a_rejected_line_is_isolated_and_reported(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    server.reject_lines.add(("app/run.py", 3))
    result = publish(make_report([A, B]), pr, mode="all", client=client)
    assert result.inline_posted == 1 and result.inline_rejected == ("app/run.py:3",)
    assert [len(r.json["comments"]) for r in server.calls("POST", "/reviews")] == [2, 1, 1]
    assert len(server.review_comments) == 1 and server.review_comments[0]["line"] == 2
    assert "GitHub did not accept 1 inline comment(s)" in summary_body(server)
    assert "PR comment: GitHub rejected 1 inline comment(s): app/run.py:3" in result.lines
    assert result.warnings == ()


def test_a_forks_read_only_token_is_a_warning_not_a_crash(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    server.read_only = True
    result = publish(make_report([A, B]), pr, mode="all", client=client)
    assert result.summary == "skipped" and result.inline_posted == 0
    assert len(result.warnings) == 1
    assert "403 Resource not accessible by integration" in result.warnings[0]
    assert "forks" in result.warnings[0]
    assert len(server.calls("POST")) == 1  # the first refusal stops every other write
    assert server.issue_comments == [] and server.review_comments == []


def test_rate_limits_during_publish_are_waited_out(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest, sleeps: Sleeps) -> None:
    server.fault("secondary", retry_after=9, path_contains="/files")
    server.fault("primary", reset_at=1_800_000_000 + 20, method="POST")
    result = publish(make_report([A]), pr, mode="all", client=client)
    assert result.inline_posted == 1 and result.summary == "created"
    assert sleeps == [9.0, 21.0]


def test_resolved_findings_are_shown_on_the_next_run(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    publish(make_report([A, B]), pr, mode="summary", client=client)
    result = publish(make_report([A]), pr, mode="summary", client=client)
    body = summary_body(server)
    assert result.resolved == 1
    assert "### ✅ Resolved since the last run (1)" in body
    assert "~~🟠 HIGH · Second problem~~" in body
    assert "PR comment: 1 finding(s) resolved since the last run" in result.lines
    publish(make_report([A]), pr, mode="summary", client=client)
    assert "Resolved since" not in summary_body(server)


def test_a_finding_whose_item_was_not_rechecked_is_not_called_resolved(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    publish(make_report([A, B]), pr, mode="summary", client=client)
    skipped = ItemReport(nodeid="x", rule=B.rule, path=B.path, outcome="skipped",
                         reason="no model configured")
    items = [*make_report([A]).items, skipped]
    result = publish(make_report([A], items=items), pr, mode="summary", client=client)
    assert result.resolved == 0
    fingerprints = {e.fingerprint for e in decode_state(summary_body(server))}
    assert fingerprints == {A.fingerprint, B.fingerprint}  # carried over
    result = publish(make_report([A]), pr, mode="summary", client=client)
    assert result.resolved == 1


def test_a_hostile_title_cannot_forge_the_state(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    forged = ('<!-- pytest-secreview:state {"v":1,"findings":'
              '[["dead","CRITICAL","r","x.py",1,"Forged"]]} -->')
    hostile = make_finding(title=forged, suggestion=forged, path=f"{forged}.py", line=1)
    publish(make_report([hostile]), pr, mode="summary", client=client)
    entries = decode_state(summary_body(server))
    assert [e.fingerprint for e in entries] == [hostile.fingerprint]
    # Our state holds the hostile title escaped, and it survives the round trip intact.
    assert entries[0].title == forged[:120] and entries[0].path == hostile.path


def test_dry_run_writes_the_exact_requests_and_sends_none(
        server: FakeGitHub, tmp_path: Path) -> None:
    client = make_client(server.api_url, None, dry_run_dir=tmp_path)
    pr = pull_request(server, None)
    result = publish(make_report([A]), pr, mode="all", client=client,
                     commentable={"app/run.py": range(1, 7)})
    assert server.requests == []
    assert result.summary == "written (dry run)" and result.inline_posted == 1
    review, comment = (json.loads(p.read_text()) for p in sorted(tmp_path.iterdir()))
    assert review["method"] == "POST"
    assert review["url"] == f"{server.api_url}/repos/octo/repo/pulls/7/reviews"
    assert set(review["json"]) == {"commit_id", "event", "body", "comments"}
    assert review["json"]["comments"][0]["line"] == 3
    assert comment["url"] == f"{server.api_url}/repos/octo/repo/issues/7/comments"
    assert comment["json"]["body"].startswith(SUMMARY_MARKER)
    assert "Authorization" not in comment["headers"]
    assert f"PR comment (dry run): requests written to {tmp_path}" in result.lines


def test_enterprise_server_paths_and_links(token: str) -> None:
    with FakeGitHub(token=token, prefix="/api/v3", files={"app/run.py": PATCH}) as ghe:
        client = make_client(ghe.api_url, token)
        result = publish(make_report([A]), pull_request(ghe, token), mode="all", client=client)
        assert result.inline_posted == 1 and result.summary == "created"
        assert all(r.path.startswith("/api/v3/repos/octo/repo/") or r.path == "/api/v3/user"
                       for r in ghe.requests)
        assert f"]({ghe.origin}/octo/repo/blob/{ghe.head_sha}/app/run.py#L3)" in (
            summary_body(ghe))


def test_commentable_lines_from_the_caller_skip_the_files_listing(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    result = publish(make_report([A]), pr, mode="inline", client=client,
                     commentable={"app/run.py": {3}})
    assert result.inline_posted == 1
    assert server.calls("GET", "/files") == []


@pytest.mark.parametrize(("mode", "token_given", "warning"), [
    pytest.param("off", True, None, id="off"),
    pytest.param("all", False, "no GitHub token", id="no-token"),
    pytest.param("sideways", True, "unknown PR comment mode", id="bad-mode"),
])
def test_nothing_is_sent_when_publishing_is_off_or_impossible(
        server: FakeGitHub, token: str, mode: Any, token_given: bool,
        warning: str | None) -> None:
    client = make_client(server.api_url, token if token_given else None)
    result = publish(make_report([A]), pull_request(server, token), mode=mode, client=client)
    assert server.requests == []
    assert [w for w in result.warnings if warning and warning in w] or warning is None


def test_failures_become_warnings(client: GitHubClient, server: FakeGitHub,
                                  pr: PullRequest) -> None:
    server.fault("5xx", status=500, times=99, method="POST")

    def broken(report: Report, **_kwargs: Any) -> str:
        raise RuntimeError("renderer bug")

    result = publish(make_report([A]), pr, mode="all", client=client)
    assert result.summary == "failed" and len(result.warnings) == 2
    assert all("HTTP 500" in w for w in result.warnings)
    result = publish(make_report([A]), pr, mode="summary", client=client,
                     markdown_builder=broken)
    assert result.warnings == (
        "publishing to GitHub failed unexpectedly: RuntimeError: renderer bug",)


def test_a_huge_report_fits_in_one_comment(client: GitHubClient, server: FakeGitHub,
                                           pr: PullRequest) -> None:
    findings = [make_finding(title=f"f{i}", line=i + 1, explanation="w " * 1000)
                for i in range(400)]
    result = publish(make_report(findings), pr, mode="summary", client=client)
    body = summary_body(server)
    assert result.summary == "created" and len(body) <= 65_536
    assert len(decode_state(body)) > 50
    assert "This summary was shortened" in body


def _secret_everywhere(token: str, server: FakeGitHub) -> Report:
    server.fault("echo-auth", method="PATCH")
    leak = make_finding(title=f"uses {token}", explanation=f"token={token}",
                        suggestion=f'TOKEN = "{token}"', line=3)
    return make_report([leak], notes=[f"note {token}"])


@pytest.mark.parametrize("scenario", ["normal", "fork", "echo", "dry-run"])
def test_the_token_is_in_no_output(server: FakeGitHub, token: str, tmp_path: Path,
                                   caplog: pytest.LogCaptureFixture, scenario: str) -> None:
    caplog.set_level(logging.DEBUG)
    server.read_only = scenario == "fork"
    client = make_client(server.api_url, token,
                         dry_run_dir=tmp_path if scenario == "dry-run" else None)
    pr = pull_request(server, token)
    report = _secret_everywhere(token, server) if scenario == "echo" else make_report(
        [make_finding(title=f"uses {token}", explanation=token, suggestion=token, line=3)])
    results: list[PublishResult] = []
    for _run in range(2):
        results.append(publish(report, pr, mode="all", client=client))
    texts = [*iter_bodies(server), caplog.text, repr(client), repr(pr)]
    for result in results:
        texts += [*result.lines, *result.warnings, repr(result)]
    texts += [p.read_text() for p in tmp_path.iterdir()]
    assert all(token not in text for text in texts)
    if scenario == "echo":
        assert any("[REDACTED]" in w for r in results for w in r.warnings)


def test_terminal_lines_carry_no_escape_sequences(
        client: GitHubClient, server: FakeGitHub, pr: PullRequest) -> None:
    path = "app/\x1b[2J\x1b[31mrun.py"
    server.files[path] = PATCH
    server.reject_lines.add((path, 3))
    result = publish(make_report([make_finding(path=path, line=3)]), pr, mode="inline",
                     client=client)
    assert result.inline_rejected == ("app/run.py:3",)
    assert all("\x1b" not in line for line in result.lines)
