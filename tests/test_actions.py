"""GitHub Actions: workflow-command annotations (escaping, injection, caps) and the step
summary (append, 1 MiB limit). Secrets are assembled at run time, never written literally."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_secreview.core.severity import Severity
from pytest_secreview.reporting import actions
from pytest_secreview.reporting.actions import (
    escape_data,
    escape_property,
    in_github_actions,
    write_step_summary,
)
from pytest_secreview.reporting.model import NotReviewed
from tests.conftest import aws_key_id
from tests.test_sarif import finding, github_token, make_report, rule

# ---------------------------------------------------------------- a runner's parser

_UNESCAPE = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def _unescape(text: str) -> str:
    return re.sub(r"%(?:25|0D|0A|3A|2C)", lambda m: _UNESCAPE[m.group(0)], text)


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Parse one log line the way the Actions runner does: ``::cmd k=v,k=v::data``."""
    assert line.startswith("::")
    end = line.index("::", 2)
    command, _, raw_props = line[2:end].partition(" ")
    props = {}
    for prop in filter(None, raw_props.split(",")):
        key, _, value = prop.partition("=")
        props[key] = _unescape(value)
    return command, props, _unescape(line[end + 2:])


# ---------------------------------------------------------------- escaping

@pytest.mark.parametrize(("text", "data", "prop"), [
    ("plain text", "plain text", "plain text"),
    ("100%", "100%25", "100%25"),
    ("a\nb", "a%0Ab", "a%0Ab"),
    ("a\rb", "a%0Db", "a%0Db"),
    ("x\r\n::error::pwned", "x%0D%0A::error::pwned", "x%0D%0A%3A%3Aerror%3A%3Apwned"),
    ("x::error::pwned", "x::error::pwned", "x%3A%3Aerror%3A%3Apwned"),
    ("a.py,line=9", "a.py,line=9", "a.py%2Cline=9"),
    ("%0A", "%250A", "%250A"),
    ("%3A%2C", "%253A%252C", "%253A%252C"),
    ("ünï ☃", "ünï ☃", "ünï ☃"),
], ids=["plain", "percent", "newline", "carriage-return", "crlf-then-command",
        "command-in-text", "comma-adds-property", "escaped-newline-stays-text",
        "escaped-separators-stay-text", "unicode"])
def test_escaping(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop
    assert _unescape(data) == text
    assert _unescape(prop) == text


# ---------------------------------------------------------------- annotations

def _one_line_commands(commands: list[str]) -> list[tuple[str, dict[str, str], str]]:
    """Every command is exactly one log line the runner parses as one command."""
    parsed = []
    for command in commands:
        assert "\n" not in command and "\r" not in command
        name, props, data = parse_command(command)
        assert name in {"error", "warning", "notice"}
        assert set(props) <= {"file", "line", "endLine", "title"}
        parsed.append((name, props, data))
    return parsed


def test_annotation_for_a_failing_finding() -> None:
    report = make_report([finding("sqli", "app/db.py", 12, Severity.CRITICAL, end_line=14,
                                  title="SQL built from input", cwe="CWE-89")],
                         [rule("sqli", Severity.CRITICAL)])
    (command,) = actions.annotations(report)
    assert command == (
        "::error file=app/db.py,line=12,endLine=14,title=CRITICAL SQL built from input"
        "::User input reaches a sink.%0AFix: Validate it.%0A(rule sqli, source pattern, CWE-89)"
    )


def test_single_line_finding_has_no_end_line() -> None:
    (command,) = actions.annotations(make_report([finding("r", "a.py", 3, Severity.CRITICAL,
                                                  end_line=3)]))
    assert parse_command(command)[1] == {"file": "a.py", "line": "3",
                                         "title": "CRITICAL r issue"}


@pytest.mark.parametrize(("fail_on", "kinds"), [
    (Severity.CRITICAL, ["error", "warning", "warning", "warning"]),
    (Severity.HIGH, ["error", "error", "warning", "warning"]),
    (Severity.LOW, ["error", "error", "error", "warning"]),
    (Severity.INFO, ["error", "error", "error", "error"]),
], ids=["fail-on-critical", "fail-on-high", "fail-on-low", "fail-on-info"])
def test_error_at_or_above_fail_on_else_warning(fail_on: Severity, kinds: list[str]) -> None:
    findings = [finding("r", "a.py", n, sev) for n, sev in enumerate(
        [Severity.INFO, Severity.LOW, Severity.HIGH, Severity.CRITICAL], start=1)]
    report = make_report(findings, fail_on=fail_on)
    assert [name for name, _, _ in _one_line_commands(actions.annotations(report))] == kinds


HOSTILE = {
    "title-with-command": {"title": "x::error::pwned"},
    "title-with-newline-command": {"title": "x\n::error file=a.py::pwned"},
    "title-with-crlf-command": {"title": "x\r\n::warning::pwned"},
    "title-with-comma-property": {"title": "x,file=evil.py,line=1"},
    "title-with-ansi": {"title": "x\x1b[2K\x1b]0;pwned\x07::error::pwned"},
    "explanation-with-newline-command": {"explanation": "ok\n::error::pwned\n::stop-commands::t"},
    "recommendation-with-percent-escapes": {"recommendation": "%0A::error::pwned%0D"},
    "path-with-comma-and-colon": {"path": "a,line=99:b.py"},
    "path-with-newline": {"path": "a\n::error::pwned.py"},
    "rule-with-newline": {"rule": "r\n::error::pwned"},
}


@pytest.mark.parametrize("fields", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_text_cannot_inject_a_command(fields: dict[str, str]) -> None:
    values = {"rule": "r", "path": "a.py", **fields}
    rule_id, path = values.pop("rule"), values.pop("path")
    report = make_report([finding(rule_id, path, 5, Severity.CRITICAL, **values)])
    commands = actions.annotations(report)
    parsed = _one_line_commands(commands)
    assert len(parsed) == 1  # one finding, one command: nothing injected
    name, props, data = parsed[0]
    assert name == "error"
    assert props["line"] == "5"
    for text in (*props.values(), data):
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    if "title" in fields:
        assert "\n" not in props["title"]
    if "path" in fields:
        assert props["file"] == path.replace("\r", "")


def test_title_is_capped() -> None:
    (command,) = actions.annotations(make_report([finding("r", "a.py", 1, Severity.CRITICAL,
                                                  title="t" * 1000)]))
    assert len(parse_command(command)[1]["title"]) <= 255


def test_secrets_redacted_in_annotations() -> None:
    key = aws_key_id()
    report = make_report([finding("r", "a.py", 1, Severity.CRITICAL, title=f"key {key}",
                                  explanation=f"token {github_token()} leaked")],
                         not_reviewed=[NotReviewed(path="b.py", reason=f"saw {key}")])
    text = "\n".join(actions.annotations(report))
    assert key not in text and github_token() not in text
    assert "[REDACTED:aws_access_key_id]" in text and "[REDACTED:github_token]" in text


def test_a_secret_assigned_with_tabs_is_redacted_in_annotations() -> None:
    # Redaction reads the text before a tab becomes the two characters ``\t`` of one line.
    value = "Zq8xW4" + "pL9mN2vB7cR"
    report = make_report([finding("r", "a.py", 1, Severity.CRITICAL,
                                  explanation=f'password\t=\t"{value}"')])
    text = "\n".join(actions.annotations(report))
    assert value not in text and "[REDACTED:password]" in text


def test_capped_per_kind_with_one_notice_for_the_rest() -> None:
    failing = [finding("r", f"f{n:02}.py", 1, Severity.CRITICAL) for n in range(13)]
    others = [finding("r", f"g{n:02}.py", 1, Severity.MEDIUM) for n in range(12)]
    parsed = _one_line_commands(actions.annotations(make_report(failing + others)))
    kinds = [name for name, _, _ in parsed]
    assert kinds == ["error"] * 10 + ["warning"] * 10 + ["notice"]
    assert [p["file"] for _, p, _ in parsed[:10]] == [f"f{n:02}.py" for n in range(10)]
    notice = parsed[-1]
    assert notice[1] == {"title": "secreview: more findings"}
    assert notice[2].startswith("5 more finding(s) not annotated (3 at or above CRITICAL, 2 below)")


def test_worst_findings_are_annotated_first() -> None:
    findings = [finding("r", f"l{n}.py", 1, Severity.LOW) for n in range(10)]
    findings.append(finding("r", "worst.py", 1, Severity.HIGH))
    parsed = _one_line_commands(actions.annotations(make_report(findings)))
    assert parsed[0][1]["file"] == "worst.py"


def test_not_reviewed_is_one_notice() -> None:
    entries = [NotReviewed(path=f"p{n}.py", rule="sqli", reason="needs a model")
               for n in range(7)]
    parsed = _one_line_commands(actions.annotations(make_report(not_reviewed=entries)))
    ((name, props, data),) = parsed
    assert (name, props) == ("notice", {"title": "secreview: not reviewed"})
    assert data.splitlines() == [
        "7 not reviewed:",
        *(f"p{n}.py (rule sqli): needs a model" for n in range(5)),
        "... and 2 more (see the job summary)",
    ]


def test_nothing_to_say_is_no_commands() -> None:
    assert actions.annotations(make_report()) == []


@pytest.mark.parametrize(("env", "expected"), [
    ({"GITHUB_ACTIONS": "true"}, True),
    ({"GITHUB_ACTIONS": "false"}, False),
    ({"GITHUB_ACTIONS": ""}, False),
    ({"GITHUB_ACTIONS": "TRUE"}, False),
    ({"CI": "true"}, False),
    ({}, False),
], ids=["actions", "explicit-false", "empty", "wrong-case", "other-ci", "unset"])
def test_in_github_actions(env: dict[str, str], expected: bool) -> None:
    assert in_github_actions(env) is expected


# ---------------------------------------------------------------- step summary

def test_step_summary_appends(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("## earlier step output", encoding="utf-8")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert write_step_summary("## secreview\n\nall good ✓", env) is True
    assert summary.read_text(encoding="utf-8") == (
        "## earlier step output\n## secreview\n\nall good ✓\n")


def test_step_summary_creates_the_file(tmp_path: Path) -> None:
    summary = tmp_path / "new.md"
    assert write_step_summary("# hi\n", {"GITHUB_STEP_SUMMARY": str(summary)}) is True
    assert summary.read_text(encoding="utf-8") == "# hi\n"


def test_step_summary_without_the_variable_writes_nothing() -> None:
    assert write_step_summary("# hi", {"GITHUB_ACTIONS": "true"}) is False


def test_step_summary_unwritable_is_false_not_a_crash(tmp_path: Path) -> None:
    assert write_step_summary("# hi", {"GITHUB_STEP_SUMMARY": str(tmp_path)}) is False


def test_step_summary_redacted_and_stripped(tmp_path: Path) -> None:
    summary = tmp_path / "s.md"
    key = aws_key_id()
    write_step_summary(f"key `{key}`\x1b[31m red\x1b[0m\r\n", {"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text(encoding="utf-8") == "key `[REDACTED:aws_access_key_id]` red\n"


def test_step_summary_truncated_to_the_real_limit(tmp_path: Path) -> None:
    summary = tmp_path / "s.md"
    summary.write_text("x" * 1000 + "\n", encoding="utf-8")
    row = "| `app/file.py:12` | CRITICAL | ünïcode title ☃ |\n"
    markdown = "## secreview\n\n" + row * (2 * 1024 * 1024 // len(row.encode()))
    assert write_step_summary(markdown, {"GITHUB_STEP_SUMMARY": str(summary)}) is True
    data = summary.read_bytes()
    assert len(data) <= actions.STEP_SUMMARY_LIMIT
    text = data.decode("utf-8")  # never cut inside a character
    assert text.endswith("the full report is in the review's artifacts "
                         "(`summary.md`, `summary.json`).\n")
    body = text[1001:text.index("\n\n> **Note:**")]
    assert all(line == row.rstrip("\n") for line in body.splitlines()[2:])  # whole rows


def test_truncation_closes_an_open_code_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(actions, "STEP_SUMMARY_LIMIT", 600)
    summary = tmp_path / "s.md"
    markdown = "<details><summary>log</summary>\n\n```text\n" + "line\n" * 500 + "```\n</details>\n"
    assert write_step_summary(markdown, {"GITHUB_STEP_SUMMARY": str(summary)}) is True
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode()) <= 600
    head, _note = text.split("\n\n> **Note:**")
    assert head.endswith("line\n```\n</details>")


def test_step_summary_with_no_room_left_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(actions, "STEP_SUMMARY_LIMIT", 200)
    summary = tmp_path / "s.md"
    summary.write_text("y" * 190, encoding="utf-8")
    assert write_step_summary("# a long summary\n" * 10,
                              {"GITHUB_STEP_SUMMARY": str(summary)}) is False
    assert summary.read_text(encoding="utf-8") == "y" * 190
