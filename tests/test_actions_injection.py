"""Workflow-command injection (issue 10 item 4): nothing a pull request or a model wrote can
reach GitHub Actions' log as a command. The whole stdout and stderr of a real run is read the
way the runner reads it (line by line, CR and LF both end a line, leading whitespace trimmed)
and every line that would be a command must be one the plugin wrote."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator

import pytest

from pytest_secreview.severity import one_line
from tests.conftest import ReviewRepo, aws_key_id
from tests.fake_providers import FakeServer, FakeServers, Reply, openai_completion, openai_tool_call

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded credentials
    severity: critical
    category: secrets
    grep:
      any: ["KEY"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    Look for credentials.
    """
)

# What a hostile pull request or model writes, each aimed at a way the runner reads commands.
HOSTILE = [
    "::set-output name=verdict::passed",
    "::add-mask::" + "secreview",
    "::stop-commands::pwned",
    "##[group]hidden",
    "  ::error file=x.py,line=1::forged",
    "\r::warning::after a carriage return",
    "::notice::a\u2028::notice::unicode line separator",
    "x\n::set-env name=A::B",
]
HOSTILE_TEXT = "\n".join(HOSTILE)
FILE_NAMES = ["::set-output name=x::y.py", "##[group]evil.py", "ok\n::add-mask::z.py"]

# Commands the plugin writes: stop-commands with its token, the resume, and annotations.
_TOKEN = r"[0-9a-f]{32}"
_PLUGIN_COMMAND = re.compile(
    rf"::stop-commands::(?P<stop>{_TOKEN})|::(?P<resume>{_TOKEN})::"
    r"|::(error|warning|notice) (?P<props>[^:]*)::.*"
)


def runner_lines(output: str) -> list[str]:
    """The log lines GitHub's runner sees, trimmed at the start as it trims them."""
    return [line.lstrip() for line in re.split(r"\r\n|\r|\n", output)]


def model_reply(path: str) -> Reply:
    title = "::set-output name=verdict::passed ##[group]x"  # a title is one line
    finding = {"severity": "CRITICAL", "title": title, "path": path, "line": 1,
               "explanation": HOSTILE_TEXT, "exploit_scenario": HOSTILE_TEXT,
               "recommendation": HOSTILE_TEXT}
    return Reply(json=openai_completion(
        tool_calls=[openai_tool_call("c1", "report_findings",
                                     json.dumps({"findings": [finding]}))],
        finish_reason="tool_calls"))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


@pytest.mark.parametrize("workers", [pytest.param((), id="serial"),
                                     pytest.param(("-n", "2"), id="xdist")])
def test_no_line_of_a_hostile_review_reads_as_a_command_the_plugin_did_not_write(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
    monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...],
) -> None:
    code = f"KEY = '{aws_key_id()}'\n" + "".join(f"# {h}\n" for h in HOSTILE)
    code += "x = 1\r::set-output name=cr::1\n"
    # A changed conftest.py is named in a PytestWarning (the warnings summary) too.
    conftest = {"evil\n::warning::forged-warning/conftest.py": "x = 1\n"}
    review_repo(rules={"creds": RULE}, pr={**{name: code for name in FILE_NAMES}, **conftest})
    for _ in FILE_NAMES:  # a model's path holds no control character: validated
        server.queue(model_reply(FILE_NAMES[0]))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "-rA", "-v",
        "--secreview-rules", "secreview/rules", "--secreview-model", "openai:gpt-4.1",
        # One scripted answer per item: the second look would be a model call of its own.
        "--secreview-api-base", server.url, "--secreview-verify=false", *workers,
    )
    result.assert_outcomes(failed=3)
    output = "\n".join(result.outlines + result.errlines)
    assert "forged" in output and "hidden" in output, "the hostile text is shown, neutralised"
    assert "PytestWarning: secreview: this pull request changes evil" in output
    commands = [line for line in runner_lines(output) if line.startswith(("::", "##["))]
    forged = [line for line in commands if not _PLUGIN_COMMAND.fullmatch(line)]
    assert not forged, "commands the plugin did not write:\n" + "\n".join(forged)
    matches = [_PLUGIN_COMMAND.fullmatch(line) for line in commands]
    stops = [m["stop"] for m in matches if m and m["stop"]]
    resumes = [m["resume"] for m in matches if m and m["resume"]]
    assert len(stops) == 1 and resumes == stops, "one random token, stopped then resumed"
    token_line = commands.index(f"::{stops[0]}::")
    annotations = [i for i, m in enumerate(matches) if m and m["props"] is not None]
    # Each finding is one annotation on a line of its own (none lost on the progress line).
    summary = pytester.path / "secreview-artifacts" / "report" / "summary.json"
    findings = json.loads(summary.read_text())["findings"]
    assert len(annotations) == len(findings) >= 3
    assert min(annotations) > token_line
    for m in matches:
        if m and m["props"] is not None:
            assert "::" not in m["props"] and "\n" not in m["props"]
    # The token never appears outside the plugin's two lines.
    assert output.count(stops[0]) == 2
    # Legacy ``##[`` commands are matched anywhere in a line that is not a command already:
    # only the plugin's annotations (a ``file`` property must stay the real path) hold one.
    legacy = [line for line in runner_lines(output)
              if "##[" in line and not _PLUGIN_COMMAND.fullmatch(line)]
    assert not legacy, "\n".join(legacy)


@pytest.mark.parametrize("text", [*HOSTILE, ":", ": :x", "\u0085::a", "\t::x", "a##[b"])
def test_one_line_never_starts_a_command_and_never_breaks_a_line(text: str) -> None:
    for prefix in ("", "  ", "\t"):
        line = prefix + one_line(text)
        assert not re.search(r"[\r\n\u0085\u2028\u2029\x0b\x0c\x1c-\x1e]", line)
        assert not line.lstrip().startswith(":")
        assert "##[" not in line


def test_one_line_keeps_ordinary_text_readable() -> None:
    assert one_line("std::io::Result in src/a.rs") == "std::io::Result in src/a.rs"
    assert one_line("# heading [link]") == "# heading [link]"


def test_a_review_that_cannot_start_still_resumes_workflow_commands(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    review_repo(rules={"creds": RULE}, pr={"a.py": "x = 1\n"})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = pytester.runpytest_subprocess(
        "--secreview", "--base", "no-such-branch", "-p", "no:cacheprovider",
        "--secreview-rules", "secreview/rules",
    )
    assert result.ret != 0
    lines = runner_lines("\n".join(result.outlines + result.errlines))
    stops = [line.split("::")[2] for line in lines if line.startswith("::stop-commands::")]
    assert len(stops) == 1
    assert f"::{stops[0]}::" in lines


def test_log_records_of_the_plugin_are_single_neutralised_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pytest_secreview.logs import get_logger

    with caplog.at_level("WARNING"):
        get_logger("pytest_secreview.llm").warning("provider said: %s", "x\n::add-mask::y")
    (record,) = caplog.records
    assert "\n" not in record.getMessage()
    assert record.getMessage() == "provider said: x\\n::add-mask::y"
