"""Notify a user's own system when one of their invoices changes."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import httpx

from . import store


def _public_https(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return False
    for info in socket.getaddrinfo(parts.hostname, parts.port or 443):
        if not ipaddress.ip_address(info[4][0]).is_global:
            return False
    return True


def notify(user: store.User, invoice: store.Invoice, event: str) -> int | None:
    if not user.webhook_url or not _public_https(user.webhook_url):
        return None
    payload = {"event": event, "invoice": invoice.id, "amount_cents": invoice.amount_cents}
    reply = httpx.post(user.webhook_url, json=payload, timeout=5)
    return reply.status_code
