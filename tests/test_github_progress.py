"""The progress comment: throttled "reviewing N of M", replaced in place by the summary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_secreview.github.comment_state import SUMMARY_MARKER
from pytest_secreview.github.comments import publish
from pytest_secreview.github.context import PullRequest
from pytest_secreview.github.progress import ProgressComment
from tests.fake_github import FakeGitHub, make_client, make_finding, make_report, make_token


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
    assert [r.method for r in server.requests] == ["GET", "POST", "PATCH", "PATCH"]
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
