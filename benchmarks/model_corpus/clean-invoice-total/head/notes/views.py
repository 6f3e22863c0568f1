"""The JSON API: invoices of the signed-in user."""

from __future__ import annotations

from flask import Blueprint, abort, g, request

from . import store
from .auth import signed_in

bp = Blueprint("views", __name__)


def _as_json(invoice: store.Invoice) -> dict:
    return {"id": invoice.id, "amount_cents": invoice.amount_cents, "lines": invoice.lines}


@bp.get("/invoices")
@signed_in
def list_invoices():
    page = int(request.args.get("page", 1))
    mine = store.invoices_of(g.user.id)
    return {"invoices": [_as_json(i) for i in mine[(page - 1) * 20:page * 20]]}


@bp.get("/invoices/<int:invoice_id>")
@signed_in
def show_invoice(invoice_id: int):
    invoice = store.invoice(invoice_id)
    if invoice is None or invoice.owner_id != g.user.id:
        abort(404)
    return _as_json(invoice)


@bp.get("/invoices/total")
@signed_in
def invoices_total():
    return {"total_cents": store.total_cents(g.user.id)}
