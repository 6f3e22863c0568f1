"""Rules carry their own examples (``examples:`` in the frontmatter, issue 21 item 9) and
``secreview test-rules [DIR]`` checks them like ``semgrep --test``."""

from __future__ import annotations

import textwrap

import pytest

from pytest_secreview.errors import RuleError
from pytest_secreview.rules.model import Example
from pytest_secreview.rules.parse import parse_rule


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
