from flask import Flask, request
from lxml import etree

app = Flask(__name__)
TREE = etree.parse("users.xml")


@app.get("/users/email")
def email():
    name = request.args.get("name", "")
    found = TREE.xpath(f"//user[@name='{name}']/email/text()")
    return {"email": found[0] if found else None}
