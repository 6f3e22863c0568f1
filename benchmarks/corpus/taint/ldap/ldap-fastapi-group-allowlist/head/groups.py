from fastapi import FastAPI, HTTPException
from ldap3 import Connection, Server

app = FastAPI()
GROUPS = ("admins", "developers", "support")
conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


@app.get("/groups/{group}/members")
def members(group: str):
    search_filter = "(&(objectClass=groupOfNames)(cn={}))".format(group)
    conn.search("ou=groups,dc=corp", search_filter, attributes=["member"])
    return {"members": [str(e.member) for e in conn.entries]}
