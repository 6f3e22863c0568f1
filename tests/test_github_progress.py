"""The progress comment: throttled "reviewing N of M", replaced in place by the summary; it
follows the model's tool calls, in one process and across xdist workers."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_secreview import activity
from pytest_secreview.activity import ActivityLog, ActivityReader
from pytest_secreview.github.context import PullRequest
from pytest_secreview.publish.comment_state import SUMMARY_MARKER
from pytest_secreview.publish.comments import publish
from pytest_secreview.publish.live import ProgressPlugin
from pytest_secreview.publish.progress import ProgressComment
from tests.conftest import ReviewRepo
from tests.fake_github import FakeGitHub, make_client, make_finding, make_report, make_token
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    openai_completion,
    openai_tool_call,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def token() -> str:
    return make_token()


@pytest.fixture
def server(token: str) -> Iterator[FakeGitHub]:
    with FakeGitHub(token=token) as fake:
        yield fake


@pytest.fixture
def pr(server: FakeGitHub, token: str) -> PullRequest:
    return PullRequest(repository=server.repository, number=server.number,
                       api_url=server.api_url, head_sha=server.head_sha, token=token)


def test_progress_is_throttled_and_replaced_by_the_summary(
        server: FakeGitHub, pr: PullRequest, token: str) -> None:
    client = make_client(server.api_url, token)
    clock = Clock()
    progress = ProgressComment(client, pr, total=10, min_interval=5.0, clock=clock)
    assert progress.start()
    (comment,) = server.summary_comments()
    assert "0 of 10 items done" in comment["body"]
    clock.now += 1
    assert not progress.update(3)  # too soon
    clock.now += 5
    assert progress.update(4)
    assert "4 of 10 items done" in comment["body"]
    assert progress.update(11, force=True)
    assert "10 of 10 items done" in comment["body"]
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in server.requests] == [
        ("GET", "user"), ("GET", "comments"), ("POST", "comments"),
        ("PATCH", str(progress.comment_id)), ("PATCH", str(progress.comment_id))]
    result = publish(make_report([make_finding()]), pr, mode="summary", client=client)
    assert result.summary == "updated" and result.summary_comment_id == progress.comment_id
    (final,) = server.summary_comments()
    assert final["body"].startswith(SUMMARY_MARKER + "\n## 🔴")
    assert progress.warnings == []


def test_progress_keeps_the_last_runs_findings_for_resolved(
        server: FakeGitHub, pr: PullRequest, token: str) -> None:
    client = make_client(server.api_url, token)
    fixed = make_finding(title="Fixed since", severity="HIGH")
    publish(make_report([fixed]), pr, mode="summary", client=client)
    ProgressComment(client, pr, total=3).start()
    (comment,) = server.summary_comments()
    assert "reviewing" in comment["body"] and "Fixed since" not in comment["body"].split(
        "<!-- pytest-secreview:state")[0]
    result = publish(make_report([]), pr, mode="summary", client=client)
    assert result.resolved == 1
    assert "~~🟠 HIGH · Fixed since~~" in server.summary_comments()[0]["body"]


def test_a_read_only_token_disables_progress_quietly(
        server: FakeGitHub, pr: PullRequest, token: str) -> None:
    server.read_only = True
    client = make_client(server.api_url, token)
    progress = ProgressComment(client, pr, total=2, min_interval=0.0)
    assert not progress.start()
    assert not progress.enabled and len(progress.warnings) == 1
    assert "Resource not accessible by integration" in progress.warnings[0]
    requests = len(server.requests)
    assert not progress.update(1)
    assert len(server.requests) == requests


def test_repeated_failures_switch_progress_off(
        server: FakeGitHub, pr: PullRequest, token: str) -> None:
    server.fault("5xx", status=500, times=99, method="POST")
    progress = ProgressComment(make_client(server.api_url, token), pr, total=2,
                               min_interval=0.0)
    for done in range(5):
        progress.update(done)
    assert not progress.enabled and len(progress.warnings) == 3
    assert all(token not in w for w in progress.warnings)


def test_no_token_means_no_progress(server: FakeGitHub, pr: PullRequest) -> None:
    progress = ProgressComment(make_client(server.api_url, None), pr, total=2)
    assert not progress.start() and server.requests == []


def test_dry_run_progress_records_one_create_then_edits(
        server: FakeGitHub, pr: PullRequest, tmp_path: Path) -> None:
    client = make_client(server.api_url, None, dry_run_dir=tmp_path)
    progress = ProgressComment(client, pr, total=2, min_interval=0.0)
    progress.start()
    progress.update(1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001-POST.json", "0002-PATCH.json"]
    assert server.requests == []


# -- the comment follows tool calls ---------------------------------------------------------

Build = Callable[..., ReviewRepo]
RULE = textwrap.dedent(
    """\
    ---
    title: Injection
    severity: critical
    grep:
      any: ["execute"]
    ---
    Look for injection.
    """
)


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[ActivityLog]:
    log = activity.install(tmp_path / "activity")
    yield log
    activity.uninstall()


def patches(server: FakeGitHub) -> list[str]:
    return [r.json["body"] for r in server.calls("PATCH")]


def test_tool_calls_update_the_comment_throttled_then_the_summary_replaces_it(
    server: FakeGitHub, token: str, tmp_path: Path, installed: ActivityLog,
) -> None:
    pr = PullRequest(repository=server.repository, number=server.number,
                     api_url=server.api_url, head_sha=server.head_sha, token=token)
    client = make_client(server.api_url, token)
    clock = Clock()
    comment = ProgressComment(client, pr, total=2, min_interval=5.0, clock=clock)
    # The poller sleeps for an hour: every tick below comes from a tool call or the test.
    plugin = ProgressPlugin(comment, tmp_path / "activity", poll_seconds=3600)
    plugin._start(2)
    installed.tool_call()  # within 5 s of the first write: throttled
    assert patches(server) == []
    clock.now += 5
    installed.tool_call()
    assert "0 of 2 items done, 2 tool call(s) so far" in patches(server)[-1]
    clock.now += 1
    installed.tool_call()
    installed.tool_call()
    assert len(patches(server)) == 1
    # A worker's calls arrive through its own file; the controller's poll reads them.
    worker = ActivityLog(tmp_path / "activity")
    worker.tool_call()
    clock.now += 5
    plugin.tick()
    assert "5 tool call(s) so far" in patches(server)[-1]
    plugin.stop()
    installed.tool_call()  # after the session's finish began: nothing more is written
    clock.now += 60
    plugin.tick()
    assert len(patches(server)) == 2
    result = publish(make_report([make_finding()]), pr, mode="summary", client=client)
    assert result.summary == "updated" and result.summary_comment_id == comment.comment_id
    (final,) = server.summary_comments()
    assert "so far" not in final["body"] and "reviewing" not in final["body"]


def test_the_reader_counts_only_whole_lines_and_reads_each_byte_once(tmp_path: Path) -> None:
    folder = tmp_path / "activity"
    reader = ActivityReader(folder)
    assert reader.tool_calls() == 0  # no folder yet
    ActivityLog(folder).tool_call()
    partial = folder / "other.log"
    partial.write_bytes(b"t\nt")  # a write caught half-way
    assert reader.tool_calls() == 2
    with partial.open("ab") as handle:
        handle.write(b"\n")
    assert reader.tool_calls() == 3
    assert reader.tool_calls() == 3


def test_an_unwritable_folder_loses_ticks_not_the_review(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    ActivityLog(blocker / "activity").tool_call()  # no exception


# -- through the plugin: a scripted model that calls three tools ----------------------------


def call(name: str, args: dict[str, object], call_id: str) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call(call_id, name, json.dumps(args))],
        finish_reason="tool_calls"))


@pytest.fixture
def model() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["single", "xdist"])
def test_progress_follows_tool_calls_through_the_plugin(
    pytester: pytest.Pytester, review_repo: Build, model: FakeServer, token: str,
    workers: tuple[str, ...],
) -> None:
    review_repo(rules={"inj": RULE}, base={".gitignore": "secreview-artifacts/\n"},
                pr={"db.py": "cur.execute(q)\n"})
    model.queue(call("read_file", {"path": "db.py"}, "a"),
                call("list_files", {"pattern": "*.py"}, "b"),
                call("search_files", {"pattern": "execute"}, "c"),
                call("report_findings", {"findings": []}, "d"))
    with FakeGitHub(token=token) as github:
        env = {"GITHUB_TOKEN": token, "GITHUB_API_URL": github.api_url,
               "GITHUB_REPOSITORY": github.repository, "SECREVIEW_PR": str(github.number)}
        for key, value in env.items():
            pytester._monkeypatch.setenv(key, value)
        result = pytester.runpytest_subprocess(
            "--secreview", "--base", "main", "-p", "no:cacheprovider",
            "--secreview-rules", "secreview/rules", "--secreview-model", "openai:gpt-4.1",
            "--secreview-api-base", model.url, "--secreview-progress",
            "--secreview-progress-interval", "0", *workers)
        result.assert_outcomes(passed=1)
        bodies = patches(github)
        if not workers:  # in one process each call ticks at once
            for count in (1, 2, 3):
                assert any(f"{count} tool call(s) so far" in b for b in bodies), bodies
        # With xdist the item's end reads the worker's file: all three are counted.
        assert any("1 of 1 items done, 3 tool call(s) so far" in b for b in bodies), bodies
        (final,) = github.summary_comments()
        assert "tool call(s) so far" not in final["body"] and "reviewing" not in final["body"]
