"""The registry: declaration, argument validation, errors as text, output hygiene, counters."""

from __future__ import annotations

from typing import Any, cast

import pytest
from pydantic import BaseModel, ConfigDict

from pytest_secreview.errors import GitError
from pytest_secreview.tools.errors import ToolError
from pytest_secreview.tools.gate import Gate
from pytest_secreview.tools.registry import Tool, ToolRegistry


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    times: int = 1
    path: str | None = None


#: What the registry declares for EchoArgs: derived from the model, in the plain dialect
#: every provider accepts (no titles, defaults, additionalProperties or ``X | None``).
ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "times": {"type": "integer"},
        "path": {"type": "string"},
    },
    "required": ["text"],
}


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _echo(args: EchoArgs) -> str:
    return args.text * args.times


def _raise(exc: BaseException) -> Any:
    def run(_args: NoArgs) -> str:
        raise exc

    return run


def make_registry(max_output_chars: int = 50_000) -> ToolRegistry:
    tools = [
        Tool("echo", "Echo text.", _echo, EchoArgs, path_params=("path",)),
        Tool("crash", "Raises.", _raise(ZeroDivisionError("x")), NoArgs),
        Tool("tool_error", "Raises ToolError.", _raise(ToolError("no such file")),
             NoArgs),
        Tool("git_error", "Raises GitError.", _raise(GitError("git log failed")),
             NoArgs),
        Tool("not_text", "Returns a number.", cast(Any, lambda _a: 42), NoArgs),
    ]
    return ToolRegistry(tools, gate=Gate(), max_output_chars=max_output_chars)


def test_specs_declare_name_description_and_schema() -> None:
    registry = make_registry()
    specs = registry.specs()
    assert [spec["name"] for spec in specs] == list(registry.names())
    assert specs[0] == {"name": "echo", "description": "Echo text.", "parameters": ECHO_SCHEMA}
    specs[0]["parameters"]["properties"].clear()  # callers get copies
    assert registry.specs()[0]["parameters"] == ECHO_SCHEMA


BAD_CALLS = [
    ("unknown_tool", "rm_rf", {}, "unknown tool"),
    ("non_string_name", 123, {}, "unknown tool"),
    ("args_not_object", "echo", ["text"], "JSON object"),
    ("missing_required", "echo", {}, "missing required argument 'text'"),
    ("wrong_type", "echo", {"text": ["a"]}, "text:"),
    ("wrong_int", "echo", {"text": "a", "times": "many"}, "times:"),
    ("extra_key", "echo", {"text": "a", "token": "x"}, "unexpected argument 'token'"),
    ("extra_key_on_empty", "crash", {"anything": 1}, "unexpected argument 'anything'"),
    ("exception_in_tool", "crash", {}, "crash failed unexpectedly (ZeroDivisionError)"),
    ("tool_error", "tool_error", {}, "Error: no such file"),
    ("git_error", "git_error", {}, "Error: git log failed"),
    ("non_text_result", "not_text", {}, "returned no text"),
]


@pytest.mark.parametrize(
    ("name", "args", "fragment"), [b[1:] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS]
)
def test_failures_come_back_as_text(name: Any, args: Any, fragment: str) -> None:
    registry = make_registry()
    result = registry.call(name, args)
    assert result.is_error and not result.denied
    assert fragment in result.text
    assert registry.usage().errors == 1


def test_success_and_counters() -> None:
    registry = make_registry()
    assert registry.call("echo", {"text": "hi", "times": 2}).text == "hihi"
    assert registry.call("echo", None).is_error
    denied = registry.call("echo", {"text": "x", "path": ".git/config"})
    assert denied.denied and denied.is_error and "git internals" in denied.text
    escaped = registry.call("echo", {"text": "x", "path": "../../etc/passwd"})
    assert escaped.denied and "'..'" in escaped.text
    usage = registry.usage()
    assert (usage.calls, usage.errors, usage.denied) == (4, 1, 2)
    assert usage.by_tool == {"echo": 4}
    assert [d.reason.split(" ")[0] for d in usage.denials] == ["git", "'..'"]
    assert usage.to_dict()["denials"][0]["path"] == ".git/config"


def test_every_output_is_cleaned_redacted_and_truncated() -> None:
    registry = make_registry(max_output_chars=100)
    key_id = "AK" + "IA" + "Q" * 16
    result = registry.call("echo", {"text": f"\x1b[31m{key_id}\x1b[0m\r\n" + "x" * 200})
    assert key_id not in result.text and "[REDACTED:aws_access_key_id]" in result.text
    assert "\x1b" not in result.text and "\r" not in result.text
    assert result.text.endswith("more characters ...]")
    assert "[... truncated:" in result.text


def test_error_texts_are_redacted_too() -> None:
    token = "gh" + "p_" + "a1" * 18
    registry = ToolRegistry(
        [Tool("leaky", "x", _raise(ToolError(f"bad {token}")), NoArgs)]
    )
    result = registry.call("leaky", {})
    assert token not in result.text and "[REDACTED:github_token]" in result.text


def test_unknown_tool_name_is_not_echoed_raw() -> None:
    registry = make_registry()
    result = registry.call("x\x1b[2J" + "y" * 500, {})
    assert "\x1b" not in result.text and len(result.text) < 300


def test_gate_failure_denies_the_call() -> None:
    def broken(_path: str) -> str | None:
        raise RuntimeError("rule crashed")

    registry = ToolRegistry(
        [Tool("echo", "Echo.", _echo, EchoArgs, path_params=("path",))],
        gate=Gate(extra_rules=[broken]),
    )
    result = registry.call("echo", {"text": "x", "path": "src/app.py"})
    assert result.denied and "denied to be safe" in result.text


DECLARATION_ERRORS = [
    ("bad_name", dict(name="read-file!"), "must match"),
    ("unknown_path_param", dict(path_params=("nope",)), "not all fields"),
]


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [d[1:] for d in DECLARATION_ERRORS],
    ids=[d[0] for d in DECLARATION_ERRORS],
)
def test_bad_declarations_fail_early(overrides: dict[str, Any], fragment: str) -> None:
    fields: dict[str, Any] = dict(
        name="echo", description="d", function=_echo, args_model=EchoArgs
    )
    fields.update(overrides)
    with pytest.raises(ValueError, match=fragment):
        Tool(**fields)


def test_duplicate_names_are_refused() -> None:
    registry = make_registry()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Tool("echo", "again", _echo, EchoArgs))
