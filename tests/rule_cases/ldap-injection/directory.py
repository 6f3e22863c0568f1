import ldap
from flask import request
from ldap.filter import escape_filter_chars


def find_user(conn):
    name = request.args["user"]
    # match: ldap-injection
    conn.search_s("dc=example,dc=com", ldap.SCOPE_SUBTREE, "(uid=" + name + ")")
    safe = escape_filter_chars(name)
    return conn.search_s("dc=example,dc=com", ldap.SCOPE_SUBTREE, f"(uid={safe})")
