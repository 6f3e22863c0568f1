"""Notify a user's own system when one of their invoices changes."""

from __future__ import annotations

import httpx

from . import store


def notify(user: store.User, invoice: store.Invoice, event: str) -> int | None:
    if not user.webhook_url:
        return None
    payload = {"event": event, "invoice": invoice.id, "amount_cents": invoice.amount_cents}
    reply = httpx.post(user.webhook_url, json=payload, timeout=5)
    return reply.status_code
