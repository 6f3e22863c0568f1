import sqlite3

from flask import Flask, abort, request

app = Flask(__name__)
SORTABLE = ("name", "created", "size")


class Repository[T]:
    def __init__(self, table: str) -> None:
        self.table = table
        self.conn = sqlite3.connect("files.db")

    def all_sorted(self, column: str) -> list[T]:
        return self.conn.execute(f"SELECT * FROM {self.table} ORDER BY {column}").fetchall()


@app.get("/files")
def files():
    column = request.args.get("sort", "name")
    if column not in SORTABLE:
        abort(400)
    return {"files": Repository[tuple]("files").all_sorted(column)}
