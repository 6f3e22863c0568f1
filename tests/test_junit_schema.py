"""The JUnit XML of a review, checked against the published JUnit XSD (windyroad, the schema
several GitHub test-report actions follow) and read back with junitparser.

pytest's own ``xunit2`` output does not match that XSD's envelope (attributes and required
elements of ``<testsuites>``/``<testsuite>``, the timestamp's format, ``type`` on
``<failure>``/``<skipped>``): :func:`normalise_envelope` repairs exactly those, and a plain
pytest run proves it repairs nothing else. What remains after it is ours.
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Properties, Skipped

from tests.conftest import JUNIT_XSD, ReviewRepo, aws_key_id
from tests.test_plugin import DEBUG_RULE

xmlschema = pytest.importorskip("xmlschema", reason="XSD validation needs xmlschema (test extra)")

XSD = JUNIT_XSD

FAILING_RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    category: secrets
    cwe: CWE-798
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
        recommendation: Load credentials from the environment.
    ---
    """
)
PASSING_RULE = DEBUG_RULE

Build = Callable[..., ReviewRepo]


@pytest.fixture(scope="module")
def schema() -> Any:
    """The JUnit XSD, compiled once."""
    return xmlschema.XMLSchema(str(XSD))


def violations(schema: Any, root: ET.Element) -> set[tuple[str, str]]:
    """Every XSD violation as (element path without positions, reason without values)."""
    return {
        (re.sub(r"\[\d+\]", "", error.path or ""), re.sub(r"='[^']*'", "=…", error.reason or ""))
        for error in schema.iter_errors(root)
    }


def normalise_envelope(root: ET.Element) -> ET.Element:
    """pytest's ``xunit2`` envelope reshaped into the XSD's, test cases left as they are."""
    root = copy.deepcopy(root)
    root.attrib.clear()  # <testsuites> has no attributes in the XSD
    for index, suite in enumerate(root.iter("testsuite")):
        suite.set("package", suite.get("name", "pytest"))
        suite.set("id", str(index))
        suite.set("timestamp", suite.get("timestamp", "")[:19])  # no fraction, no zone
        if suite.find("properties") is None:
            suite.insert(0, ET.Element("properties"))
        for tag in ("system-out", "system-err"):
            if suite.find(tag) is None:
                suite.append(ET.Element(tag))
        for case in suite.iter("testcase"):
            for outcome in case:
                if outcome.tag in ("failure", "error"):
                    outcome.set("type", outcome.get("type", outcome.tag))
                elif outcome.tag == "skipped":
                    outcome.attrib.pop("type", None)
    return root


def without_testcase_properties(root: ET.Element) -> ET.Element:
    """A copy with every ``<testcase>``'s ``<properties>`` removed."""
    root = copy.deepcopy(root)
    for case in root.iter("testcase"):
        for props in case.findall("properties"):
            case.remove(props)
    return root


@pytest.fixture
def review_junit(pytester: pytest.Pytester, review_repo: Build) -> Path:
    """A review with one failing, two passing and one skipped item, as xunit2 JUnit XML."""
    review_repo(
        rules={"aws-key": FAILING_RULE, "debug": PASSING_RULE},
        pr={"app/settings.py": f"REGION = 'eu'\nKEY = '{aws_key_id()}'\n",
            "app/db.py": "cursor.execute(query)\n",
            # binary to git: not reviewable, skipped under the default --secreview-unreviewed
            "app/messages.mo": "catalog\x00\n"},
    )
    path = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider",
        "--secreview-rules", "secreview/rules",
        "-o", "junit_family=xunit2", f"--junitxml={path}",
    )
    result.assert_outcomes(failed=1, passed=2, skipped=1)
    return path


@pytest.fixture
def plain_junit(pytester: pytest.Pytester) -> Path:
    """A plain pytest run (no review) with a pass, a failure and a skip, as xunit2."""
    pytester.makepyfile(test_plain=(
        "import pytest\n"
        "def test_ok():\n    pass\n"
        "def test_bad():\n    assert 1 == 2\n"
        "def test_skip():\n    pytest.skip('why')\n"
    ))
    path = pytester.path / "plain.xml"
    pytester.runpytest("-p", "no:cacheprovider", "-o", "junit_family=xunit2",
                       f"--junitxml={path}").assert_outcomes(passed=1, failed=1, skipped=1)
    return path


def test_normalising_repairs_only_pytests_own_envelope(schema: Any, plain_junit: Path) -> None:
    root = parse(plain_junit)
    assert violations(schema, root)  # pytest's xunit2 output is not the XSD's shape...
    assert violations(schema, normalise_envelope(root)) == set()  # ...and this is all of it


def test_review_junit_differs_from_the_xsd_only_by_testcase_properties(
    schema: Any, review_junit: Path
) -> None:
    root = normalise_envelope(parse(review_junit))
    assert violations(schema, root) == {
        ("/testsuites/testsuite/testcase", "Unexpected child with tag 'properties' at position 1.")
    }
    # Everything else the plugin writes (names, failure and skip texts) is valid.
    schema.validate(without_testcase_properties(root))


def parse(path: Path) -> ET.Element:
    """The root of a JUnit file this test's own pytest run wrote (trusted input)."""
    return ET.parse(path).getroot()  # noqa: S314 - written by the test, not by a stranger


def _cases(path: Path) -> dict[str, Any]:
    return {case.name: case for suite in JUnitXml.fromfile(str(path)) for case in suite}


def test_junit_carries_outcomes_failure_text_and_findings(review_junit: Path) -> None:
    cases = _cases(review_junit)
    outcomes = {name: type(case.result[0]).__name__ if case.result else "passed"
                for name, case in cases.items()}
    assert outcomes == {
        "aws-key[app/settings.py]": "Failure",
        "debug[app/db.py]": "passed",
        "debug[app/settings.py]": "passed",
        "unreviewed[app/messages.mo]": "Skipped",
    }

    failing = cases["aws-key[app/settings.py]"]
    (failure,) = failing.result
    assert isinstance(failure, Failure)
    line = "app/settings.py:2  CRITICAL  AWS access key id in source"
    # A one-line headline (what a JUnit viewer shows), the findings in the body.
    assert failure.message == "1 finding(s) at or above CRITICAL (Hard-coded AWS key)"
    assert line in (failure.text or "")
    props = {p.name: p.value for p in failing.child(Properties)}
    assert props["secreview_rule"] == "aws-key"
    assert props["secreview_path"] == "app/settings.py"
    (found,) = json.loads(props["secreview_findings"])
    assert (found["path"], found["line"], found["severity"], found["title"]) == (
        "app/settings.py", 2, "CRITICAL", "AWS access key id in source")

    passing = {p.name: p.value for p in cases["debug[app/db.py]"].child(Properties)}
    assert json.loads(passing["secreview_findings"]) == []

    (skipped,) = cases["unreviewed[app/messages.mo]"].result
    assert isinstance(skipped, Skipped)
    assert "binary" in (skipped.message or "")

    assert aws_key_id() not in review_junit.read_text(encoding="utf-8")
