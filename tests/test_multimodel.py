"""Several models at once (``--secreview-model`` repeated, ``--secreview-consensus``), through
the plugin against one scripted OpenAI-compatible server that answers by the request's
``model`` field: each model reviews on its own, the consensus decides, and every model's
result and usage is reported."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, Recorded, Reply
from tests.test_plugin_model import RULE, report, sqli

Build = Callable[..., ReviewRepo]
ROOT = Path(__file__).resolve().parents[1]
PR = {"db.py": "cur.execute(f'{q}')\n"}
OUTAGE = Reply(400, {"error": {"message": "model-b is not available to this key"}})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def answer_by_model(server: FakeServer, replies: dict[str, Reply]) -> None:
    """Each model gets its own scripted answer, whatever order the reviews run in."""

    def answer(request: Recorded) -> Reply:
        return replies[request.json["model"]]

    server._responder = answer


def review(pytester: pytest.Pytester, server: FakeServer, models: tuple[str, ...],
           *args: str) -> tuple[pytest.RunResult, dict[str, Any], Path]:
    out = pytester.path / "out"
    argv = ["--secreview", "--base", "main", "-p", "no:cacheprovider",
            "--secreview-rules", "secreview/rules", "--secreview-api-base", server.url,
            f"--secreview-artifacts={out}", "--json-report",
            f"--json-report-file={pytester.path / 'r.json'}"]
    for model in models:
        argv += ["--secreview-model", f"openai:{model}"]
    result = pytester.runpytest(*argv, *args)
    meta = json.loads((pytester.path / "r.json").read_text())["tests"][0]["metadata"]
    return result, meta["secreview"], out


TWO = ("model-a", "model-b")


def test_two_models_disagree_any_fails_all_and_majority_pass(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    answer_by_model(server, {"model-a": report(sqli("db.py")), "model-b": report()})
    review_repo(rules={"creds": RULE}, pr=PR)

    # The default policy is any. The verifier's second look is off: this counts review calls.
    result, meta, out = review(pytester, server, TWO, "--secreview-verify=false")
    result.assert_outcomes(failed=1)
    out_text = result.stdout.str()
    assert "db.py:1  CRITICAL  SQL injection in search" in out_text
    said = ("models disagree at db.py:1: model openai:model-a reported 'SQL injection in "
            "search'; model openai:model-b did not")
    assert said in out_text
    assert said in (out / "report" / "summary.md").read_text()
    summary = json.loads((out / "report" / "summary.json").read_text())
    jsonschema.validate(summary, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    # Each model's own result and usage, apart from the consensus.
    by_model = {a["model"]: a for a in meta["assessments"]}
    assert [f["title"] for f in by_model["openai:model-a"]["findings"]] == [
        "SQL injection in search"]
    assert by_model["openai:model-b"]["findings"] == []
    for assessment in by_model.values():
        assert assessment["usage"]["model_calls"] == 1
        assert assessment["usage"]["input_tokens"] == 1200
        assert assessment["error"] is None
    assert meta["usage"]["model_calls"] == 2 and meta["usage"]["input_tokens"] == 2400
    assert "usage: 2 model call(s)" in out_text
    assert sorted(r.json["model"] for r in server.requests) == list(TWO)

    for policy in ("all", "majority"):  # with two models a majority is both: a tie is not one
        result, meta, _ = review(pytester, server, TWO, f"--secreview-consensus={policy}")
        result.assert_outcomes(passed=1)
        assert meta["findings"] == []
        assert len(meta["assessments"]) == 2
        assert said in result.stdout.str()  # the disagreement is still shown


def test_majority_of_three_counts_a_finding_two_models_report(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    answer_by_model(server, {"model-a": report(sqli("db.py")), "model-b": report(),
                             "model-c": report(sqli("db.py"))})
    review_repo(rules={"creds": RULE}, pr=PR)
    three = (*TWO, "model-c")
    result, meta, _ = review(pytester, server, three, "--secreview-consensus=majority")
    result.assert_outcomes(failed=1)
    assert [f["line"] for f in meta["findings"]] == [1]
    assert meta["usage"]["consensus"] == {"policy": "majority", "models": 3, "required": 2}
    result, _, _ = review(pytester, server, three, "--secreview-consensus=all")
    result.assert_outcomes(passed=1)


def test_one_model_erroring_is_never_a_pass(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    review_repo(rules={"creds": RULE}, pr=PR)
    # The other model found nothing: the item errors (it was not reviewed by every model).
    answer_by_model(server, {"model-a": report(), "model-b": OUTAGE})
    for policy in ("any", "all"):
        result, meta, _ = review(pytester, server, TWO, f"--secreview-consensus={policy}")
        result.assert_outcomes(errors=1)
        assert "model openai:model-b failed" in result.stdout.str()
        by_model = {a["model"]: a for a in meta["assessments"]}
        assert "not available to this key" in by_model["openai:model-b"]["error"]
        assert by_model["openai:model-a"]["usage"]["model_calls"] == 1
        assert "model_calls" in by_model["openai:model-b"]["usage"]  # its usage, on error
    result, meta, _ = review(pytester, server, TWO, "--secreview-on-error=skip", "-rs")
    result.assert_outcomes(skipped=1)

    # What the consensus counted fails the item despite the error (under any, not all).
    answer_by_model(server, {"model-a": report(sqli("db.py")), "model-b": OUTAGE})
    result, meta, _ = review(pytester, server, TWO)
    result.assert_outcomes(failed=1)
    assert [f["title"] for f in meta["findings"]] == ["SQL injection in search"]
    result, _, _ = review(pytester, server, TWO, "--secreview-consensus=all")
    result.assert_outcomes(errors=1)


def test_models_from_the_environment_and_one_model_unchanged(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer_by_model(server, {"model-a": report(sqli("db.py")), "model-b": report()})
    review_repo(rules={"creds": RULE}, pr=PR)
    monkeypatch.setenv("SECREVIEW_MODEL", "openai:model-a,openai:model-b")
    monkeypatch.setenv("SECREVIEW_CONSENSUS", "all")
    result, meta, _ = review(pytester, server, ())
    result.assert_outcomes(passed=1)
    assert [a["model"] for a in meta["assessments"]] == ["openai:model-a", "openai:model-b"]
    monkeypatch.delenv("SECREVIEW_MODEL")
    result, meta, out = review(pytester, server, ("model-a",))
    result.assert_outcomes(failed=1)
    assert "assessments" not in meta and "models disagree" not in result.stdout.str()
    assert "Models disagree" not in (out / "report" / "summary.md").read_text()


def test_bad_consensus_is_a_usage_error(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"creds": RULE}, pr=PR)
    result = pytester.runpytest("--secreview", "--base", "main", "--secreview-model",
                                "openai:model-a", "--secreview-consensus", "most")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "choose one of any, majority, all" in result.stderr.str()


def test_models_from_the_base_revisions_ini_one_per_line(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer
) -> None:
    answer_by_model(server, {"model-a": report(sqli("db.py")), "model-b": report()})
    ini = ("[pytest]\nsecreview_model =\n    openai:model-a\n    openai:model-b\n"
           "secreview_consensus = all\n")
    review_repo(rules={"creds": RULE}, base={"pytest.ini": ini}, pr=PR)
    result, meta, _ = review(pytester, server, ())
    result.assert_outcomes(passed=1)
    assert [a["model"] for a in meta["assessments"]] == ["openai:model-a", "openai:model-b"]
