import sqlite3

from flask import Flask, abort, request

app = Flask(__name__)
DIRECTIONS = ("ASC", "DESC")


@app.get("/listing")
def listing_page():
    direction = request.values.get("dir", "ASC")
    conn = sqlite3.connect("shop.db")
    rows = conn.execute("SELECT * FROM products ORDER BY price " + direction)
    return {"rows": rows.fetchall()}
