"""``secreview bench``: per-rule precision, recall and F1 over a labelled corpus, in-process
through ``main([...])``, on real git repositories (and a scripted model server)."""

from __future__ import annotations

import json
import os
import re
import socket
import textwrap
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.bench import SHIPPED_CORPUS, load_corpus
from pytest_secreview.bench.trees import FAKES, fake
from pytest_secreview.cli.bench import main
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)
from tests.scripts import load_script

# A team's rule: the pattern catches a direct call of dangerous(), not one through an alias.
RULE = textwrap.dedent(
    """\
    ---
    title: Dangerous call
    severity: high
    cwe: CWE-77
    grep:
      any: ['danger']
    detect:
      - pattern: '\\bdangerous\\('
        message: dangerous() called
    ---
    Report calls of dangerous() with data from outside, also through an alias.
    """
)


def _case(root: Path, name: str, yaml_text: str, head: dict[str, str] | None = None,
          base: dict[str, str] | None = None, patch: str | None = None) -> Path:
    case = root / name
    case.mkdir(parents=True)
    (case / "case.yaml").write_text(textwrap.dedent(yaml_text))
    for tree, files in (("head", head), ("base", base)):
        for rel, text in (files or {}).items():
            target = case / tree / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if patch is not None:
        (case / "change.patch").write_text(patch)
    return case


def _expect(path: str, first: int, last: int) -> str:
    return (f"expect: [{{rule: dangerous-call, path: {path}, lines: [{first}, {last}], "
            "cwe: CWE-77}]\n")


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """A tiny corpus with known outcomes under the team rule: one case the pattern catches
    (TP), one it misses (FN), one clean case it flags by construction (FP)."""
    corpus = tmp_path / "corpus"
    _case(corpus, "caught", "description: direct call\nvulnerable: true\n"
          + _expect("caught.py", 2, 2),
          head={"caught.py": "import sys\ndangerous(sys.argv[1])\n"})
    _case(corpus, "missed", "description: call through an alias\nvulnerable: true\n"
          + _expect("missed.py", 3, 3),
          head={"missed.py": "import sys\nrun = dangerous\nrun(sys.argv[1])\n"})
    _case(corpus, "clean", "description: constant argument\nvulnerable: false\nexpect: []\n",
          head={"clean.py": "dangerous('status')\n"})
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "dangerous-call.md").write_text(RULE)
    return corpus, rules


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0
            ) -> dict[str, Any]:
    got, out, err = bench(capsys, *argv, "--json")
    assert got == status, err
    data: dict[str, Any] = json.loads(out)
    return data


def rule_row(data: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(r for r in data["rules"] if r["rule"] == rule)


def test_tiny_corpus_counts_one_hit_one_miss_one_false_alarm(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    corpus, rules = team
    status, out, _ = bench(capsys, str(corpus), "--no-bundled", "--rules", str(rules),
                           "--details")
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("dangerous-call"))
    assert row.split() == ["dangerous-call", "2", "1", "1", "1", "50.0%", "50.0%", "0.500",
                           "2", "1.00", "1.00"]
    assert "secreview bench: 3 case(s)" in out
    assert "cost: 0 model call(s), 0 input tokens, 0 output tokens, $0.0000" in out
    assert "missed   missed: dangerous-call missed.py:3-3" in out
    assert "false +  clean: dangerous-call clean.py:1" in out


def test_json_document_shape_and_figures(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    corpus, rules = team
    data = as_json(capsys, str(corpus), "--no-bundled", "--rules", str(rules))
    assert set(data) == {"corpus", "cases", "model", "rules", "overall", "cost", "results",
                         "complete", "min_f1", "passed"}
    assert data["complete"] is True
    assert (data["cases"], data["model"], data["min_f1"], data["passed"]) == (3, None, None,
                                                                              None)
    overall = data["overall"]
    assert set(overall) == {"rule", "expected", "tp", "fp", "fn", "precision", "recall", "f1",
                            "reported", "matched", "reports_per_hit", "findings_per_problem",
                            "cost"}
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1, 1, 1)
    assert overall["precision"] == overall["recall"] == overall["f1"] == 0.5
    assert data["cost"] == {"model_calls": 0, "failed_calls": 0, "input_tokens": 0,
                            "output_tokens": 0, "cost_usd": 0.0}
    results = {r["id"]: r for r in data["results"]}
    assert results["caught"]["tp"] == [{"rule": "dangerous-call", "path": "caught.py",
                                        "lines": [2, 2], "cwe": "CWE-77", "reports": 1}]
    assert results["missed"]["fn"][0]["path"] == "missed.py"
    assert results["clean"]["fp"] == [{"rule": "dangerous-call", "cwe": "CWE-77",
                                       "path": "clean.py", "line": 1}]


def test_case_glob_rule_filter_and_min_f1(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    corpus, rules = team
    base = (str(corpus), "--no-bundled", "--rules", str(rules))
    only = as_json(capsys, *base, "--case", "caught", "--case", "cl*", "--model", "none")
    assert (only["cases"], only["model"]) == (2, None)
    assert (only["overall"]["tp"], only["overall"]["fp"], only["overall"]["fn"]) == (1, 1, 0)
    assert bench(capsys, *base, "--min-f1", "0.5")[0] == 0
    status, out, _ = bench(capsys, *base, "--min-f1", "0.6")
    assert status == 1 and "below --min-f1 0.6" in out
    assert as_json(capsys, *base, "--min-f1", "0.6", status=1)["passed"] is False
    # The bundled pack alongside: a rule that reports nothing here scores nothing.
    both = as_json(capsys, str(corpus), "--rules", str(rules), "--rule", "dangerous-call")
    assert [r["rule"] for r in both["rules"]] == ["dangerous-call"]
    status, _, err = bench(capsys, *base, "--rule", "no-such-rule")
    assert status == 2 and "no-such-rule" in err and "dangerous-call" in err


def test_patch_case_and_filled_placeholder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    _case(corpus, "key", """\
        description: an AWS key id committed, written as a placeholder
        vulnerable: true
        fill: {PLACEHOLDER_KEY: aws_access_key_id}
        patch: change.patch
        expect: [{rule: hardcoded-secrets, path: conf.py, lines: [2, 2], cwe: CWE-798}]
        """, base={"conf.py": "REGION = 'eu-west-1'\n"}, patch=textwrap.dedent("""\
        diff --git a/conf.py b/conf.py
        --- a/conf.py
        +++ b/conf.py
        @@ -1 +1,2 @@
         REGION = 'eu-west-1'
        +KEY_ID = 'PLACEHOLDER_KEY'
        """))
    data = as_json(capsys, str(corpus), "--rule", "hardcoded-secrets")
    assert (data["overall"]["tp"], data["overall"]["fp"], data["overall"]["fn"]) == (1, 0, 0)
    (case,) = load_corpus(corpus)
    head = case.files("head")["conf.py"].decode()
    assert head == f"REGION = 'eu-west-1'\nKEY_ID = '{fake('aws_access_key_id')}'\n"


def test_shipped_corpus_figures_follow_from_its_labels(
    capsys: pytest.CaptureFixture[str]
) -> None:
    cases = load_corpus(SHIPPED_CORPUS)
    labelled = Counter(e.rule for c in cases for e in c.expect)
    assert len(cases) >= 20 and sum(not c.vulnerable for c in cases) >= 8
    assert {"sql-injection", "command-injection", "path-traversal", "hardcoded-secrets",
            "tls-verification-disabled", "missing-authorization"} <= set(labelled)
    assert any(c.patch is not None for c in cases) and any(c.fill for c in cases)
    data = as_json(capsys)
    assert data["cases"] == len(cases)
    assert data["overall"]["expected"] == sum(labelled.values())
    for rule, count in labelled.items():
        row = rule_row(data, rule)
        assert row["tp"] + row["fn"] == count == row["expected"], rule
    # Every expected finding is matched or missed in the case that lists it, nowhere else.
    by_case = {c.id: len(c.expect) for c in cases}
    for result in data["results"]:
        assert len(result["tp"]) + len(result["fn"]) == by_case[result["id"]]
    # The patterns find most of what the corpus plants (the corpus is not all misses).
    assert data["overall"]["tp"] > sum(labelled.values()) // 2
    status, out, _ = bench(capsys)
    assert status == 0
    for rule in labelled:
        assert re.search(rf"^{re.escape(rule)}\s+{labelled[rule]}\s", out, re.M), rule


def test_shipped_corpus_holds_no_credential_shaped_literal() -> None:
    shapes = re.compile(rb"(AKIA|ASIA)[A-Z0-9]{16}|gh[pousr]_[A-Za-z0-9]{36}|sk_live_")
    values = [fake(kind).encode() for kind in FAKES]
    for path in SHIPPED_CORPUS.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not shapes.search(data), path
            assert not any(v in data for v in values), path


@pytest.mark.parametrize(("yaml_text", "needles"), [
    ("description: d\nvulnerable: true\nexpect: [{rule: r, path: a.py, lines: [1, 1], "
     "cwe: CWE-1, also: [Bad Kind]}]\n",
     ["'expect.0.also'", "'Bad Kind'", "neither a rule id nor CWE-<number>"]),
    ("description: d\nvulnerable: false\nseverity: high\n",
     ["case.yaml", "'severity'", "'high'", "remove it"]),
    ("description: d\nvulnerable: false\nfill: {AWS_KEY: aws_key}\n",
     ["'fill'", "aws_key", "known kinds", "aws_access_key_id"]),
    ("description: d\nvulnerable: false\nfill: {NEVER_USED: password}\n",
     ["'fill.NEVER_USED'", "no file of the case contains"]),
    ("description: d\nvulnerable: false\npatch: ../x.patch\n",
     ["'patch'", "../x.patch", "change.patch"]),
])
def test_bad_case_yaml_is_exit_2_with_file_key_value_and_fix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, yaml_text: str, needles: list[str]
) -> None:
    _case(tmp_path / "corpus", "bad", yaml_text, head={"a.py": "x = 1\n"})
    status, out, err = bench(capsys, str(tmp_path / "corpus"))
    assert status == 2 and out == ""
    assert str(tmp_path / "corpus" / "bad" / "case.yaml") in err
    for needle in needles:
        assert needle in err


def test_patch_that_does_not_apply_and_bad_options_are_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    _case(corpus, "stale", "description: d\nvulnerable: false\npatch: change.patch\n",
          base={"a.py": "x = 1\n"},
          patch="--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-y = 2\n+y = 3\n")
    status, _, err = bench(capsys, str(corpus))
    assert status == 2
    assert "'patch'" in err and "does not apply to base/" in err and "git diff" in err
    status, _, err = bench(capsys, str(corpus), "--rules", str(tmp_path / "nope"))
    assert status == 2 and "no such file or directory" in err
    assert bench(capsys, str(tmp_path / "empty"))[0] == 2
    status, _, err = bench(capsys, "--case", "no-such-case-*")
    assert status == 2 and "no-such-case-*" in err
    assert bench(capsys, "--min-f1", "2")[0] == 2


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


def _report(*findings: dict[str, object]) -> Reply:
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings",
                                     json.dumps({"findings": list(findings)}))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280}))


def _is_finding_check(request: Recorded) -> bool:
    """The model's check of pattern findings (triage_findings), not a review."""
    return any(t["function"]["name"] == "triage_findings" for t in request.json.get("tools", []))


def _confirm_first() -> Reply:
    verdicts = [{"index": 1, "verdict": "confirm", "reason": "the call is reachable"}]
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "triage_findings", json.dumps({"verdicts": verdicts}))],
        finish_reason="tool_calls",
        usage={"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280}))


def test_model_finding_counts_and_its_cost_is_reported(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path], server: FakeServer
) -> None:
    def answer(request: Recorded) -> Reply:
        if _is_finding_check(request):
            return _confirm_first()
        task = request.json["messages"][1]["content"]
        path = task.split("File: `", 1)[1].split("`", 1)[0]
        if path != "missed.py":
            return _report()
        return _report({"severity": "HIGH", "title": "dangerous() through an alias",
                        "path": "missed.py", "line": 3, "explanation": "argv reaches it",
                        "recommendation": "validate the argument"})

    server._responder = answer
    corpus, rules = team
    data = as_json(capsys, str(corpus), "--no-bundled", "--rules", str(rules),
                   "--model", "openai:gpt-4.1", "--api-base", server.url)
    calls = len(server.requests)
    checks = sum(1 for r in server.requests if _is_finding_check(r))
    # One review per case (one changed file, one rule each), and one check of each case's
    # pattern finding (the model confirms or dismisses what the patterns found).
    assert calls - checks == 3 and checks == 2
    assert data["model"] == "openai:gpt-4.1"
    overall = data["overall"]
    # The model finds what the pattern missed; the pattern's false alarm stays.
    assert (overall["tp"], overall["fp"], overall["fn"]) == (2, 1, 0)
    cost = data["cost"]
    assert (cost["model_calls"], cost["input_tokens"], cost["output_tokens"]) == (
        calls, 1200 * calls, 80 * calls)
    assert cost["cost_usd"] > 0
    assert rule_row(data, "dangerous-call")["cost"] == cost
    status, out, _ = bench(capsys, str(corpus), "--no-bundled", "--rules", str(rules),
                           "--model", "openai:gpt-4.1", "--api-base", server.url)
    assert status == 0
    assert f"cost: {calls} model call(s), {1200 * calls} input tokens" in out
    assert "in tokens" in out.splitlines()[2]


def test_provider_failure_is_listed_not_hidden(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path], server: FakeServer
) -> None:
    server._responder = lambda request: Reply(400, {"error": {"message": "no such model"}})
    corpus, rules = team
    argv = (str(corpus), "--no-bundled", "--rules", str(rules), "--case", "missed",
            "--model", "openai:gpt-4.1", "--api-base", server.url)
    data = as_json(capsys, *argv)
    (result,) = data["results"]
    assert len(result["errors"]) == 1 and "no such model" in result["errors"][0]
    status, out, _ = bench(capsys, *argv)
    assert status == 0 and "1 item(s) could not be reviewed" in out


def test_keep_leaves_each_case_repository_for_inspection(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, rules = team
    keep = tmp_path / "kept"
    argv = (str(corpus), "--no-bundled", "--rules", str(rules), "--keep", str(keep))
    assert bench(capsys, *argv)[0] == 0
    assert (keep / "caught" / "repo" / "caught.py").read_text() == (
        "import sys\ndangerous(sys.argv[1])\n")
    # Without a model there is no pytest review: the repository only, as the README says.
    assert [p.name for p in (keep / "caught").iterdir()] == ["repo"]
    status, _, err = bench(capsys, *argv)
    assert status == 2 and "already exists" in err


def test_matching_by_cwe_and_duplicates() -> None:
    from pytest_secreview.bench import Reported
    from pytest_secreview.bench.metrics import match_case, score_rules

    (case,) = [c for c in load_corpus(SHIPPED_CORPUS) if c.id == "sql-fstring-execute"]
    (expected,) = case.expect
    line = expected.lines[0]
    findings = [
        Reported("my-sqli", "cwe-89", expected.path, line),  # another rule, same CWE: a hit
        Reported("sql-injection", "CWE-89", expected.path, line),
        Reported("sql-injection", "CWE-89", expected.path, line),  # the same report twice
        Reported("sql-injection", "CWE-89", expected.path, line + 1),  # off the sink: FP
        Reported("sql-injection", "CWE-89", "app/db.py", line),  # wrong file: FP
    ]
    outcome = match_case(case, findings)
    assert outcome.tp == (expected,) and outcome.fn == ()
    assert [(f.path, f.line) for f in outcome.fp] == [("app/db.py", line),
                                                      (expected.path, line + 1)]
    rules, overall = score_rules([outcome])
    # my-sqli reported (its hit is credited to the expectation's rule), so it has a row.
    assert [(r.rule, r.tp, r.fp, r.fn) for r in rules] == [("my-sqli", 0, 0, 0),
                                                           ("sql-injection", 1, 2, 0)]
    assert overall.precision == pytest.approx(1 / 3) and overall.recall == 1.0
    # Duplication counts the reports as made: three findings on the one problem found.
    assert outcome.reports == (3,) and outcome.reported == 5
    assert (overall.matched, overall.reported, overall.reports_per_hit) == (3, 5, 3.0)
    only = match_case(case, findings, rules={"my-sqli"})
    assert (only.tp, only.fn, only.fp) == ((), (), ())


def test_one_problem_reported_twice_is_measured_as_duplication(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    corpus, rules = team
    # A second rule of the same weakness reports the same line: one problem, two findings.
    (rules / "dangerous-call-again.md").write_text(RULE.replace("Dangerous call",
                                                                "Dangerous call again"))
    argv = (str(corpus), "--no-bundled", "--rules", str(rules))
    data = as_json(capsys, *argv)
    overall = data["overall"]
    # Precision and recall count the problem once (the clean case's two reports are two
    # false positives, one per rule); the duplication figures show both reports.
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1, 2, 1)
    assert (overall["matched"], overall["reported"]) == (2, 4)
    assert overall["reports_per_hit"] == 2.0 and overall["findings_per_problem"] == 2.0
    own = rule_row(data, "dangerous-call")
    assert (own["matched"], own["reported"], own["reports_per_hit"]) == (2, 2, 2.0)
    again = rule_row(data, "dangerous-call-again")
    # Its report on the caught line matched the labelled problem (same CWE): no false positive.
    assert (again["tp"], again["fp"], again["reported"], again["expected"]) == (0, 1, 2, 0)
    assert again["reports_per_hit"] is None and again["findings_per_problem"] is None
    results = {r["id"]: r for r in data["results"]}
    assert results["caught"]["tp"][0]["reports"] == 2
    assert (results["caught"]["reported"], results["caught"]["findings_per_problem"]) == (2, 2.0)
    assert (results["clean"]["reported"], results["clean"]["findings_per_problem"]) == (2, None)
    status, out, _ = bench(capsys, *argv, "--details")
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("overall"))
    assert row.split()[-3:] == ["4", "2.00", "2.00"]
    assert "2 times  caught: dangerous-call caught.py:2-2" in out


def test_also_names_other_rules_and_cwes_of_the_same_problem(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    corpus, rules = team
    # The general review reports the caught line under its own rule and CWE.
    general = RULE.replace("Dangerous call", "General").replace("CWE-77", "CWE-693")
    (rules / "dangerous-call.md").unlink()
    (rules / "general.md").write_text(general)
    argv = (str(corpus), "--no-bundled", "--rules", str(rules), "--case", "caught")
    assert as_json(capsys, *argv)["overall"]["tp"] == 0  # another rule, another CWE: a miss
    case_yaml = corpus / "caught" / "case.yaml"
    case_yaml.write_text(case_yaml.read_text().replace("cwe: CWE-77}", "cwe: CWE-77, "
                                                       "also: [general]}"))
    data = as_json(capsys, *argv)
    assert (data["overall"]["tp"], data["overall"]["fp"]) == (1, 0)


def test_longer_placeholder_is_filled_first() -> None:
    from pytest_secreview.bench.trees import fill

    filled = fill(b"a = 'SECRET_KEY' b = 'SECRET_KEY_ID'",
                  {"SECRET_KEY": "password", "SECRET_KEY_ID": "aws_access_key_id"})
    assert filled.decode() == (f"a = '{fake('password')}' "
                               f"b = '{fake('aws_access_key_id')}'")


def test_model_bench_in_github_actions_writes_and_posts_nothing(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path], server: FakeServer,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server._responder = lambda r: _confirm_first() if _is_finding_check(r) else _report()
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("SECREVIEW_COMMENT", "all")
    corpus, rules = team
    status, out, _ = bench(capsys, str(corpus), "--no-bundled", "--rules", str(rules),
                           "--case", "caught", "--model", "openai:gpt-4.1",
                           "--api-base", server.url)
    assert status == 0 and "dangerous-call" in out
    assert not summary.exists()
    assert {r.path for r in server.requests} == {"/v1/chat/completions"}
    assert os.environ["GITHUB_ACTIONS"] == "true"  # restored afterwards


def test_the_secreview_command_dispatches_bench_and_report(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from pytest_secreview import cli

    assert "bench" in cli.usage() and "report" in cli.usage()
    assert cli.main(["bench", "--json", "--model", "none", "--case", "clean-*"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overall"]["fp"] == 0
    assert cli.main(["report", "--merge", str(tmp_path)]) == 2


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on: every connection is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_unreviewed_items_fail_min_f1_and_unreached_calls_are_not_model_calls(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path]
) -> None:
    # The model is unreachable: the pattern alone scores F1 1.000 on this case, which is
    # not a measurement of the review that was asked for.
    corpus, rules = team
    argv = (str(corpus), "--no-bundled", "--rules", str(rules), "--case", "caught",
            "--model", "openai:gpt-4.1", "--api-base", f"http://127.0.0.1:{_closed_port()}",
            "--min-f1", "0.9")
    status, out, _ = bench(capsys, *argv)
    assert status == 1, out
    assert "INCOMPLETE" in out.splitlines()[0]
    assert "could not be reviewed" in out
    assert ("--min-f1 0.9 fails: 1 item(s) could not be reviewed, so the figures are not a "
            "measurement of the whole review") in out
    assert "cost: 0 model call(s) (1 failed before reaching the model)" in out
    data = as_json(capsys, *argv, status=1)
    assert (data["passed"], data["complete"]) == (False, False)
    assert data["overall"]["f1"] == 1.0
    assert data["cost"]["model_calls"] == 0 and data["cost"]["failed_calls"] == 1


def test_rule_runs_only_the_named_rules(
    capsys: pytest.CaptureFixture[str], team: tuple[Path, Path], server: FakeServer
) -> None:
    # With the bundled pack loaded, --rule dangerous-call must neither run nor bill the
    # intent audit or any other bundled rule.
    server._responder = lambda r: _confirm_first() if _is_finding_check(r) else _report()
    corpus, rules = team
    data = as_json(capsys, str(corpus), "--rules", str(rules), "--rule", "dangerous-call",
                   "--model", "openai:gpt-4.1", "--api-base", server.url)
    tools = {t["function"]["name"] for r in server.requests for t in r.json.get("tools", [])}
    assert "report_verdict" not in tools, "the intent audit ran"
    tasks = [r.json["messages"][1]["content"] for r in server.requests
             if not _is_finding_check(r)]
    assert len(tasks) == 3 and all("against rule `dangerous-call`" in t for t in tasks), tasks
    assert [r["rule"] for r in data["rules"]] == ["dangerous-call"]
    assert data["cost"]["model_calls"] == len(server.requests)


def test_details_print_no_workflow_command_from_a_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A team's corpus lives in the repository: a pull request can add a case whose expected
    # path holds a legacy workflow command (case ids are checked to be plain already).
    corpus = tmp_path / "corpus"
    _case(corpus, "evil-case", "description: an alias\nvulnerable: true\n"
          + _expect("'m##[error]x.py'", 3, 3),
          head={"m##[error]x.py": "import sys\nrun = dangerous\nrun(sys.argv[1])\n"})
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "dangerous-call.md").write_text(RULE)
    status, out, _ = bench(capsys, str(corpus), "--no-bundled", "--rules", str(rules),
                           "--details")
    assert status == 0
    missed = next(line for line in out.splitlines() if line.lstrip().startswith("missed"))
    assert "evil-case" in missed and "x.py" in missed
    assert [line for line in out.splitlines() if "##[" in line] == []


def test_model_benchmark_runs_the_model_corpus_end_to_end_with_a_scripted_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_model.py"
    bench_model = load_script(script, "bench_model")
    saved = tmp_path / "bench.json"
    status = bench_model.main(["--fake", "--case", "authz-invoice-download*",
                               "--json-out", str(saved)])
    section = capsys.readouterr().out
    assert status == 0
    data = json.loads(saved.read_text())
    # Both cases were reviewed by the model path: calls were made and billed to rules.
    assert data["complete"] is True and data["cases"] == 2
    assert data["cost"]["model_calls"] >= 2
    assert data["overall"]["expected"] == 1 and data["overall"]["fn"] == 1
    assert "## With a model" in section and "they measure no model" in section
    assert "secreview bench benchmarks/model_corpus --model openai:scripted-fake" in section
    row = next(line for line in section.splitlines() if line.startswith("| **overall**"))
    assert row.split("|")[11].strip() == str(data["cost"]["model_calls"])
