"""The interface between credentials and the HTTP layer.

Its own module so that :mod:`.http` (which sends requests with a credential) and :mod:`.auth`
(whose token exchanges use the shared HTTP client) do not import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

__all__ = ["Credential"]


class Credential(Protocol):
    """What the HTTP layer needs from a credential."""

    @property
    def hint(self) -> str:
        """What to check when the provider rejects the credential (names env vars, no secrets)."""
        ...

    def headers(self) -> dict[str, str]:
        """Headers that authenticate one request (may fetch or refresh a token)."""
        ...

    def refresh_after_unauthorized(self, rejected: Mapping[str, str]) -> bool:
        """Called once after a 401 with the headers that were rejected.

        Returns True when a retry with fresh ``headers()`` is worth making.
        """
        ...

    def secrets(self) -> tuple[str, ...]:
        """Secret values that must never appear in messages."""
        ...
