"""The GitHub REST client against a real fake server on 127.0.0.1: headers, pagination,
rate limits (waits recorded, never slept), retries, errors without the token, dry runs."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pytest_secreview.github.client import GitHubClient, GitHubError, GitHubRateLimitError
from tests.fake_github import NOW, FakeGitHub, Sleeps, make_client, make_token

COMMENTS = "/repos/octo/repo/issues/7/comments"


@pytest.fixture
def token() -> str:
    return make_token()


@pytest.fixture
def server(token: str) -> Iterator[FakeGitHub]:
    with FakeGitHub(token=token) as fake:
        yield fake


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def client(server: FakeGitHub, token: str, sleeps: Sleeps) -> GitHubClient:
    return make_client(server.api_url, token, sleeps)


def test_every_request_carries_the_documented_headers(
        client: GitHubClient, server: FakeGitHub, token: str) -> None:
    client.post(COMMENTS, {"body": "hi"})
    headers = server.requests[0].headers
    assert headers["authorization"] == f"Bearer {token}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["user-agent"].startswith("pytest-secreview/")
    assert headers["content-type"] == "application/json"


def test_a_bad_token_is_a_401_error_that_does_not_show_it(server: FakeGitHub) -> None:
    wrong = make_token()[::-1]
    client = make_client(server.api_url, wrong)
    with pytest.raises(GitHubError) as caught:
        client.get(COMMENTS)
    assert caught.value.status == 401
    assert "Bad credentials" in str(caught.value) and "invalid or expired" in str(caught.value)
    assert wrong not in str(caught.value) and wrong not in repr(client)
    assert repr(client) == f"GitHubClient({server.api_url!r}, token=set)"


def test_pagination_follows_link_headers_100_per_page(
        client: GitHubClient, server: FakeGitHub) -> None:
    for i in range(250):
        server.add_issue_comment(f"comment {i}")
    listing = client.paginate(COMMENTS)
    assert listing.complete
    assert [c["body"] for c in listing.items] == [f"comment {i}" for i in range(250)]
    pages = [(r.query.get("per_page"), r.query.get("page", "1")) for r in server.requests]
    assert pages == [("100", "1"), ("100", "2"), ("100", "3")]


def test_pagination_is_bounded(server: FakeGitHub, token: str) -> None:
    for i in range(250):
        server.add_issue_comment(f"comment {i}")
    client = make_client(server.api_url, token, max_pages=2)
    listing = client.paginate(COMMENTS)
    assert not listing.complete and len(listing.items) == 200
    assert len(server.requests) == 2


def test_enterprise_server_api_prefix(token: str) -> None:
    with FakeGitHub(token=token, prefix="/api/v3") as ghe:
        for i in range(120):
            ghe.add_issue_comment(f"c{i}")
        client = make_client(ghe.api_url + "/", token)
        assert client.api_url.endswith("/api/v3")
        assert len(client.paginate(COMMENTS).items) == 120
        assert [r.path for r in ghe.requests] == ["/api/v3" + COMMENTS] * 2


def test_a_next_link_to_another_host_is_not_followed(token: str) -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json=[{"id": 1}],
                              headers={"link": '<https://elsewhere.example/steal?page=2>; '
                                               'rel="next"'})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    client = GitHubClient("https://api.github.com", token, http=http)
    listing = client.paginate(COMMENTS)
    assert not listing.complete and listing.items == [{"id": 1}]
    assert len(seen) == 1


@pytest.mark.parametrize(("kind", "options", "expected_wait"), [
    pytest.param("primary", {"reset_at": int(NOW) + 30}, 31.0, id="primary-403"),
    pytest.param("primary", {"reset_at": int(NOW) + 5, "status": 429}, 6.0, id="primary-429"),
    pytest.param("primary", {"reset_at": int(NOW) - 10}, 1.0, id="primary-already-reset"),
    pytest.param("secondary", {"retry_after": 7}, 7.0, id="secondary-retry-after"),
    pytest.param("secondary", {"retry_after": 3, "status": 429}, 3.0, id="secondary-429"),
    pytest.param("secondary-message", {}, 60.0, id="secondary-message-only"),
])
def test_rate_limits_are_waited_out(client: GitHubClient, server: FakeGitHub, sleeps: Sleeps,
                                    kind: str, options: dict[str, int],
                                    expected_wait: float) -> None:
    server.fault(kind, **options)
    assert client.post(COMMENTS, {"body": "after the wait"})["body"] == "after the wait"
    assert sleeps == [expected_wait]
    assert len(server.issue_comments) == 1
    assert client.waited == expected_wait


def test_a_rate_limit_beyond_the_budget_fails_at_once(
        client: GitHubClient, server: FakeGitHub, sleeps: Sleeps, token: str) -> None:
    server.fault("primary", reset_at=int(NOW) + 3600)
    with pytest.raises(GitHubRateLimitError) as caught:
        client.get(COMMENTS)
    assert sleeps == []
    assert len(server.requests) == 1
    assert "waiting budget" in str(caught.value) and caught.value.status == 403
    assert token not in str(caught.value)


def test_the_wait_budget_is_shared_by_every_call(server: FakeGitHub, token: str,
                                                 sleeps: Sleeps) -> None:
    client = make_client(server.api_url, token, sleeps, retry={"max_wait": 100.0})
    server.fault("secondary", retry_after=60)
    client.get(COMMENTS)
    server.fault("secondary", retry_after=60)
    with pytest.raises(GitHubRateLimitError):
        client.get(COMMENTS)
    assert sleeps == [60.0]


def test_server_errors_are_retried_with_backoff_for_reads(
        client: GitHubClient, server: FakeGitHub, sleeps: Sleeps) -> None:
    server.fault("5xx", status=502, times=2)
    assert client.get(COMMENTS) == []
    assert sleeps == [0.5, 1.0]  # jitter 0.5 of 1s, then of 2s


def test_server_errors_give_up_after_max_attempts(
        client: GitHubClient, server: FakeGitHub, sleeps: Sleeps) -> None:
    server.fault("5xx", status=503, times=99)
    with pytest.raises(GitHubError) as caught:
        client.get(COMMENTS)
    assert caught.value.status == 503 and len(server.requests) == 4 and len(sleeps) == 3


def test_a_post_is_not_repeated_after_a_server_error(
        client: GitHubClient, server: FakeGitHub, sleeps: Sleeps) -> None:
    server.fault("5xx", status=502)
    with pytest.raises(GitHubError) as caught:
        client.post(COMMENTS, {"body": "once"})
    assert caught.value.status == 502
    assert len(server.calls("POST")) == 1 and sleeps == []


def test_the_token_never_appears_even_when_the_server_echoes_it(
        client: GitHubClient, server: FakeGitHub, token: str,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.fault("echo-auth")
    with pytest.raises(GitHubError) as caught:
        client.get(COMMENTS)
    error = caught.value
    for text in (str(error), repr(error), error.github_message, repr(client), caplog.text):
        assert token not in text
    assert "[REDACTED]" in str(error) and error.status == 400


def test_an_unreachable_server_is_an_error_without_status(token: str, sleeps: Sleeps) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = make_client(f"http://127.0.0.1:{port}", token, sleeps)
    with pytest.raises(GitHubError) as caught:
        client.post(COMMENTS, {"body": "x"})
    assert caught.value.status is None and "could not reach" in str(caught.value)
    assert token not in str(caught.value)
    assert len(sleeps) == 3  # a connection that never opened is safe to retry, even a POST


def test_error_messages_are_trimmed(client: GitHubClient, server: FakeGitHub) -> None:
    with pytest.raises(GitHubError) as caught:
        client.post(COMMENTS, {"body": "x", "extra": "y" * 5000})
    error = caught.value
    assert error.status == 422 and error.errors == ('"extra" is not a permitted key.',)
    assert len(str(error)) < 700


def test_dry_run_without_token_sends_nothing(server: FakeGitHub, tmp_path: Path) -> None:
    client = make_client(server.api_url, None, dry_run_dir=tmp_path / "requests")
    assert client.paginate(COMMENTS).items == []
    assert client.post(COMMENTS, {"body": "hello"}) == {"id": 0, "dry_run": True}
    client.patch("/repos/octo/repo/issues/comments/5", {"body": "edited"})
    assert server.requests == []
    files = sorted(p.name for p in (tmp_path / "requests").iterdir())
    assert files == ["0001-POST.json", "0002-PATCH.json"]
    first = json.loads((tmp_path / "requests" / "0001-POST.json").read_text())
    assert first == {
        "method": "POST", "url": server.api_url + COMMENTS, "json": {"body": "hello"},
        "headers": {"Accept": "application/vnd.github+json",
                    "Content-Type": "application/json",
                    "User-Agent": first["headers"]["User-Agent"],
                    "X-GitHub-Api-Version": "2022-11-28"},
    }


def test_dry_run_with_a_token_reads_but_never_writes(
        server: FakeGitHub, token: str, tmp_path: Path) -> None:
    server.add_issue_comment("existing")
    client = make_client(server.api_url, token, dry_run_dir=tmp_path)
    assert [c["body"] for c in client.paginate(COMMENTS).items] == ["existing"]
    client.post(COMMENTS, {"body": "new"})
    again = make_client(server.api_url, token, dry_run_dir=tmp_path)
    again.post(COMMENTS, {"body": "newer"})
    assert [r.method for r in server.requests] == ["GET"]
    assert len(server.issue_comments) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001-POST.json", "0002-POST.json"]
    for path in tmp_path.iterdir():
        assert token not in path.read_text()


@pytest.mark.parametrize("api_url", ["ftp://x", "api.github.com", ""])
def test_api_url_must_be_http(api_url: str) -> None:
    with pytest.raises(GitHubError, match="http"):
        GitHubClient(api_url, "t")
