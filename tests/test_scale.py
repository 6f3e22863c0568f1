"""Cost and scale: the evaluation cache, the shared budget and the rate limits, through the
plugin against a local fake model server that counts the calls it receives."""

from __future__ import annotations

import json
import multiprocessing
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.cache import EvaluationCache, cache_key
from pytest_secreview.ratelimit import Throttle
from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_no_findings,
)

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Injection
    severity: high
    grep:
      any: ["execute"]
    ---
    Trace input into queries.
    """
)


def no_findings(request: Recorded) -> Reply:
    return openai_no_findings(
        usage={"prompt_tokens": 1_000_000, "completion_tokens": 0, "total_tokens": 1_000_000})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start(no_findings)


def review(pytester: pytest.Pytester, server: FakeServer, *args: str,
           subprocess: bool = False) -> pytest.RunResult:
    argv = ("--secreview", "--base", "main", "-p", "no:cacheprovider",
            "--secreview-rules", "secreview/rules", "--secreview-model", "openai:test-model",
            "--secreview-api-base", server.url,
            "--secreview-prices", "test-model input=1 output=1", *args)
    return pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)


def files(n: int) -> dict[str, str]:
    return {f"svc/m{i}.py": f"cur.execute(q{i})\n" for i in range(n)}


def test_warm_rerun_makes_no_model_call_and_a_push_reevaluates_one_file(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    ignore = {".gitignore": "cache/\nsecreview-artifacts/\n"}  # keep outputs out of commits
    repo = review_repo(rules={"inj": RULE}, pr={**files(4), **ignore})
    cache = pytester.path / "cache"
    first = review(pytester, server, f"--secreview-cache-dir={cache}")
    first.assert_outcomes(passed=4)
    assert len(server.requests) == 4
    second = review(pytester, server, f"--secreview-cache-dir={cache}")
    second.assert_outcomes(passed=4)
    assert len(server.requests) == 4, "a warm re-run must make no model call"
    assert "cache: 4 item(s) reused a stored model review" in second.stdout.str()
    repo.write("svc/m2.py", "cur.execute(q2 + extra)\n")
    repo.commit("push")
    review(pytester, server, f"--secreview-cache-dir={cache}").assert_outcomes(passed=4)
    assert len(server.requests) == 5
    review(pytester, server, f"--secreview-cache-dir={cache}", "--secreview-no-cache")
    assert len(server.requests) == 9


def test_errors_are_never_cached(pytester: pytest.Pytester, review_repo: Build,
                                 server: FakeServer) -> None:
    review_repo(rules={"inj": RULE}, pr=files(1))
    cache = pytester.path / "cache"
    server.queue(Reply(400, {"error": {"message": "bad request"}}))
    review(pytester, server, f"--secreview-cache-dir={cache}").assert_outcomes(errors=1)
    review(pytester, server, f"--secreview-cache-dir={cache}").assert_outcomes(passed=1)
    assert len(server.requests) == 2


def test_cached_results_say_so_in_json(pytester: pytest.Pytester, review_repo: Build,
                                       server: FakeServer) -> None:
    review_repo(rules={"inj": RULE}, pr=files(1))
    cache, out = pytester.path / "cache", pytester.path / "r.json"
    for _ in range(2):
        review(pytester, server, f"--secreview-cache-dir={cache}", "--json-report",
               f"--json-report-file={out}")
    meta = json.loads(out.read_text())["tests"][0]["metadata"]["secreview"]
    assert meta["cached"] is True and meta["usage"]["cache"] == "hit"
    assert meta["usage"]["model_calls"] == 0 and meta["usage"]["original_cost_usd"] == 1.0


def test_budget_is_shared_across_workers(pytester: pytest.Pytester, review_repo: Build,
                                         server: FakeServer) -> None:
    # Every call costs $1 (1M input tokens at $1/M). A $3 budget over 12 items and 4 workers.
    review_repo(rules={"inj": RULE}, pr=files(12))
    result = review(pytester, server, "-n", "4", "--secreview-max-cost", "3", subprocess=True)
    outcomes = result.parseoutcomes()
    calls = len(server.requests)
    assert 3 <= calls <= 3 + 3, "overshoot is bounded by the calls in flight"
    assert outcomes.get("passed", 0) == calls
    assert outcomes.get("errors", outcomes.get("error", 0)) == 12 - calls
    assert "budget spent" in result.stdout.str()


def test_max_cost_without_a_known_price_is_a_usage_error(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    review_repo(rules={"inj": RULE}, pr=files(1))
    result = pytester.runpytest("--secreview", "--base", "main", "--secreview-rules",
                                "secreview/rules", "--secreview-model", "openai:mystery",
                                "--secreview-api-base", server.url, "--secreview-max-cost", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "needs a price for openai:mystery" in result.stderr.str()


def test_max_concurrency_bounds_requests_in_flight_across_workers(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(request: Recorded) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.3)
        with lock:
            state["now"] -= 1
        return no_findings(request)

    review_repo(rules={"inj": RULE}, pr=files(8))
    with FakeServers() as servers:
        server = servers.start(slow)
        result = review(pytester, server, "-n", "4", "--secreview-max-concurrency", "2",
                        subprocess=True)
    result.assert_outcomes(passed=8)
    assert state["peak"] == 2


def test_throttle_rpm_window_and_shared_pause(tmp_path: Path) -> None:
    clock = {"t": 1000.0}
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock["t"] += seconds

    def make() -> Throttle:
        return Throttle(tmp_path, rpm=3, sleep=sleep, clock=lambda: clock["t"])

    first, second = make(), make()  # two "processes" sharing the directory
    for throttle in (first, second, first):
        with throttle.request():
            pass
    assert slept == []
    with second.request():  # the fourth call in the same minute waits for the window
        pass
    assert sum(slept) == pytest.approx(60.0)
    slept.clear()
    first.pause(7.5)  # a 429 seen by one process
    with second.request():
        pass
    assert sum(slept) >= 7.5


def _put(directory: str, key: str, n: int) -> None:
    cache = EvaluationCache(Path(directory))
    for i in range(50):
        cache.put(key, {"findings": [], "writer": n, "i": i, "pad": "x" * 20_000})


def test_concurrent_writers_of_one_entry_never_leave_a_torn_file(tmp_path: Path) -> None:
    key = cache_key({"same": "entry"})
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_put, args=(str(tmp_path), key, n)) for n in range(4)]
    for proc in procs:
        proc.start()
    reader = EvaluationCache(tmp_path)
    seen = 0
    while any(p.is_alive() for p in procs):
        entry = reader.get(key)
        if entry is not None:
            assert entry["pad"] == "x" * 20_000
            seen += 1
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    final = reader.get(key)
    assert final is not None and final["i"] == 49
    assert not list(tmp_path.rglob("*.tmp"))


def _key(tmp: Path, *, rule: bytes = b"", content: str = "cur.execute(q)\n",
         model: str = "openai:a", session: str = "s1", **reviewer: Any) -> str:
    """The cache key of the one item of a fresh repository built from the arguments."""
    from pytest_secreview.diff.git import load_diff
    from pytest_secreview.evaluation.review import ModelReviewer
    from pytest_secreview.llm.base import LLMSettings
    from pytest_secreview.llm.routing import resolve_model
    from pytest_secreview.rules.matcher import PreparedDiff
    from pytest_secreview.rules.parse import parse_rule
    from tests.gitutil import GitRepo

    repo = GitRepo(tmp / session / model.replace(":", "_") / str(abs(hash((rule, content)))))
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("a.py", content)
    repo.commit("pr")
    diff = load_diff(repo.path, "main")
    parsed = parse_rule(RULE.encode() + rule, "rules/inj.md")
    (target,) = PreparedDiff(diff.files).targets(parsed)
    chat = resolve_model(model, LLMSettings(api_base="http://127.0.0.1:9"), {})
    made = ModelReviewer(repo=repo.path, diff=diff, model=chat, session_secret=session,
                         **reviewer)
    return made.cache_key(target, "\n".join(h.text for h in target.hunks), "")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"rule": b"More instructions.\n"}, id="rule-content"),
        pytest.param({"content": "cur.execute(q2)\n"}, id="file-content-and-hunks"),
        pytest.param({"model": "openai:b"}, id="model"),
        pytest.param({"max_turns": 3}, id="max-turns"),
        pytest.param({"temperature": 0.5}, id="temperature"),
    ],
)
def test_every_input_that_decides_a_review_changes_the_key(tmp_path: Path,
                                                           change: dict[str, Any]) -> None:
    assert _key(tmp_path / "a") != _key(tmp_path / "b", **change)


def test_session_secret_and_checkout_location_do_not_change_the_key(tmp_path: Path) -> None:
    # Same inputs in another directory, another session (another boundary): same key, so a
    # cache carried between CI runs and shards hits.
    assert _key(tmp_path / "a", session="s1") == _key(tmp_path / "b", session="s2")
