from flask import Flask, request
from lxml import etree

app = Flask(__name__)
PREFS = etree.parse("prefs.xml")

type Values = list[str]


def pref_values(key: str) -> Values:
    return [str(v) for v in PREFS.xpath("//pref[@key=$key]/@value", key=key)]


@app.get("/prefs")
def prefs():
    return {"values": pref_values(request.cookies.get("pref_key", "theme"))}
