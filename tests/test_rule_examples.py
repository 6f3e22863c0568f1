"""Rules carry their own examples (``examples:`` in the frontmatter, issue 21 item 9) and
``secreview test-rules [DIR]`` checks them like ``semgrep --test``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_secreview.cli import main
from pytest_secreview.errors import RuleError
from pytest_secreview.rules.model import Example
from pytest_secreview.rules.parse import parse_rule
from tests.rulecases import load_rules


def rule_text(frontmatter: str) -> bytes:
    return ("---\n" + textwrap.dedent(frontmatter) + "---\n").encode()


def test_examples_resolve_to_paths_the_rule_applies_to() -> None:
    rule = parse_rule(rule_text("""\
        title: Debug mode
        applies_to: {file_extensions: [".py", ".js"]}
        examples:
          bad:
            - "app.run(debug=True)"
            - {code: "app.debug = true", path: "web/server.js"}
          good: ["app.run()"]
        """), "rules/debug.md")
    assert rule.examples == (
        Example(code="app.run(debug=True)", path="example.py", bad=True),
        Example(code="app.debug = true", path="web/server.js", bad=True),
        Example(code="app.run()", path="example.py", bad=False),
    )


def test_examples_without_an_extension_need_a_path() -> None:
    with pytest.raises(RuleError) as err:
        parse_rule(rule_text("""\
            title: Workflow rule
            applies_to: {paths: [".github/workflows/*.yml"]}
            examples: {bad: ["on: pull_request_target"]}
            """), "rules/wf.md")
    assert "rules/wf.md" in str(err.value)
    assert "examples.bad.0" in str(err.value)
    assert "path:" in str(err.value)


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd.py", "a/./b.py", "a\\b.py"])
def test_an_example_path_stays_inside_the_repository(path: str) -> None:
    with pytest.raises(RuleError) as err:
        parse_rule(rule_text(f"""\
            title: Debug mode
            examples: {{path: "ok.py", bad: [{{code: "x", path: '{path}'}}]}}
            """), "rules/debug.md")
    assert "examples.bad.0.path" in str(err.value)
    assert "relative path inside the repository" in str(err.value)


def test_an_unknown_example_key_is_an_error() -> None:
    with pytest.raises(RuleError) as err:
        parse_rule(rule_text("""\
            title: Debug mode
            applies_to: {file_extensions: [".py"]}
            examples: {bad: ["x"], ugly: ["y"]}
            """), "rules/debug.md")
    assert "examples.ugly" in str(err.value)


# -- secreview test-rules -------------------------------------------------------------------

DEBUG = """\
    title: Debug mode enabled
    severity: medium
    applies_to: {file_extensions: [".py"]}
    detect:
      - pattern: 'debug\\s*=\\s*True'
        message: Debug mode enabled
    examples:
      bad: ["app.run(debug=True)", "debug = True"]
      good: ["app.run(debug=False)", "debug = settings.DEBUG"]
    """


def write_rule(directory: Path, name: str, frontmatter: str, body: str = "") -> Path:
    path = directory / f"{name}.md"
    path.write_bytes(rule_text(frontmatter) + body.encode())
    return path


def run_test_rules(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["test-rules", *args])
    return status, capsys.readouterr().out


def test_a_rule_that_finds_its_bad_examples_and_none_of_its_good_ones_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "debug", DEBUG)
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 0, out
    assert "PASSED   debug" in out
    assert "2 bad example(s) found, 2 good example(s) clean" in out
    assert out.splitlines()[-1] == "1 rule(s): 1 passed, 0 failed, 0 skipped (not checked)"


def test_a_missed_bad_example_and_a_reported_good_one_fail_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "debug", DEBUG.replace(
        '"debug = True"]', '"DEBUG = 1"]').replace(
        '"debug = settings.DEBUG"]', '"debug = True  # in tests only"]'))
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 1
    assert "FAILED   debug" in out
    assert "bad 2 (example.py) not found: DEBUG = 1" in out
    assert ("good 2 (example.py) reported, it should not be: line 1: Debug mode enabled  <- "
            "debug = True  # in tests only") in out


def test_a_model_only_rule_is_skipped_never_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "review", "title: Review auth changes\n",
               body="Check that every new endpoint checks the caller's permissions.\n")
    write_rule(tmp_path, "debug", DEBUG)
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 0
    assert "SKIPPED  review" in out and "model-only" in out
    assert "1 passed, 0 failed, 1 skipped (not checked)" in out


def test_examples_the_rule_cannot_see_or_that_are_missing_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "debug", DEBUG.replace("bad: [", "path: web/app.js\n      bad: ["))
    write_rule(tmp_path, "bare", DEBUG.replace("examples:", "x-examples:").replace(
        "    x-examples:\n      bad: [\"app.run(debug=True)\", \"debug = True\"]\n"
        "      good: [\"app.run(debug=False)\", \"debug = settings.DEBUG\"]\n", ""))
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 1
    assert "example path 'web/app.js' is not a file this rule applies to" in out
    assert "FAILED   bare" in out and "no bad example: add examples:" in out


AWS = """\
    title: AWS key
    applies_to: {file_extensions: [".py"]}
    detect:
      - pattern: 'AKIA[0-9A-Z]{16}'
        message: AWS access key id in source
    examples:
      fill: {KEY_VALUE: aws_access_key_id}
      bad: ["key = 'KEY_VALUE'"]
      good: ["key = os.environ['AWS_ACCESS_KEY_ID']"]
    """


def test_placeholders_become_fake_credentials_at_run_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "aws", AWS)
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 0, out
    write_rule(tmp_path, "aws", AWS.replace("aws_access_key_id}", "aws_key}"))
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 1
    assert "examples.fill: unknown kind 'aws_key'; one of aws_access_key_id" in out


def test_invalid_and_duplicate_rules_fail_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_rule(tmp_path, "debug", DEBUG)
    write_rule(tmp_path, "copy", "id: debug\n" + textwrap.dedent(DEBUG))
    write_rule(tmp_path, "broken", "title: x\n")
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 1
    assert f"INVALID  {tmp_path / 'broken.md'}" in out
    assert "rule id 'debug' is also the id of" in out
    assert "3 invalid" in out


def test_an_unknown_path_or_rule_id_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["test-rules", str(tmp_path / "missing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    write_rule(tmp_path, "debug", DEBUG)
    assert main(["test-rules", str(tmp_path), "--rule", "debgu"]) == 2
    assert "--rule debgu: no rule has this id; known ids: debug" in capsys.readouterr().err


def test_every_bundled_rule_has_examples_and_passes(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_test_rules(capsys)
    assert status == 0, out
    skipped = {line.split()[1] for line in out.splitlines() if line.startswith("SKIPPED")}
    assert {"intent", "security-review", "scanner-semgrep"} <= skipped
    for rule in load_rules():
        if rule.id in skipped:
            # Only the rules without a deterministic part to check (and semgrep, which runs
            # the team's own configuration) are not checked.
            assert rule.scanner is not None or not (rule.detect or rule.taint), rule.id
        else:
            assert any(e.bad for e in rule.examples), rule.id
            assert any(not e.bad for e in rule.examples), rule.id


def test_the_documented_rule_passes_its_own_examples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    example = page[page.index("```markdown\n") + len("```markdown\n"):]
    (tmp_path / "orders-sql.md").write_text(example[:example.index("\n```\n") + 1])
    status, out = run_test_rules(capsys, str(tmp_path))
    assert status == 0, out
    assert "1 bad example(s) found, 1 good example(s) clean" in out
