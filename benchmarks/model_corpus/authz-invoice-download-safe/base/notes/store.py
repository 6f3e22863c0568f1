"""In-memory storage for users, notes and invoices (a database in production)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class User:
    id: int
    name: str
    password_hash: str
    failed_logins: int = 0
    locked: bool = False
    signature: str = ""
    webhook_url: str = ""


@dataclass
class Invoice:
    id: int
    owner_id: int
    amount_cents: int
    lines: list[str] = field(default_factory=list)


USERS: dict[int, User] = {}
INVOICES: dict[int, Invoice] = {}


def user_by_name(name: str) -> User | None:
    return next((u for u in USERS.values() if u.name == name), None)


def invoice(invoice_id: int) -> Invoice | None:
    return INVOICES.get(invoice_id)


def invoices_of(user_id: int) -> list[Invoice]:
    return [i for i in INVOICES.values() if i.owner_id == user_id]
