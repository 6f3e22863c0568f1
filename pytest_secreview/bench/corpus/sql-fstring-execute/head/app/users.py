from flask import Flask, request

from app.db import connect

app = Flask(__name__)


@app.get("/users")
def find_users():
    name = request.args.get("name", "")
    cur = connect().cursor()
    cur.execute(f"SELECT id, email FROM users WHERE name = '{name}'")
    return {"users": cur.fetchall()}
