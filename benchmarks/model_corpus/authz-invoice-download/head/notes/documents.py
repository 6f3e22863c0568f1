"""Invoice documents: a plain-text rendering served as a download."""

from __future__ import annotations

from . import store


def render(invoice: store.Invoice) -> bytes:
    body = "\n".join(invoice.lines)
    total = f"{invoice.amount_cents / 100:.2f}"
    return f"Invoice {invoice.id}\n\n{body}\n\nTotal: {total}\n".encode()
