from flask import request
from lxml import etree

TREE = etree.parse("catalog.xml")


def lookup():
    name = request.args["name"]
    # match: xpath-injection
    found = TREE.xpath("//book[@title='" + name + "']")
    bound = TREE.xpath("//book[@title=$name]", name=name)
    return str(len(found) + len(bound))
