import sqlite3

from flask import Flask, request

app = Flask(__name__)
SORTABLE = {"created", "amount", "customer"}


def order_clause(column):
    return " ORDER BY " + column


@app.get("/reports")
def reports():
    column = request.headers.get("X-Sort", "created")
    if column not in SORTABLE:
        column = "created"
    sql = "SELECT * FROM invoices" + order_clause(column)
    conn = sqlite3.connect("billing.db")
    rows = conn.execute(sql).fetchall()
    return {"rows": rows}
