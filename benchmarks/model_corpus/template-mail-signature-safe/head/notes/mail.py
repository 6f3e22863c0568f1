"""E-mails sent to a user's customers, with the user's signature at the end."""

from __future__ import annotations

import jinja2

from . import store

_ENV = jinja2.Environment(autoescape=True)
_BODY = _ENV.from_string(
    "Dear customer,\n\nyour invoice {{ invoice.id }} of {{ amount }} is attached.\n\n")
_SIGNATURE = _ENV.from_string("--\n{{ signature }}\n")


def invoice_mail(user: store.User, invoice: store.Invoice) -> str:
    amount = f"{invoice.amount_cents / 100:.2f}"
    body = _BODY.render(invoice=invoice, amount=amount)
    signature = _SIGNATURE.render(signature=user.signature)
    return body + signature
