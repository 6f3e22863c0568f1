import sqlite3

from flask import request


def search():
    term = request.args["q"]
    sql = "SELECT title FROM posts WHERE title LIKE '%" + term + "%'"
    conn = sqlite3.connect("blog.db")
    rows = conn.execute(sql).fetchall()
    return [r[0] for r in rows]
