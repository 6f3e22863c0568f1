import ldap
from flask import Flask, request
from ldap.filter import escape_filter_chars

app = Flask(__name__)
BASE_DN = "ou=people,dc=example,dc=com"


@app.get("/directory")
def lookup():
    uid = request.args.get("uid", "")
    conn = ldap.initialize("ldap://ldap.example.com")
    conn.simple_bind_s()
    query = f"(uid={uid})"
    results = conn.search_s(BASE_DN, ldap.SCOPE_SUBTREE, query, ["cn", "mail"])
    return {"found": len(results)}
