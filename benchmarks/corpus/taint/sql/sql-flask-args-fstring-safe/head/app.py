import sqlite3

from flask import Flask, jsonify, request

app = Flask(__name__)


def db():
    return sqlite3.connect("users.db")


@app.route("/users")
def find_users():
    name = request.args.get("name", "")
    cur = db().cursor()
    cur.execute("SELECT id, email FROM users WHERE name = ?", (name,))
    rows = cur.fetchall()
    return jsonify([{"id": r[0], "email": r[1]} for r in rows])
