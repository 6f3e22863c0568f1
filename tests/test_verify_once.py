"""The same finding is checked once per session, and what every item of a file needs is read
once per process (issue 22, items 3 and 9).

A scripted model reports one template injection from the items of two model rules on one
file; the verifier is asked once, in serial and under xdist, and the second item records the
reused verdict as a ``reuse`` change of origin ``cache``. A ``git`` that logs its calls shows
the head file read from git once, however many items check a line against it.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.core.decide import Policy, decide
from pytest_secreview.core.findings import Finding
from pytest_secreview.core.record import DISMISSED, Answer, ItemRecord
from pytest_secreview.core.severity import Severity
from pytest_secreview.triage.verdict_store import VerdictStore
from pytest_secreview.triage.verify import answer_changes
from tests.conftest import ReviewRepo
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)
from tests.test_plugin_model import report
from tests.test_xdist_handoff import _logging_git

Build = Callable[..., ReviewRepo]

#: Two model rules whose grep both select the view: each makes one item of the same file.
XSS = textwrap.dedent("""\
    ---
    title: Cross-site scripting
    severity: medium
    cwe: CWE-79
    category: xss
    grep:
      any: ["render_template_string"]
    ---
    Look for unescaped output.
    """)
TEMPLATES = XSS.replace("Cross-site scripting", "Templates built from input").replace(
    "CWE-79", "CWE-1336").replace("category: xss", "category: template-injection")
VIEW = "from flask import request, render_template_string\n" \
       "page = render_template_string(request.args['t'])\n"
TEMPLATE_INJECTION = {
    "severity": "CRITICAL", "title": "Template injection from the t parameter",
    "path": "app/views.py", "line": 2, "cwe": "CWE-1336", "category": "template-injection",
    "explanation": "t is rendered as a Jinja template", "recommendation": "render a file",
    "exploit_scenario": "t={{config}}",
    "code": "page = render_template_string(request.args['t'])"}
VERIFIER = "You are an independent verifier"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _verdict(verdict: str, reason: str) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("t1", "triage_findings", json.dumps(
            {"verdicts": [{"index": 1, "verdict": verdict, "reason": reason}]}))],
        finish_reason="tool_calls"))


def _scripted(server: FakeServer, verdict: Reply) -> None:
    """Every review reports the template injection; the verifier answers ``verdict``."""
    def answer(request: Recorded) -> Reply:
        system = str(request.json["messages"][0]["content"])
        return verdict if system.startswith(VERIFIER) else report(TEMPLATE_INJECTION)

    server._responder = answer


def _verifier_calls(server: FakeServer) -> int:
    return sum(str(r.json["messages"][0]["content"]).startswith(VERIFIER)
               for r in server.requests)


def _run(pytester: pytest.Pytester, server: FakeServer, *args: str) -> tuple[
        pytest.RunResult, dict[str, Any]]:
    out = pytester.path / "out"
    result = pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "-p", "no:cacheprovider",
        "--secreview-rules", "secreview/rules", "--secreview-model", "openai:gpt-4.1",
        "--secreview-api-base", server.url, "--secreview-no-cache",
        "--secreview-verify=true", f"--secreview-artifacts={out}", *args)
    return result, json.loads((out / "report" / "summary.json").read_text())


@pytest.mark.parametrize("workers", ["0", "2"])
def test_one_finding_reported_by_two_items_is_verified_once(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer, workers: str,
) -> None:
    _scripted(server, _verdict("confirm", "t reaches the template unescaped"))
    review_repo(rules={"xss": XSS, "templates": TEMPLATES}, pr={"app/views.py": VIEW})
    result, summary = _run(pytester, server, "-n", workers)

    result.assert_outcomes(failed=2)  # a confirmed critical fails each item that reported it
    assert _verifier_calls(server) == 1
    changes = [[(c["kind"], c["origin"], c["accepted"]) for c in item["changes"]]
               for item in summary["items"]]
    asked = [("confirm", "verifier", True)]
    reused = [("confirm", "verifier", True), ("reuse", "cache", True)]
    assert sorted(changes) == sorted([asked, reused])
    [reuse] = [c for item in summary["items"] for c in item["changes"] if c["kind"] == "reuse"]
    assert reuse["reason"].startswith("verdict reused from ")
    assert "in this session: no model call" in reuse["reason"]
    [one] = summary["findings"]
    assert (one["triage"], one["reports"]) == ("confirmed", 2)


def test_a_reused_dismissal_of_a_model_finding_counts_like_the_verifiers_own(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    _scripted(server, _verdict("dismiss", "t is a constant set by the server"))
    review_repo(rules={"xss": XSS, "templates": TEMPLATES}, pr={"app/views.py": VIEW})
    result, summary = _run(pytester, server, "-n", "0")

    assert _verifier_calls(server) == 1
    result.assert_outcomes(passed=2)
    assert all(f["triage"] == "dismissed" for item in summary["items"]
               for f in item["findings"])


def _pattern_finding(**fields: Any) -> Finding:
    return Finding(rule="ssti", severity=Severity.HIGH, title="request rendered as a template",
                   path="app/views.py", line=2, source="pattern", fingerprint="f1", **fields)


def test_a_reused_dismissal_never_lowers_a_deterministic_finding_at_the_threshold(
    tmp_path: Path,
) -> None:
    """A dismissal stored by one item and reused by another is a change of the triage's
    origin next to a ``reuse`` of the cache: refused at the threshold like a fresh one."""
    finding = _pattern_finding()
    store = VerdictStore(tmp_path / "verdicts")
    keys = {0: "k"}

    def dismiss(asked: tuple[Finding, ...]) -> tuple[dict[str, Answer], dict[str, Any]]:
        return {f.fingerprint: Answer(DISMISSED, "only a greeting") for f in asked}, {"x": 1}

    store.reuse_or_ask(keys, (finding,), dismiss, asked_by="ssti on app/views.py")

    def never(asked: tuple[Finding, ...]) -> tuple[dict[str, Answer], dict[str, Any]]:
        assert not asked, "a stored answer is asked again"
        return {}, {}

    answers, usage = store.reuse_or_ask(keys, (finding,), never, asked_by="xss on app/views.py")
    assert usage == {"reused_verdicts": 1}
    changes = answer_changes((finding,), answers)
    assert [(c.kind.value, c.origin.value) for c in changes] == [
        ("dismiss", "model"), ("reuse", "cache")]
    assert "ssti on app/views.py" in changes[1].reason  # the item that asked, not this one
    record = ItemRecord(nodeid="n", rule="ssti", path="app/views.py", findings=(finding,),
                        changes=changes)
    verdict = decide(record, Policy(fail_on=Severity.HIGH))
    [kept] = verdict.failing
    assert kept.triage == "overruled"
    assert not any(r.change.kind.value == "reuse" for r in verdict.refused)  # lowers nothing


def test_the_head_file_is_read_from_git_once_per_process(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _scripted(server, _verdict("confirm", "t reaches the template unescaped"))
    review_repo(rules={"xss": XSS, "templates": TEMPLATES}, pr={"app/views.py": VIEW})
    blob = pytester.run("git", "rev-parse", "HEAD:app/views.py").outlines[0].strip()
    log = tmp_path / "git.log"
    shim = _logging_git(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    result, _summary = _run(pytester, server, "-n", "0")

    result.assert_outcomes(failed=2)
    reads = [line for line in log.read_text().splitlines()
             if " cat-file blob " in f" {line} " and blob in line]
    # Two items check the cited line against it and the verifier shows it whole: one read.
    assert len(reads) == 1, reads


def _markers(server: FakeServer) -> set[tuple[str, str]]:
    """(conversation kind, untrusted-data marker) of every request the model received."""
    found = set()
    for request in server.requests:
        system = str(request.json["messages"][0]["content"])
        for marker in re.findall(r"<<<UNTRUSTED ([0-9a-f]+)", system):
            found.add(("verifier" if system.startswith(VERIFIER) else "review", marker))
    return found


def test_the_untrusted_marker_is_the_sessions_secret_not_the_pull_requests(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    """Every conversation of a session (reviews and the verifier) shares one marker, derived
    from the session's random secret: the same pull request reviewed again gets another,
    so its content cannot be written to close the marker."""
    _scripted(server, _verdict("confirm", "t reaches the template unescaped"))
    review_repo(rules={"xss": XSS, "templates": TEMPLATES}, pr={"app/views.py": VIEW})
    sessions = []
    for _ in range(2):
        server.requests.clear()
        _run(pytester, server, "-n", "2")
        markers = _markers(server)
        assert {kind for kind, _ in markers} == {"review", "verifier"}
        assert len({marker for _, marker in markers}) == 1
        sessions.append(markers.pop()[1])
    assert sessions[0] != sessions[1]
    assert all(marker not in VIEW for marker in sessions)
