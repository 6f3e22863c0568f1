"""The ``taint:`` frontmatter section: validated at the trust boundary, errors that name the
file and the key, compiled into the engine's spec."""

from __future__ import annotations

import textwrap

import pytest

from pytest_secreview.errors import RuleError
from pytest_secreview.rules.parse import parse_rule


def rule(taint: str) -> bytes:
    head = "---\ntitle: A taint rule\nseverity: critical\ncwe: CWE-78\n"
    return (head + textwrap.dedent(taint) + "---\n").encode()


def test_taint_section_compiles_with_presets_and_severities() -> None:
    parsed = parse_rule(rule("""\
        taint:
          sources: [web, {pattern: "myapp.read_input", kind: local}]
          sinks:
            - call: "subprocess.*"
              args: [0]
              when: [{arg: shell, equals: true}]
          sanitizers: ["shlex.quote"]
        """), "rules/cmd.md")
    spec = parsed.taint
    assert spec is not None and spec.rule_id == "cmd" and spec.cwe == "CWE-78"
    assert spec.source_kinds == {"web", "local"}
    assert [s.pattern for s in spec.sources] == ["myapp.read_input"]
    # Input from the operator (argv, environment) is at most MEDIUM: CRITICAL needs the network.
    assert (spec.severity_web, spec.severity_local) == ("CRITICAL", "MEDIUM")
    (sink,) = spec.sinks
    assert sink.args == (0,) and sink.when[0].kw == "shell" and sink.when[0].values == (True,)


@pytest.mark.parametrize(("web", "local"), [("critical", "MEDIUM"), ("high", "MEDIUM"),
                                             ("medium", "MEDIUM"), ("low", "LOW")])
def test_operator_input_caps_at_medium_whatever_the_rule(web: str, local: str) -> None:
    parsed = parse_rule(rule(f"""\
        taint:
          severity: {web}
          sinks: [{{call: "os.system", args: [0]}}]
        """), "rules/cmd.md")
    assert parsed.taint is not None
    assert (parsed.taint.severity_web, parsed.taint.severity_local) == (web.upper(), local)


@pytest.mark.parametrize(("taint", "key"), [
    ("taint:\n  sinks: [{args: [0]}]\n", "taint.sinks.0"),
    ("taint:\n  sinks: [{call: os.system, store: x}]\n", "taint.sinks.0"),
    ("taint:\n  sinks: []\n", "taint.sinks"),
    ("taint:\n  sources: [cloud]\n  sinks: [{call: eval}]\n", "taint.sources.0"),
    ("taint:\n  sinks: [{call: eval, argz: [0]}]\n", "taint.sinks.0.argz"),
], ids=["no-target", "two-targets", "no-sinks", "unknown-preset", "unknown-key"])
def test_bad_taint_sections_name_the_file_and_key(taint: str, key: str) -> None:
    with pytest.raises(RuleError) as info:
        parse_rule(rule(taint), "rules/bad.md")
    assert "rules/bad.md" in str(info.value) and key in str(info.value)


def test_a_condition_reads_a_header_and_may_accept_computed_values() -> None:
    parsed = parse_rule(rule("""\
        taint:
          sinks:
            - call: "*make_response"
              args: [0]
              unless:
                - {arg: headers, position: 2, header: Content-Type, computed: true,
                   equals: ["text/plain*"]}
        """), "rules/body.md")
    assert parsed.taint is not None
    (cond,) = parsed.taint.sinks[0].unless
    assert (cond.kw, cond.pos, cond.header, cond.computed) == ("headers", 2, "Content-Type", True)
    with pytest.raises(RuleError) as info:
        parse_rule(rule("""\
            taint:
              sinks: [{call: f, unless: [{arg: h, header: "Content Type", equals: [x]}]}]
            """), "rules/bad.md")
    assert "taint.sinks.0.unless.0.header" in str(info.value)
