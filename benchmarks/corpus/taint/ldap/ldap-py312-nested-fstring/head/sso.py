from flask import Flask, request
from ldap3 import Connection, Server
from ldap3.utils.conv import escape_filter_chars

app = Flask(__name__)
conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


@app.get("/sso/whoami")
def whoami():
    conn.search("dc=corp", f"(userPrincipalName={request.headers.get("X-Remote-User", "")})")
    return {"entries": len(conn.entries)}
