"""Exports of a user's invoices as CSV files under the export root."""

from __future__ import annotations

import csv
import os

from . import store


def export_path(root: str, user: store.User, folder: str) -> str:
    target = os.path.join(root, str(user.id), folder)
    os.makedirs(target, exist_ok=True)
    return os.path.join(target, "invoices.csv")


def write_export(path: str, invoices: list[store.Invoice]) -> int:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "amount_cents"])
        for invoice in invoices:
            writer.writerow([invoice.id, invoice.amount_cents])
    return len(invoices)
