import sqlite3

from flask import request


def search():
    term = request.args["q"]
    conn = sqlite3.connect("blog.db")
    rows = conn.execute("SELECT title FROM posts WHERE title LIKE ?", (f"%{term}%",))
    return [r[0] for r in rows.fetchall()]
