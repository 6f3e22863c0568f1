"""Approximate prices, so reports can show what a review cost.

Prices are USD per one million tokens. The table holds *approximate public list prices* at the
time of writing (standard tier, short prompts, no batch or provisioned-throughput discounts; Vertex
AI and the vendors' own APIs may differ slightly). They are estimates for reports, not invoices.
An unknown model has no price: :func:`estimate_cost` returns None so a report says "unknown"
rather than "$0".

Overrides have this shape (the ini key that feeds it is parsed by the options layer)::

    {"gemini-2.5-pro": Price(input=1.25, output=10.0, cached_input=0.125),
     "llama3.1": Price(input=0, output=0)}            # a free local model

keyed, like the table, by a model-id *prefix* matched after the route is stripped
(``google/``, ``openai:`` ...); the longest matching prefix wins and overrides win ties.
:func:`price_from_mapping` turns ``{"input": 1.25, "output": 10, "cached_input": 0.125}`` into a
:class:`Price`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .messages import Usage


@dataclass(frozen=True)
class Price:
    """USD per one million tokens. ``cached_input`` None bills cached tokens as input;
    ``cache_write`` None bills cache writes as input."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None


def _claude(input_price: float, output_price: float) -> Price:
    # Anthropic: cache reads cost 10% of input, 5-minute cache writes 125%.
    return Price(input_price, output_price, input_price * 0.1, input_price * 1.25)


PRICES: Mapping[str, Price] = {
    # Google Gemini (prompts up to 200k tokens; longer prompts cost more)
    "gemini-3-pro": Price(2.00, 12.00, 0.20),
    "gemini-2.5-pro": Price(1.25, 10.00, 0.125),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03),
    "gemini-2.5-flash-lite": Price(0.10, 0.40, 0.01),
    "gemini-2.0-flash": Price(0.15, 0.60, 0.025),
    "gemini-2.0-flash-lite": Price(0.075, 0.30),
    # Anthropic Claude (API ids like claude-sonnet-4-5-20250929, Vertex ids like
    # claude-sonnet-4-5@20250929 share these prefixes)
    "claude-opus-4-5": _claude(5.00, 25.00),
    "claude-opus-4-1": _claude(15.00, 75.00),
    "claude-opus-4": _claude(15.00, 75.00),
    "claude-sonnet-4": _claude(3.00, 15.00),
    "claude-haiku-4": _claude(1.00, 5.00),
    "claude-3-7-sonnet": _claude(3.00, 15.00),
    "claude-3-5-sonnet": _claude(3.00, 15.00),
    "claude-3-5-haiku": _claude(0.80, 4.00),
    # OpenAI
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "o3": Price(2.00, 8.00, 0.50),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    # Model Garden MaaS on Vertex AI and other open-weight hosts
    "kimi-k2": Price(0.60, 2.50, 0.15),
    "mistral-large": Price(2.00, 6.00),
    "mistral-medium": Price(0.40, 2.00),
    "mistral-small": Price(0.10, 0.30),
    "codestral": Price(0.30, 0.90),
    "llama-4-maverick": Price(0.35, 1.15),
    "llama-4-scout": Price(0.25, 0.70),
    "llama-3.3-70b": Price(0.72, 0.72),
    "llama-3.1-405b": Price(5.00, 16.00),
    "deepseek-v3": Price(0.60, 1.70),
    "deepseek-r1": Price(1.35, 5.40),
    "qwen3-coder": Price(1.00, 4.00),
    "qwen3-235b": Price(0.22, 0.88),
}


def normalize_model_id(model_id: str) -> str:
    """Strip the route (``openai:``, ``google/`` ...) and lower-case what is left."""
    name = model_id.strip().lower()
    for prefix in ("openai:", "anthropic:", "gemini:"):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    # "publisher/model" (Vertex) and "org/model" (Hugging Face names on vLLM) both end in the
    # model's own name.
    return name.rsplit("/", 1)[-1]


def lookup_price(model_id: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price for ``model_id`` by longest prefix match, overrides first; None when unknown."""
    name = normalize_model_id(model_id)
    best: tuple[int, int, Price] | None = None
    for rank, table in enumerate((PRICES, overrides or {})):
        for prefix, price in table.items():
            key = normalize_model_id(prefix)
            if name.startswith(key):
                candidate = (len(key), rank, price)
                if best is None or candidate[:2] > best[:2]:
                    best = candidate
    return best[2] if best else None


def estimate_cost(
    model_id: str, usage: Usage, overrides: Mapping[str, Price] | None = None
) -> float | None:
    """Estimated USD cost of ``usage`` on ``model_id``; None when the model's price is unknown."""
    price = lookup_price(model_id, overrides)
    if price is None:
        return None
    cached = min(usage.cached_tokens, usage.input_tokens)
    written = min(usage.cache_write_tokens, usage.input_tokens - cached)
    uncached = usage.input_tokens - cached - written
    cached_price = price.input if price.cached_input is None else price.cached_input
    write_price = price.input if price.cache_write is None else price.cache_write
    total = (
        uncached * price.input
        + cached * cached_price
        + written * write_price
        + usage.output_tokens * price.output
    )
    return total / 1_000_000


def price_from_mapping(values: Mapping[str, object]) -> Price:
    """A :class:`Price` from ``{"input": .., "output": .., "cached_input": .., "cache_write": ..}``.

    Raises ValueError naming the problem (for the options layer to turn into a usage error).
    """
    unknown = set(values) - {"input", "output", "cached_input", "cache_write"}
    if unknown:
        raise ValueError(f"unknown price keys {sorted(unknown)}; use input, output, "
                         "cached_input, cache_write")
    try:
        numbers = {key: _number(value) for key, value in values.items()}
    except ValueError:
        raise ValueError("prices must be numbers (USD per million tokens)") from None
    if "input" not in numbers or "output" not in numbers:
        raise ValueError("a price needs at least 'input' and 'output' (USD per million tokens)")
    if any(value < 0 for value in numbers.values()):
        raise ValueError("prices cannot be negative")
    return Price(
        input=numbers["input"],
        output=numbers["output"],
        cached_input=numbers.get("cached_input"),
        cache_write=numbers.get("cache_write"),
    )


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(value)
    return float(value)
