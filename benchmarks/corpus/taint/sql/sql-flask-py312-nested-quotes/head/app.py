import sqlite3

from flask import Flask, request

app = Flask(__name__)
CONFIG = {"table": "audit_log"}


@app.get("/audit")
def audit():
    cur = sqlite3.connect("audit.db").cursor()
    cur.execute(f"SELECT * FROM {CONFIG["table"]} WHERE actor = '{request.args["actor"]}'")
    return {"events": cur.fetchall()}
