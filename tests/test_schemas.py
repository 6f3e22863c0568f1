"""The published JSON Schemas match the models they are generated from."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.severity import Severity
from pytest_secreview.schemas import SCHEMA_DIR, render, schemas


@pytest.mark.parametrize("name", sorted(schemas()))
def test_published_schema_is_current(name: str) -> None:
    path = SCHEMA_DIR / name
    assert path.exists(), f"schemas/{name} missing: run python -m pytest_secreview.schemas"
    assert path.read_text() == render(schemas()[name]), (
        f"schemas/{name} is stale: run python -m pytest_secreview.schemas"
    )


def test_finding_json_validates_against_its_schema() -> None:
    finding = Finding(rule="r", severity=Severity.HIGH, title="t", path="a.py", line=3,
                      source="pattern").with_fingerprint("x = 1")
    schema = json.loads((SCHEMA_DIR / "finding.schema.json").read_text())
    jsonschema.validate(finding.to_json(), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**finding.to_json(), "severity": "URGENT"}, schema)


def test_rule_schema_rejects_unknown_keys() -> None:
    schema = json.loads((SCHEMA_DIR / "rule.schema.json").read_text())
    jsonschema.validate({"title": "A rule", "severity": "HIGH"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"title": "A rule", "sevrity": "HIGH"}, schema)


def test_report_findings_tool_schema_is_the_validators_in_every_providers_dialect() -> None:
    from pytest_secreview.agent.report_tool import (
        PLUGIN_OWNED,
        REPORT_FINDINGS,
        ReportedFinding,
    )
    from pytest_secreview.llm.gemini_schema import to_gemini_schema

    declared = REPORT_FINDINGS.parameters

    def keywords(node: dict[str, Any]) -> set[str]:
        found = set(node)
        for name, sub in node.items():
            if name == "properties":
                for prop in sub.values():
                    found |= keywords(prop)
            elif isinstance(sub, dict):
                found |= keywords(sub)
        return found

    unportable = {"$ref", "$defs", "anyOf", "title", "default", "additionalProperties"}
    assert not keywords(declared) & unportable
    item = declared["properties"]["findings"]["items"]
    # Every field the validator reads is offered, except those the plugin sets itself.
    assert set(item["properties"]) == set(ReportedFinding.model_fields) - set(PLUGIN_OWNED)
    assert set(item["required"]) == {n for n, f in ReportedFinding.model_fields.items()
                                     if f.is_required()}
    assert item["properties"]["severity"]["enum"] == [s.value for s in Severity]
    assert to_gemini_schema(declared)["properties"]["findings"]["type"] == "ARRAY"
