"""Tool calls written in text, for models without native function calling:
``<tool_call>{"name": ..., "args": {...}}</tool_call>``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")
_JSON_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


@dataclass(frozen=True)
class TextCall:
    """One parsed call; ``error`` is set when the block was not a valid call."""

    name: str
    args: dict[str, Any]
    error: str | None = None


def parse_text_calls(text: str) -> list[TextCall]:
    """Every ``<tool_call>`` block in ``text``, in order (malformed ones carry ``error``)."""
    calls = []
    for raw in _BLOCK.findall(text):
        body = _FENCE.sub("", raw.strip())
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            calls.append(TextCall("", {}, f"not valid JSON ({exc.msg} at char {exc.pos})"))
            continue
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            calls.append(TextCall("", {}, 'expected {"name": "<tool>", "args": {...}}'))
            continue
        args = data.get("args", data.get("arguments", {}))
        if not isinstance(args, dict):
            calls.append(TextCall(data["name"], {}, "args must be a JSON object"))
            continue
        calls.append(TextCall(data["name"], args))
    return calls


def parse_findings_answer(text: str) -> dict[str, Any] | None:
    """The ``report_findings`` arguments from a single-shot answer: a ``<tool_call>`` block,
    or failing that a fenced JSON object with a ``findings`` key. None when there is none."""
    for call in parse_text_calls(text):
        if call.name == "report_findings" and call.error is None:
            return call.args
    for raw in _JSON_FENCE.findall(text):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "findings" in data:
            return data
    return None
