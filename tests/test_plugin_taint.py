"""The taint engine through the plugin, end to end: real git repositories, the bundled pack,
no model. A flow from a request to a command or SQL sink fails the item on its own."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

import jsonschema
import pytest

from tests.conftest import SARIF_SCHEMA, ReviewRepo
from tests.fake_providers import FakeServers
from tests.test_plugin_model import report

Build = Callable[..., ReviewRepo]

HELPERS = textwrap.dedent('''\
    import subprocess


    def archive_cmd(name):
        target = "/srv/archive/" + name
        return f"tar -czf {target}.tgz /srv/data"


    def run(cmd):
        return subprocess.run(cmd, shell=True, check=True)
    ''')

VIEWS = textwrap.dedent('''\
    from flask import Flask, request

    from shop.helpers import archive_cmd, run

    app = Flask(__name__)


    @app.post("/archive")
    def archive():
        label = request.form["label"]
        parts = {"name": label, "kind": "daily"}
        cmd = archive_cmd(parts["name"])
        run(cmd)
        return {"ok": True}
    ''')


def review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", ":bundled", *args)


def test_flow_across_lines_functions_and_modules_fails_with_its_path(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(pr={"shop/__init__.py": "", "shop/helpers.py": HELPERS, "shop/views.py": VIEWS})
    sarif_path = pytester.path / "r.sarif"
    result = review(pytester, f"--secreview-sarif={sarif_path}", "-k", "command-injection")
    out = result.stdout.str()
    # The sink's file fails; shop/views.py (the source, no grep match) is the rule's dataflow
    # item, and the flow it starts is reported at its sink, not twice.
    result.assert_outcomes(failed=1, passed=1)
    assert "shop/helpers.py:10" in out and "CRITICAL" in out
    sarif = json.loads(sarif_path.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    (result_0,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "command-injection"]
    assert result_0["properties"]["cwe"] == "CWE-78"
    steps = result_0["codeFlows"][0]["threadFlows"][0]["locations"]
    where = [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
              s["location"]["physicalLocation"]["region"]["startLine"]) for s in steps]
    # request.form in the view, the dict, the helper building the command, the shell call.
    assert where[0] == ("shop/views.py", 10)
    assert ("shop/views.py", 12) in where and ("shop/helpers.py", 5) in where
    assert where[-1] == ("shop/helpers.py", 10)


def test_a_pull_request_that_only_deletes_a_sanitizer_fails(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    base = textwrap.dedent('''\
        import shlex
        import subprocess

        from flask import request


        def convert():
            name = request.args["file"]
            name = shlex.quote(name)
            return subprocess.run("convert " + name + " out.png", shell=True)
        ''')
    head = base.replace("    name = shlex.quote(name)\n", "")
    review_repo(base={"app.py": base}, pr={"app.py": head})
    result = review(pytester, "-k", "command-injection")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "app.py:9" in out  # the unchanged sink line, where the flow now ends
    assert "removed what stopped it" in out


def test_a_flow_the_pull_request_does_not_touch_is_not_reported(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    base = textwrap.dedent('''\
        import subprocess

        from flask import request


        def convert():
            name = request.args["file"]
            return subprocess.run("convert " + name, shell=True)


        def version():
            return "1"
        ''')
    # The change matches the rule (a subprocess call) but leaves the old flow as it was.
    head = base.replace('return "1"', 'return subprocess.run(["git", "describe"]).stdout')
    review_repo(base={"app.py": base}, pr={"app.py": head})
    result = review(pytester, "-k", "command-injection")
    assert "untrusted data reaches" not in result.stdout.str()
    result.assert_outcomes(passed=1)  # nothing found (no model: the deterministic review)


def test_the_sanitized_twin_passes(pytester: pytest.Pytester, review_repo: Build) -> None:
    safe = VIEWS.replace('label = request.form["label"]',
                         'label = request.form["label"]\n    if label not in ("a", "b"):\n'
                         '        return {"ok": False}')
    review_repo(pr={"shop/__init__.py": "", "shop/helpers.py": HELPERS, "shop/views.py": safe})
    result = review(pytester, "-k", "command-injection")
    assert "untrusted data reaches" not in result.stdout.str()
    result.assert_outcomes(passed=2)  # and the dataflow item of shop/views.py


TAINT_RULE = textwrap.dedent('''\
    ---
    title: Command injection (test rule)
    severity: critical
    cwe: CWE-78
    applies_to:
      file_extensions: [".py"]
    grep:
      any: ["subprocess"]
    taint:
      sources: [web]
      sinks:
        - call: subprocess.*
          args: [0]
          when: [{arg: shell, equals: true}]
    ---
    Verify the paths you are given and report exploitable ones.
    ''')


@pytest.mark.parametrize(("model_line", "verdict"), [
    (10, "Path confirmed by the model review"),
    (1, "Path not confirmed by the model review"),
], ids=["confirmed", "not-confirmed"])
def test_flows_are_the_models_starting_evidence_and_its_verdict_is_recorded(
        pytester: pytest.Pytester, review_repo: Build, model_line: int, verdict: str) -> None:
    review_repo(rules={"cmd": TAINT_RULE},
                pr={"shop/__init__.py": "", "shop/helpers.py": HELPERS, "shop/views.py": VIEWS})
    with FakeServers() as running:
        server = running.start()
        server.queue(report({"severity": "HIGH", "title": "shell command from the form",
                             "path": "shop/helpers.py", "line": model_line,
                             "explanation": "label reaches the shell",
                             "recommendation": "use an argument list"}))
        report_file = pytester.path / "r.json"
        result = pytester.runpytest(
            "--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", "--secreview-model", "openai:gpt-4.1", "--secreview-api-base",
            server.url, "--json-report", f"--json-report-file={report_file}")
        sent = json.dumps(server.requests[0].json)
    result.assert_outcomes(failed=1, passed=1)  # passed: the dataflow item of shop/views.py
    assert "Dataflow paths the taint engine found" in sent
    assert "shop/views.py:10 [source]" in sent and "shop/helpers.py:10 [sink]" in sent
    findings = json.loads(report_file.read_text())["tests"][0]["metadata"]["secreview"][
        "findings"]
    # The model's report of the same line and weakness is merged into the taint finding.
    (taint,) = [f for f in findings if "taint" in f["source"].split("+")]
    assert verdict in taint["explanation"]


def test_a_file_the_engine_cannot_analyse_is_not_reviewed_never_a_crash(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    big = "import subprocess\nsubprocess.run(CMD, shell=True)\n" + "# padding\n" * 230_000
    review_repo(pr={"big.py": big})
    result = review(pytester, "-k", "command-injection", "-rs")
    result.assert_outcomes(skipped=1)
    assert "taint analysis skipped: the file is larger than 2 MiB" in result.stdout.str()
