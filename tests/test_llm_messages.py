"""Neutral message types and price estimates."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_secreview.llm import (
    FinishReason,
    Message,
    ModelResponse,
    Price,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
    estimate_cost,
    lookup_price,
    price_from_mapping,
)
from pytest_secreview.llm.pricing import PRICES


def test_messages_are_frozen_tuples() -> None:
    message = Message("user", [TextPart("a"), TextPart("b")])  # type: ignore[arg-type]
    assert message.parts == (TextPart("a"), TextPart("b"))
    assert message.text == "ab"
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.role = "assistant"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("role", "part"),
    [
        ("user", ToolCallPart("c", "read_file", {})),
        ("user", ThinkingPart("x")),
        ("assistant", ToolResultPart("c", "read_file", "out")),
        ("system", TextPart("x")),
    ],
)
def test_parts_must_fit_the_role(role: str, part: object) -> None:
    with pytest.raises(ValueError):
        Message(role, (part,))  # type: ignore[arg-type]


def test_constructors_and_response_helpers() -> None:
    results = Message.tool_results([ToolResultPart("c1", "git_log", "abc")])
    assert results.role == "user"
    call = ToolCallPart("c1", "git_log", {"max_count": 1})
    response = ModelResponse((ThinkingPart("hm", "sig", "anthropic"), TextPart("Reading."), call),
                             FinishReason.TOOL_CALLS, Usage(1, 2), "m")
    assert response.text == "Reading."
    assert response.tool_calls == (call,)
    assert response.message == Message("assistant", response.parts)
    assert str(FinishReason.SAFETY) == "safety"  # JSON-safe string values


def test_usage_adds_up() -> None:
    total = Usage(100, 20, 60, 5, 10) + Usage(50, 10, 0, 0, 0)
    assert total == Usage(150, 30, 60, 5, 10)
    assert total.total_tokens == 180
    assert sum([Usage(1, 1), Usage(2, 2)], Usage()) == Usage(3, 3)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("google/gemini-2.5-pro", PRICES["gemini-2.5-pro"]),
        ("gemini:gemini-2.5-flash-lite-preview-06-17", PRICES["gemini-2.5-flash-lite"]),
        ("google/gemini-2.5-flash", PRICES["gemini-2.5-flash"]),
        ("anthropic/claude-sonnet-4-5@20250929", PRICES["claude-sonnet-4"]),
        ("anthropic:claude-opus-4-1-20250805", PRICES["claude-opus-4-1"]),
        ("anthropic:claude-opus-4-5", PRICES["claude-opus-4-5"]),
        ("anthropic:claude-haiku-4-5", PRICES["claude-haiku-4"]),
        ("openai:gpt-4o-mini-2024-07-18", PRICES["gpt-4o-mini"]),
        ("openai:gpt-4.1", PRICES["gpt-4.1"]),
        ("moonshotai/kimi-k2-thinking-maas", PRICES["kimi-k2"]),
        ("mistralai/mistral-medium-2505", PRICES["mistral-medium"]),
        ("meta/llama-4-maverick-17b-128e-instruct-maas", PRICES["llama-4-maverick"]),
        ("deepseek-ai/deepseek-v3.1-maas", PRICES["deepseek-v3"]),
        ("qwen/qwen3-coder-480b-a35b-instruct-maas", PRICES["qwen3-coder"]),
        ("openai:my-finetune", None),
    ],
)
def test_price_lookup_by_longest_prefix(model: str, expected: Price | None) -> None:
    assert lookup_price(model) == expected


def test_cost_estimate() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cached_tokens=400_000)
    # 600k uncached at $1.25, 400k cached at $0.125, 100k output at $10
    assert estimate_cost("google/gemini-2.5-pro", usage) == pytest.approx(0.75 + 0.05 + 1.0)
    claude = Usage(input_tokens=1_000, output_tokens=0, cached_tokens=600, cache_write_tokens=400)
    assert estimate_cost("anthropic:claude-sonnet-4-5", claude) == pytest.approx(
        (600 * 0.30 + 400 * 3.75) / 1e6)


def test_unknown_model_cost_is_unknown_not_zero() -> None:
    assert estimate_cost("openai:llama3.1:8b", Usage(1000, 1000)) is None


def test_overrides_win() -> None:
    overrides = {"llama3.1": Price(0, 0), "gemini-2.5-pro": Price(2.0, 20.0)}
    assert estimate_cost("openai:llama3.1:8b", Usage(1000, 1000), overrides) == 0.0
    assert lookup_price("google/gemini-2.5-pro", overrides) == Price(2.0, 20.0)
    assert lookup_price("google/gemini-2.5-pro-exp", overrides) == Price(2.0, 20.0)
    assert lookup_price("openai:gpt-4.1-mini", {"gpt-4.1": Price(9, 9)}) == PRICES["gpt-4.1-mini"]


def test_price_from_mapping() -> None:
    assert price_from_mapping({"input": 1, "output": "2.5", "cached_input": 0.1}) == Price(
        1.0, 2.5, 0.1)
    bad_mappings: list[tuple[dict[str, object], str]] = [
        ({"input": 1}, "at least"),
        ({"input": 1, "output": 1, "x": 2}, "unknown"),
        ({"input": "free", "output": 1}, "numbers"),
        ({"input": -1, "output": 1}, "negative"),
    ]
    for bad, match in bad_mappings:
        with pytest.raises(ValueError, match=match):
            price_from_mapping(bad)
