import ldap
from flask import Flask, request
from ldap.filter import escape_filter_chars

app = Flask(__name__)
ATTRS = ["dn", "cn", "memberOf"]


@app.post("/ldap-login")
def ldap_login():
    user = escape_filter_chars(request.form["username"])
    conn = ldap.initialize("ldap://ldap.example.com")
    entries = conn.search_s("dc=example,dc=com", ldap.SCOPE_SUBTREE, f"(sAMAccountName={user})", ATTRS)
    return {"known": bool(entries)}
