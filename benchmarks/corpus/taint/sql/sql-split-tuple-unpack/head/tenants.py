import sqlite3

from flask import Flask, abort, request

app = Flask(__name__)
TENANT_DOMAINS = ("acme.test", "globex.test")


@app.get("/tenant")
def tenant():
    user, domain = request.args["email"].split("@", 1)
    conn = sqlite3.connect("tenants.db")
    row = conn.execute("SELECT plan FROM tenants WHERE domain = '" + domain + "'").fetchone()
    return {"user": user, "plan": row[0] if row else None}
