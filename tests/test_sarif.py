"""SARIF output: valid against the OASIS 2.1.0 schema (offline) and shaped for GitHub code
scanning. Secrets are assembled at run time, never written literally."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT4

from pytest_secreview.core.findings import PR_PATH, FlowStep
from pytest_secreview.core.severity import Severity
from pytest_secreview.reporting import sarif
from pytest_secreview.reporting.model import (
    FindingReport,
    ItemReport,
    NotReviewed,
    Report,
    RuleReport,
    Usage,
)
from pytest_secreview.reporting.sarif import to_sarif, write_sarif
from tests.conftest import SARIF_SCHEMA, aws_key_id


def github_token() -> str:
    """A GitHub-token-shaped string built at run time."""
    return "gh" + "p_" + "Z9y8X7w6V5" * 4


# ---------------------------------------------------------------- report builders

def rule(rule_id: str, severity: Severity = Severity.HIGH, **kw: Any) -> RuleReport:
    """A rule's metadata with sensible defaults."""
    defaults: dict[str, Any] = {
        "title": f"{rule_id} title", "source": f"rules/{rule_id}.md",
        "description": f"What {rule_id} looks for.", "help": f"How to fix {rule_id}.",
    }
    return RuleReport(id=rule_id, severity=severity, **{**defaults, **kw})


def finding(rule_id: str, path: str, line: int, severity: Severity = Severity.HIGH,
            **kw: Any) -> FindingReport:
    """A finding with sensible defaults; the fingerprint depends on rule, path and title."""
    defaults: dict[str, Any] = {
        "title": f"{rule_id} issue", "source": "pattern",
        "explanation": "User input reaches a sink.", "recommendation": "Validate it.",
        "fingerprint": f"fp-{rule_id}-{path}-{kw.get('title', '')}",
    }
    return FindingReport(rule=rule_id, path=path, line=line, severity=severity,
                         **{**defaults, **kw})


def make_report(
    findings: list[FindingReport] | None = None,
    rules: list[RuleReport] | None = None,
    *,
    items: list[ItemReport] | None = None,
    not_reviewed: list[NotReviewed] | None = None,
    fail_on: Severity = Severity.CRITICAL,
    notes: list[str] | None = None,
    tool_version: str = "0.1.0",
) -> Report:
    """A session report as the controller builds it."""
    items = items or []
    outcomes = {k: sum(1 for i in items if i.outcome == k)
                for k in ("passed", "failed", "skipped", "error")}
    return Report(
        tool_version=tool_version, repository="acme/shop", pull_request=7,
        base_ref="main", base_sha="a" * 40, head_sha="b" * 40, fail_on=fail_on,
        outcomes=outcomes,  # type: ignore[arg-type]
        findings=findings or [], items=items, rules=rules or [],
        not_reviewed=not_reviewed or [], usage=Usage(), notes=notes or [],
    )


def item(rule_id: str | None, path: str, outcome: str, reason: str | None = None) -> ItemReport:
    return ItemReport(nodeid=f"rules/{rule_id}.md::{rule_id}[{path}]", rule=rule_id,
                      path=path, outcome=outcome, reason=reason)  # type: ignore[arg-type]


def _several_rules() -> Report:
    rules = [
        rule("sql-injection", Severity.CRITICAL, cwe="CWE-89", category="injection",
             owasp="A03:2021", documentation_link="https://owasp.org/Top10/A03_2021-Injection/"),
        rule("debug-mode", Severity.MEDIUM, category="config"),
        rule("weak-random", Severity.LOW, cwe="cwe-330, CWE-338"),
    ]
    findings = [
        finding("sql-injection", "app/db.py", 12, Severity.CRITICAL, cwe="CWE-89",
                exploit_scenario="An attacker sends ' OR 1=1 --", confidence=0.9,
                source="model:google/gemini-2.5-pro"),
        finding("debug-mode", "settings.py", 3, Severity.MEDIUM),
        finding("weak-random", "app/token.py", 40, Severity.LOW),
        finding("weak-random", "app/token.py", 41, Severity.INFO, title="seeded"),
    ]
    items = [item("sql-injection", "app/db.py", "failed"), item("debug-mode", "settings.py",
             "passed"), item("weak-random", "app/token.py", "passed")]
    return make_report(findings, rules, items=items)


def _unicode_and_space_paths() -> Report:
    return make_report(
        [finding("xss", "web/my templates/índex ☃.html", 2, title="XSS in índex ☃"),
         finding("xss", "web/100% sure#?.html", 5),
         finding("xss", "docs/файл:1.md", 1)],
        [rule("xss", cwe="CWE-79")],
    )


def _multi_line_with_fix() -> Report:
    return make_report(
        [finding("sql-injection", "app/db.py", 10, Severity.CRITICAL, end_line=14,
                 suggestion="cursor.execute(\n    'SELECT 1 WHERE id = %s', (uid,)\n)\n"),
         finding("sql-injection", "app/db.py", 30, Severity.HIGH, end_line=30,
                 title="second", suggestion="")],
        [rule("sql-injection", Severity.CRITICAL, cwe="CWE-89")],
    )


def _not_reviewed_and_errors() -> Report:
    items = [item("sqli", "app/db.py", "skipped", "rule needs a model and none is configured"),
             item("authz", "app/views.py", "error", "provider returned 503 after 4 attempts"),
             item("authz", "app/ok.py", "passed")]
    return make_report(
        [], [rule("sqli"), rule("authz")], items=items,
        not_reviewed=[
            NotReviewed(path="app/db.py", rule="sqli",
                        reason="rule needs a model and none is configured"),
            NotReviewed(path="app/views.py", rule="authz",
                        reason="provider returned 503 after 4 attempts"),
            NotReviewed(path="assets/logo.png", reason="binary file"),
        ],
        notes=["rules/extra.md: rule from the head revision ignored"],
    )


def _finding_of_unknown_rule() -> Report:
    return make_report([finding("scanner-rule", "a.py", 1, Severity.MEDIUM,
                                source="scanner:semgrep", fingerprint="")])


def _hostile_text() -> Report:
    key = aws_key_id()
    return make_report(
        [finding("secrets", "conf.py", 2, Severity.CRITICAL,
                 title=f"key {key}\x1b[31m in source\x07",
                 explanation=f"token {github_token()} was committed",
                 recommendation=f"rotate {key}", suggestion=f"KEY = '{key}'\n")],
        [rule("secrets", Severity.CRITICAL, description=f"never {key}\x1b]8;;x\x07")],
    )


def _taint_flow() -> Report:
    flow = (
        FlowStep("app/views.py", 14, 'name = request.args["file"]', "source"),
        FlowStep("app/views.py", 16, 'return run("convert " + name)', "call"),
        FlowStep("app/shell.py", 9, "subprocess.run(cmd, shell=True)", "sink"),
    )
    return make_report(
        [finding("command-injection", "app/shell.py", 9, Severity.CRITICAL, source="taint",
                 cwe="CWE-78", flow=flow)],
        [rule("command-injection", Severity.CRITICAL, cwe="CWE-78")],
    )


def _pull_request_level() -> Report:
    """The intent audit judges the whole change: its path is ``(pull request)``."""
    return make_report(
        [finding("intent", PR_PATH, 0, Severity.HIGH, title="Change does more than it says",
                 suggestion="revert it")],
        [rule("intent")],
        not_reviewed=[NotReviewed(path=PR_PATH, rule="intent", reason="needs a model")],
    )


REPORTS: dict[str, Callable[[], Report]] = {
    "taint-flow": _taint_flow,
    "empty": make_report,
    "several-rules": _several_rules,
    "unicode-and-space-paths": _unicode_and_space_paths,
    "multi-line-with-fix": _multi_line_with_fix,
    "not-reviewed-and-errors": _not_reviewed_and_errors,
    "finding-of-unknown-rule": _finding_of_unknown_rule,
    "hostile-text": _hostile_text,
    "pull-request-level": _pull_request_level,
}


# ---------------------------------------------------------------- schema validation

@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    """The OASIS SARIF 2.1.0 schema, draft-04, resolving only against itself: a ``Registry``
    without ``retrieve`` raises on an unknown reference instead of fetching it."""
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(schema["id"], DRAFT4.create_resource(schema))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(
        schema, registry=registry, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )


def _errors(validator: jsonschema.Draft4Validator, data: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(data)]


@pytest.mark.parametrize("build", REPORTS.values(), ids=REPORTS.keys())
def test_valid_against_sarif_2_1_0_schema(
    validator: jsonschema.Draft4Validator, build: Callable[[], Report]
) -> None:
    data = to_sarif(build(), repo_root_uri="file:///github/workspace/")
    assert _errors(validator, data) == []
    # What is written is what was validated: JSON round trip changes nothing.
    assert json.loads(json.dumps(data)) == data


def test_schema_rejects_a_broken_log(validator: jsonschema.Draft4Validator) -> None:
    # Guards the guard: a validator that accepted anything would make the test above moot.
    data = to_sarif(_several_rules())
    data["runs"][0]["results"][0]["level"] = "critical"
    del data["runs"][0]["tool"]["driver"]["name"]
    assert len(_errors(validator, data)) == 2


# ---------------------------------------------------------------- GitHub's properties

def _run(report: Report, **kw: Any) -> dict[str, Any]:
    run: dict[str, Any] = to_sarif(report, **kw)["runs"][0]
    return run


def test_log_header_and_driver() -> None:
    data = to_sarif(_several_rules())
    assert data["version"] == "2.1.0"
    assert data["$schema"].endswith("sarif-schema-2.1.0.json")
    assert len(data["runs"]) == 1
    driver = data["runs"][0]["tool"]["driver"]
    assert driver["name"] == "pytest-secreview"
    assert driver["semanticVersion"] == "0.1.0"
    assert urlsplit(driver["informationUri"]).scheme == "https"
    assert [r["id"] for r in driver["rules"]] == ["debug-mode", "sql-injection", "weak-random"]


@pytest.mark.parametrize(("version", "key"), [
    ("0.1.0", "semanticVersion"), ("1.2.3-rc.1+build.5", "semanticVersion"),
    ("0.1.dev3", "version"), ("2024.1", "version"),
], ids=["release", "prerelease-and-build", "pep440-dev", "calver"])
def test_version_is_semantic_only_when_semver(version: str, key: str) -> None:
    driver = _run(make_report(tool_version=version))["tool"]["driver"]
    assert driver[key] == version
    assert ({"semanticVersion", "version"} - {key}).isdisjoint(driver)


@pytest.mark.parametrize(("severity", "score", "level", "problem"), [
    (Severity.CRITICAL, "9.5", "error", "error"),
    (Severity.HIGH, "8.0", "error", "error"),
    (Severity.MEDIUM, "5.5", "warning", "warning"),
    (Severity.LOW, "3.0", "note", "recommendation"),
    (Severity.INFO, "0.0", "note", "recommendation"),
], ids=lambda v: v.value.lower() if isinstance(v, Severity) else None)
def test_severity_maps_to_security_severity_and_levels(
    severity: Severity, score: str, level: str, problem: str
) -> None:
    run = _run(make_report([finding("r", "a.py", 1, severity)], [rule("r", severity)]))
    descriptor = run["tool"]["driver"]["rules"][0]
    assert descriptor["properties"]["security-severity"] == score
    assert isinstance(descriptor["properties"]["security-severity"], str)
    assert descriptor["properties"]["problem.severity"] == problem
    assert descriptor["defaultConfiguration"]["level"] == level
    assert run["results"][0]["level"] == level


def test_rule_descriptor_has_what_github_requires() -> None:
    rules = _run(_several_rules())["tool"]["driver"]["rules"]
    sqli = next(r for r in rules if r["id"] == "sql-injection")
    assert sqli["name"] == "sql-injection"
    assert sqli["shortDescription"]["text"] == "sql-injection title"
    assert sqli["fullDescription"]["text"] == "What sql-injection looks for."
    assert sqli["helpUri"] == "https://owasp.org/Top10/A03_2021-Injection/"
    assert "How to fix sql-injection." in sqli["help"]["text"]
    assert "[CWE-89](https://cwe.mitre.org/data/definitions/89.html)" in sqli["help"]["markdown"]
    assert sqli["properties"]["tags"] == [
        "security", "injection", "external/cwe/cwe-89", "external/owasp/a03:2021"]
    assert sqli["properties"]["precision"] in {"very-high", "high", "medium", "low"}
    for descriptor in rules:  # required by GitHub, and never empty
        for key in ("shortDescription", "fullDescription", "help"):
            assert descriptor[key]["text"].strip()
        assert descriptor["properties"]["tags"][0] == "security"
        assert len(descriptor["properties"]["tags"]) <= sarif.MAX_TAGS
        assert len(descriptor["shortDescription"]["text"]) <= 1024


@pytest.mark.parametrize(("cwe", "tags"), [
    ("CWE-89", ["external/cwe/cwe-89"]),
    ("cwe-079", ["external/cwe/cwe-79"]),
    ("CWE-330, CWE-338", ["external/cwe/cwe-330", "external/cwe/cwe-338"]),
    ("798", ["external/cwe/cwe-798"]),
    (None, []),
], ids=["upper", "zero-padded", "two", "bare-number", "none"])
def test_cwe_tags(cwe: str | None, tags: list[str]) -> None:
    assert sarif.cwe_tags(cwe) == tags


def test_result_shape() -> None:
    run = _run(_several_rules())
    rules = run["tool"]["driver"]["rules"]
    first = run["results"][0]
    assert first["ruleId"] == "sql-injection"
    assert rules[first["ruleIndex"]]["id"] == "sql-injection"
    assert first["message"]["text"] == "sql-injection issue. User input reaches a sink."
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "app/db.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 12, "startColumn": 1, "endLine": 12}
    assert first["partialFingerprints"] == {"secreview/v2": "fp-sql-injection-app/db.py-"}
    assert first["properties"] == {
        "severity": "CRITICAL", "source": "model:google/gemini-2.5-pro", "confidence": 0.9,
        "cwe": "CWE-89", "exploit_scenario": "An attacker sends ' OR 1=1 --",
        "recommendation": "Validate it.",
    }
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    # Worst first, as every output orders findings.
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note", "note"]


@pytest.mark.parametrize(("path", "uri"), [
    ("src/app.py", "src/app.py"),
    ("my dir/a b.py", "my%20dir/a%20b.py"),
    ("ünï/файл.py", "%C3%BCn%C3%AF/%D1%84%D0%B0%D0%B9%D0%BB.py"),
    ("100%.py", "100%25.py"),
    ("a#b?.py", "a%23b%3F.py"),
    ("c:drive.py", "c%3Adrive.py"),
    ("/leading/slash.py", "leading/slash.py"),
    ("keep-._~chars.py", "keep-._~chars.py"),
], ids=["plain", "spaces", "unicode", "percent", "fragment-and-query", "colon-not-scheme",
        "leading-slash", "unreserved"])
def test_artifact_uri_is_percent_encoded(path: str, uri: str) -> None:
    assert sarif.artifact_uri(path) == uri
    assert unquote(uri) == path.lstrip("/")  # what upload-sarif's decodeURIComponent gives
    assert not urlsplit(uri).scheme and not urlsplit(uri).netloc


def test_taint_flow_is_a_code_flow_with_every_step() -> None:
    result = _run(_taint_flow())["results"][0]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    where = [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
              s["location"]["physicalLocation"]["region"]["startLine"], s["kinds"])
             for s in steps]
    assert where == [("app/views.py", 14, ["taint"]), ("app/views.py", 16, ["call"]),
                     ("app/shell.py", 9, ["taint"])]
    assert steps[0]["location"]["message"]["text"] == 'source: name = request.args["file"]'
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    assert "codeFlows" not in _run(_several_rules())["results"][0]


def test_multi_line_region_and_fix() -> None:
    run = _run(_multi_line_with_fix())
    first, second = run["results"]
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 10, "startColumn": 1, "endLine": 14}
    (change,) = first["fixes"][0]["artifactChanges"]
    (replacement,) = change["replacements"]
    assert replacement["deletedRegion"] == region
    # The region ends before line 14's newline, so the suggestion's last newline is not added.
    assert replacement["insertedContent"]["text"] == (
        "cursor.execute(\n    'SELECT 1 WHERE id = %s', (uid,)\n)")
    assert change["artifactLocation"] == {"uri": "app/db.py", "uriBaseId": "%SRCROOT%"}
    # A blank suggestion is no fix (not "delete these lines").
    assert "fixes" not in second


def test_no_fix_without_suggestion() -> None:
    assert all("fixes" not in r for r in _run(_several_rules())["results"])


def test_src_root_and_automation_details() -> None:
    run = _run(_several_rules(), repo_root_uri="file:///github/workspace")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///github/workspace/"
    assert run["invocations"][0]["workingDirectory"] == {"uri": "file:///github/workspace/"}
    assert run["automationDetails"] == {"id": "pytest-secreview/"}
    assert run["columnKind"] == "utf16CodeUnits"
    assert _run(_several_rules(), category="secreview/shard-2")["automationDetails"] == {
        "id": "secreview/shard-2/"}
    bare = _run(_several_rules(), category=None)
    assert "automationDetails" not in bare
    assert "uri" not in bare["originalUriBaseIds"]["%SRCROOT%"]
    assert "workingDirectory" not in bare["invocations"][0]


def test_repo_root_must_be_an_absolute_uri() -> None:
    with pytest.raises(ValueError, match="as_uri"):
        to_sarif(make_report(), repo_root_uri="/github/workspace")


def test_not_reviewed_and_errors_are_tool_notifications() -> None:
    run = _run(_not_reviewed_and_errors())
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    summary = [(n["descriptor"]["id"], n["level"], n["message"]["text"]) for n in notes]
    assert summary == [
        ("secreview/not-reviewed", "warning",
         "app/db.py (rule sqli) not reviewed: rule needs a model and none is configured"),
        ("secreview/review-error", "error",
         "app/views.py (rule authz) review failed: provider returned 503 after 4 attempts"),
        ("secreview/not-reviewed", "warning", "assets/logo.png not reviewed: binary file"),
        ("secreview/note", "note", "rules/extra.md: rule from the head revision ignored"),
    ]
    descriptors = run["tool"]["driver"]["notifications"]
    rules = run["tool"]["driver"]["rules"]
    for note in notes:
        assert descriptors[note["descriptor"]["index"]]["id"] == note["descriptor"]["id"]
        if "associatedRule" in note:
            assert rules[note["associatedRule"]["index"]]["id"] == note["associatedRule"]["id"]
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/db.py"
    assert "associatedRule" not in notes[2]


def test_execution_successful_without_errors() -> None:
    assert _run(_several_rules())["invocations"][0]["executionSuccessful"] is True


def test_empty_report_is_a_run_with_no_results() -> None:
    run = _run(make_report())
    assert run["results"] == []
    assert run["tool"]["driver"]["rules"] == []
    assert run["invocations"][0] == {"executionSuccessful": True,
                                     "toolExecutionNotifications": []}


def test_finding_of_a_rule_without_metadata_gets_a_descriptor() -> None:
    run = _run(_finding_of_unknown_rule())
    (descriptor,) = run["tool"]["driver"]["rules"]
    assert descriptor["id"] == "scanner-rule"
    assert descriptor["properties"]["security-severity"] == "5.5"
    result = run["results"][0]
    assert result["ruleIndex"] == 0
    # No fingerprint of its own: a stand-in that does not depend on the line.
    moved = _run(make_report([finding("scanner-rule", "a.py", 9, Severity.MEDIUM,
                                      source="scanner:semgrep", fingerprint="")]))
    assert result["partialFingerprints"] == moved["results"][0]["partialFingerprints"]


def test_equal_findings_without_fingerprint_stay_distinct() -> None:
    same = [finding("r", "a.py", n, fingerprint="") for n in (1, 2, 3)]
    prints = [r["partialFingerprints"]["secreview/v2"]
              for r in _run(make_report(same, [rule("r")]))["results"]]
    assert len(set(prints)) == 3


def test_distinct_results_sharing_a_fingerprint_stay_distinct() -> None:
    # Reports merged from elsewhere may repeat one: the results must still be told apart.
    same = [finding("r", "a.py", n, fingerprint="abc") for n in (1, 2)]
    prints = [r["partialFingerprints"]["secreview/v2"]
              for r in _run(make_report(same, [rule("r")]))["results"]]
    assert prints == ["abc", "abc:2"]


def test_deterministic_whatever_the_input_order() -> None:
    report = _several_rules()
    shuffled = report.model_copy(update={
        "findings": random.Random(3).sample(report.findings, len(report.findings)),
        "rules": list(reversed(report.rules)),
    })
    first = json.dumps(to_sarif(report))
    assert json.dumps(to_sarif(report)) == first
    assert json.dumps(to_sarif(shuffled)) == first


def test_secrets_redacted_and_control_characters_stripped() -> None:
    text = json.dumps(to_sarif(_hostile_text()), ensure_ascii=False)
    assert aws_key_id() not in text
    assert github_token() not in text
    assert "[REDACTED:aws_access_key_id]" in text
    assert "[REDACTED:github_token]" in text
    for control in ("\x1b", "\x07", "\\u001b", "\\u0007"):
        assert control not in text


def test_results_capped_worst_first_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS", 3)
    findings = [finding("r", f"f{n}.py", 1, Severity.LOW) for n in range(4)]
    findings.append(finding("r", "z.py", 1, Severity.CRITICAL))
    run = _run(make_report(findings, [rule("r")]))
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in run["results"]] == ["z.py", "f0.py", "f1.py"]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "secreview/results-omitted"
    assert note["message"]["text"].startswith("2 result(s) left out")


def test_results_capped_by_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS_BYTES", 3000)
    findings = [finding("r", f"f{n}.py", 1, explanation="x" * 1000) for n in range(5)]
    run = _run(make_report(findings, [rule("r")]))
    assert 0 < len(run["results"]) < 5
    assert len(json.dumps(run["results"])) <= 3000 + 100


def test_long_text_is_truncated_visibly() -> None:
    report = make_report([finding("r", "a.py", 1, explanation="y" * 50_000)],
                         [rule("r", title="t" * 5000)])
    run = _run(report)
    message = run["results"][0]["message"]["text"]
    assert len(message) < 5000 and message.endswith("[truncated]")
    assert len(run["tool"]["driver"]["rules"][0]["shortDescription"]["text"]) <= 1024


def test_write_sarif(tmp_path: Path) -> None:
    target = tmp_path / "out" / "secreview.sarif"
    report = _unicode_and_space_paths()
    assert write_sarif(report, target) == target
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert "XSS in índex ☃" in text  # UTF-8, not \u escapes, in the file's text...
    assert json.loads(text) == to_sarif(report)  # ...and the same log
    assert [p.name for p in target.parent.iterdir()] == ["secreview.sarif"]  # no temp left


def test_a_pull_request_level_result_has_a_logical_location_not_a_file() -> None:
    run = _run(_pull_request_level())
    pull_request = [{"logicalLocations": [{"name": "pull request", "kind": "resource"}]}]
    assert run["results"][0]["locations"] == pull_request
    assert "fixes" not in run["results"][0]
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert note["locations"] == pull_request
    assert "pull%20request" not in json.dumps(run)
