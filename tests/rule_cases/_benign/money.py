"""Ordinary application code: no rule may create an item for this change."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from decimal import Decimal

log = logging.getLogger(__name__)
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.amount + other.amount, self.currency)

    def format(self) -> str:
        return f"{self.amount:.2f} {self.currency}"


def slugify(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def total(items: list[Money]) -> Money:
    if not items:
        raise ValueError("no items")
    result = items[0]
    for item in items[1:]:
        result = result + item
    log.debug("total of %d items: %s", len(items), result.format())
    return result


def read_changelog(path: str) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [line.rstrip() for line in fh]
