"""The counters of a usage record, summed wherever records are added up: an item's several
checks, several models, every item of a review, several shards. Kept apart from
:mod:`.usage` so the report layer can sum them without loading the provider layer."""

from __future__ import annotations

#: ``cached_tokens`` (read from a provider's prompt cache) and ``cache_write_tokens``
#: (written to it) are parts of ``input_tokens``, priced apart (:mod:`.llm.pricing`).
#: ``failed_calls`` are requests that never reached the model (no answer from the provider);
#: they are not in ``model_calls``.
USAGE_COUNTS = ("model_calls", "failed_calls", "tool_calls", "input_tokens", "output_tokens",
                "cached_tokens", "cache_write_tokens", "reasoning_tokens")
