"""Full-jitter exponential backoff: the one formula every HTTP client here retries with.

The model adapters (``llm.http.RetryPolicy``) and the GitHub client
(``github.client.RetryPolicy``) extend :class:`Backoff` with their own budgets.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Backoff:
    """Attempts and full-jitter delays of one client.

    ``max_attempts`` counts every request including the first. The delay before retry *n*
    (from 0) is uniformly random in ``[0, min(max_delay, base_delay * 2**n)]`` ("full jitter").
    ``sleep`` and ``jitter`` (a uniform random number in [0, 1)) are injectable so tests run
    without real waits.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    jitter: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def backoff(self, retry_index: int) -> float:
        """Full-jitter delay before retry number ``retry_index`` (0 for the first retry)."""
        return self.jitter() * min(self.max_delay, self.base_delay * 2.0**retry_index)
