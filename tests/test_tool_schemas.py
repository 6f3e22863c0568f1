"""Every tool a model may call declares the schema of the model that validates it.

For each repository tool (the registry, ``fetch_pr_files`` both ways, the MCP review tools) and
each final tool (``report_findings``, ``report_verdict``, ``triage_findings``,
``choose_rules``, ``answer_question``, ``propose_patch``): the declared ``parameters`` are exactly
:func:`tool_schema` of the validator;
arguments built from the declared schema alone validate (the required fields, and every
declared field); leaving out any required field is refused; a closed model refuses an
undeclared argument; and the schema is in the plain dialect every provider accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from pytest_secreview.agent.report_tool import REPORT_FINDINGS, FindingsReport
from pytest_secreview.audit.verdict import REPORT_VERDICT, VerdictReport
from pytest_secreview.diff.model import Diff
from pytest_secreview.fix.tool import PROPOSE_PATCH, ProposedPatch
from pytest_secreview.llm.gemini_schema import to_gemini_schema
from pytest_secreview.mcp.review_tools import ReviewScope, ReviewTools
from pytest_secreview.mention.question import ANSWER_QUESTION, AnswerArgs
from pytest_secreview.tools import GitHubPRContext, build_registry
from pytest_secreview.tools.gate import Gate
from pytest_secreview.tools.git_tools import GitTools
from pytest_secreview.tools.github_tools import FetchPRFiles
from pytest_secreview.tools.repo_tools import RepoTools
from pytest_secreview.tools.schema import tool_schema
from pytest_secreview.triage.files_tool import DiffPRFiles
from pytest_secreview.triage.model_triage import CHOOSE_RULES, _Choice
from pytest_secreview.triage.verify import TRIAGE_FINDINGS, _Verdicts
from tests.gitutil import GitRepo

UNPORTABLE = {"$ref", "$defs", "anyOf", "title", "default", "additionalProperties"}

#: The final tools and the models their arguments are validated with.
FINAL_TOOLS: list[tuple[str, Mapping[str, Any], type[BaseModel]]] = [
    (REPORT_FINDINGS.name, REPORT_FINDINGS.parameters, FindingsReport),
    (REPORT_VERDICT.name, REPORT_VERDICT.parameters, VerdictReport),
    (TRIAGE_FINDINGS.name, TRIAGE_FINDINGS.parameters, _Verdicts),
    (CHOOSE_RULES.name, CHOOSE_RULES.parameters, _Choice),
    (ANSWER_QUESTION.name, ANSWER_QUESTION.parameters, AnswerArgs),
    (PROPOSE_PATCH.name, PROPOSE_PATCH.parameters, ProposedPatch),
]


def _repository_tools(root: Path) -> list[tuple[str, Mapping[str, Any], type[BaseModel]]]:
    repo = GitRepo(root)
    repo.write("app.py", "print('base')\n")
    base = repo.commit("base")
    repo.write("app.py", "print('head')\n")
    head = repo.commit("head")
    gate = Gate()
    files = RepoTools(root, head_sha=head, gate=gate)
    github = GitHubPRContext("octo/repo", 1, token="t", api_url="http://127.0.0.1:9")
    tools = [
        *files.tools(),
        *GitTools(root, base_sha=base, tree=files.tree, gate=gate).tools(),
        FetchPRFiles(github, gate=gate).tool(),
        DiffPRFiles(Diff(base, head)).tool(),
        *ReviewTools(ReviewScope(repo=root, base=base), base_sha=base).tools(),
    ]
    # Every tool a review registers is among those checked here.
    registered = build_registry(root, base_sha=base, head_sha=head, github=github)
    assert set(registered.names()) <= {t.name for t in tools}
    declared = {spec["name"]: spec["parameters"] for spec in registered.specs()}
    return [(t.name, declared.get(t.name, t.parameters), t.args_model) for t in tools]


@pytest.fixture(scope="module")
def every_tool(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[tuple[str, Mapping[str, Any], type[BaseModel]]]:
    return [*_repository_tools(tmp_path_factory.mktemp("schemas") / "repo"), *FINAL_TOOLS]


def example(schema: Mapping[str, Any], *, every_field: bool) -> Any:
    """A value the declared ``schema`` allows, built from the schema alone."""
    if "enum" in schema:
        return schema["enum"][0]
    assert "pattern" not in schema, "teach example() this pattern"
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        names = properties if every_field else schema.get("required", [])
        return {name: example(properties[name], every_field=every_field) for name in names}
    if kind == "array":
        count = max(schema.get("minItems", 0), 1)
        return [example(schema.get("items", {}), every_field=every_field)] * count
    if kind == "string":
        return "x" * max(schema.get("minLength", 0), 3)
    if kind in ("integer", "number"):
        return min(max(schema.get("minimum", 1), 1), schema.get("maximum", 1))
    if kind == "boolean":
        return True
    raise AssertionError(f"no example for {schema!r}")


def _keywords(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_keywords(n) for n in node))
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, sub in node.items():
        found |= _keywords(list(sub.values()) if key == "properties" else sub)
    return found


def test_the_declared_schema_is_the_validators(every_tool: list[Any]) -> None:
    assert len(every_tool) >= 14
    for name, declared, model in every_tool:
        assert dict(declared) == tool_schema(model), name
        assert not _keywords(declared) & UNPORTABLE, name
        to_gemini_schema(dict(declared))  # Gemini's dialect accepts it


def test_arguments_built_from_the_schema_validate(every_tool: list[Any]) -> None:
    for name, declared, model in every_tool:
        for every_field in (False, True):
            args = example(declared, every_field=every_field)
            try:
                model.model_validate(args)
            except ValidationError as exc:
                pytest.fail(f"{name}: {args!r} follows the declared schema but: {exc}")


def test_each_declared_required_field_is_required(every_tool: list[Any]) -> None:
    checked = 0
    for name, declared, model in every_tool:
        args = example(declared, every_field=True)
        refused = [{k: v for k, v in args.items() if k != field}
                   for field in declared.get("required", [])]
        if model.model_config.get("extra") == "forbid":
            refused.append({**args, "undeclared_argument": 1})
        for bad in refused:
            try:
                model.model_validate(bad)
            except ValidationError:
                checked += 1
            else:
                pytest.fail(f"{name}: {bad!r} breaks the declared schema but validates")
    assert checked >= 15, "the required fields and closed models are exercised"
