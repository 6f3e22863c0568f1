from flask import Flask, abort, request
from lxml import etree

app = Flask(__name__)
ACL = etree.parse("acl-v2.xml")
ROLES = ("viewer", "editor", "owner")


@app.get("/acl")
def acl():
    role = request.values.get("role", "viewer")
    perms = ACL.xpath("//role[@name='" + role + "']/permission/@name")
    return {"permissions": [str(p) for p in perms]}
