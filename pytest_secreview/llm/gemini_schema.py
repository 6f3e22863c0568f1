"""Translate a JSON Schema into the OpenAPI subset Gemini accepts for function parameters.

``functionDeclarations[].parameters`` is Gemini's ``Schema`` message, not full JSON Schema: no
``$ref``/``$defs`` (pydantic emits them for nested models), no ``additionalProperties``, type
lists expressed as ``nullable``, enums of strings only. Unknown keys make the request fail with
a 400, so this keeps only what the ``Schema`` message documents and inlines references.
"""

from __future__ import annotations

from typing import Any

_KEEP = ("description", "minItems", "maxItems", "minProperties", "maxProperties",
         "minLength", "maxLength", "pattern", "minimum", "maximum")
_FORMATS = {
    "STRING": {"enum", "date-time"},
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
}
_MAX_DEPTH = 40


def to_gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A Gemini ``Schema`` equivalent to the JSON Schema ``schema`` (references inlined)."""
    return _convert(schema, schema, 0)


def _convert(schema: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    if depth > _MAX_DEPTH:
        raise ValueError("tool schema nests too deeply (recursive $ref?) for Gemini")
    schema = _resolve(schema, root, depth)
    out: dict[str, Any] = {key: schema[key] for key in _KEEP if key in schema}
    nullable = bool(schema.get("nullable"))

    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list):
        concrete = [v for v in variants if not (isinstance(v, dict) and v.get("type") == "null")]
        nullable = nullable or len(concrete) < len(variants)
        if len(concrete) == 1:
            merged = _convert(concrete[0], root, depth + 1)
            merged.update(out)  # the outer description wins
            out = merged
        elif concrete:
            out["anyOf"] = [_convert(v, root, depth + 1) for v in concrete]
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        merged = _convert(all_of[0], root, depth + 1)
        merged.update(out)
        out = merged

    json_type = schema.get("type")
    if isinstance(json_type, list):
        nullable = nullable or "null" in json_type
        others = [t for t in json_type if t != "null"]
        json_type = others[0] if len(others) == 1 else None
    if isinstance(json_type, str) and json_type != "null":
        out["type"] = json_type.upper()

    if "const" in schema and isinstance(schema["const"], str):
        out.setdefault("type", "STRING")
        out["enum"] = [schema["const"]]
    enum = schema.get("enum")
    if isinstance(enum, list):
        values = [v for v in enum if v is not None]
        nullable = nullable or len(values) < len(enum)
        if values and all(isinstance(v, str) for v in values):
            out["enum"] = values
            out.setdefault("type", "STRING")
        elif values:
            # Gemini only takes string enums; keep the constraint readable for the model.
            allowed = ", ".join(repr(v) for v in values)
            out["description"] = (out.get("description", "") + f" One of: {allowed}.").strip()

    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS.get(out.get("type", ""), set()):
        out["format"] = fmt

    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {
            name: _convert(sub, root, depth + 1)
            for name, sub in properties.items()
            if isinstance(sub, dict)
        }
        out.setdefault("type", "OBJECT")
        required = schema.get("required")
        if isinstance(required, list):
            kept = [name for name in required if name in out["properties"]]
            if kept:
                out["required"] = kept
    items = schema.get("items")
    if isinstance(items, list):
        items = items[0] if items else None
    if isinstance(items, dict):
        out["items"] = _convert(items, root, depth + 1)
        out.setdefault("type", "ARRAY")
    if nullable:
        out["nullable"] = True
    return out


def _resolve(schema: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/X`` or ``#/definitions/X``); siblings override."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    if depth > _MAX_DEPTH:
        raise ValueError("tool schema $ref chain is too long (a cycle?) for Gemini")
    if not ref.startswith("#/"):
        raise ValueError(f"tool schema uses a non-local $ref {ref!r}, which Gemini cannot take")
    target: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or token not in target:
            raise ValueError(f"tool schema $ref {ref!r} points nowhere")
        target = target[token]
    if not isinstance(target, dict):
        raise ValueError(f"tool schema $ref {ref!r} is not a schema")
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    return {**_resolve(target, root, depth + 1), **siblings}
