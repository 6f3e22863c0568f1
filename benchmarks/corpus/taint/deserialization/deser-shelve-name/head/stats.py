import shelve

from flask import Flask, abort, request

app = Flask(__name__)
SHELVES = ("daily", "weekly")


@app.get("/stats")
def stats():
    name = request.args.get("db", "daily")
    with shelve.open("/var/lib/stats/" + name) as db:
        return {"total": db.get("total", 0)}
