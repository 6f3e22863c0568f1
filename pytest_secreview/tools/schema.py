"""A tool's declared arguments schema, derived from the pydantic model that validates them.

One definition per contract: every tool a model may call (the repository tools, the MCP
tools and the final tools such as ``report_findings``) declares ``tool_schema(model)`` for the
model that validates its arguments, so what a model is told and what is accepted cannot drift.
Field descriptions the model reads live in ``Field(description=...)``; class docstrings are
for developers and are not declared.
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

#: Keys dropped from a declared schema: not in every provider's tool dialect (Gemini rejects
#: them), or noise (titles, defaults the descriptions already state).
_DROPPED = frozenset({"$defs", "title", "default", "additionalProperties"})


class ToolArgs(BaseModel):
    """Base of a repository tool's arguments: closed (an unknown argument is an error the model
    reads) and immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _NoDocstrings(GenerateJsonSchema):
    """pydantic's generator, without class docstrings as descriptions (an explicit
    ``json_schema_extra`` description is kept)."""

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        doc = schema["cls"].__doc__
        if doc and generated.get("description") == inspect.cleandoc(doc):
            del generated["description"]
        return generated


def tool_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The ``parameters`` declared for a tool whose arguments ``model`` validates (a copy the
    caller may change)."""
    return copy.deepcopy(_generated(model))


@functools.cache
def _generated(model: type[BaseModel]) -> dict[str, Any]:
    # Generating takes milliseconds and a registry is built for every reviewed item.
    return plain_schema(model.model_json_schema(schema_generator=_NoDocstrings))


def plain_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (pydantic's JSON Schema) in the plain subset every provider's tool dialect
    accepts: references inlined, ``X | None`` as ``X``, no titles, defaults or
    ``additionalProperties``."""
    defs = schema.get("$defs", {})

    def convert(node: Any) -> Any:
        if isinstance(node, list):
            return [convert(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        variants = node.get("anyOf")
        if isinstance(variants, list):
            concrete = [v for v in variants if v != {"type": "null"}]
            if len(concrete) == 1:
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                node = {**convert(concrete[0]), **rest}
        out = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            if key == "properties":
                out[key] = {name: convert(sub) for name, sub in value.items()}
            else:
                out[key] = convert(value)
        return out

    converted: dict[str, Any] = convert(schema)
    return converted


def described(description: str, model: type[BaseModel]) -> str:
    """``description`` followed by the upper bounds of ``model``'s arguments that a model can
    hit (lengths, counts, maxima), read from its declared schema: a model reads a tool's
    description far more reliably than its schema, and a limit stated only in the schema is
    met as a rejected call."""
    bounds = _bounds(tool_schema(model), "")
    if not bounds:
        return description
    return f"{description} Limits: {'; '.join(bounds)}."


def _bounds(node: Any, where: str) -> list[str]:
    if not isinstance(node, dict):
        return []
    found: list[str] = []
    name = where or "arguments"
    if "maxLength" in node:
        found.append(f"{name} at most {node['maxLength']:,} characters")
    if "maxItems" in node:
        found.append(f"{name} at most {node['maxItems']:,} items")
    if "maximum" in node and node.get("type") == "integer":
        found.append(f"{name} at most {node['maximum']:,}")
    for key, sub in node.get("properties", {}).items():
        found.extend(_bounds(sub, f"{where}.{key}" if where else key))
    if "items" in node:
        found.extend(_bounds(node["items"], f"{where}[]"))
    return found
