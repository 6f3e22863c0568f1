"""JSON Schemas published in ``schemas/``, generated from the pydantic models.

``python -m pytest_secreview.schemas`` rewrites them; a test fails when a file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .agent.report_tool import FindingsReport
from .core.findings import Finding
from .reporting.model import Report
from .rules.model import RuleFrontmatter

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
_BASE = "https://github.com/pytest-secreview/pytest-secreview/schemas/"


def _with_id(name: str, schema: dict[str, Any], title: str) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": _BASE + name,
        **schema,
        "title": title,
    }


def schemas() -> dict[str, dict[str, Any]]:
    """Every published schema by file name."""
    return {
        "rule.schema.json": _with_id(
            "rule.schema.json", RuleFrontmatter.model_json_schema(), "Rule frontmatter"
        ),
        "finding.schema.json": _with_id(
            "finding.schema.json", TypeAdapter(Finding).json_schema(), "Finding"
        ),
        "report.schema.json": _with_id(
            "report.schema.json", Report.model_json_schema(), "pytest-secreview summary.json"
        ),
        "report_findings.schema.json": _with_id(
            "report_findings.schema.json",
            FindingsReport.model_json_schema(),
            "Arguments of the report_findings tool",
        ),
    }


def render(schema: dict[str, Any]) -> str:
    """The exact text written to disk."""
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main() -> int:
    """Write every schema into ``schemas/``."""
    SCHEMA_DIR.mkdir(exist_ok=True)
    for name, schema in schemas().items():
        (SCHEMA_DIR / name).write_text(render(schema))
        print(f"wrote schemas/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
