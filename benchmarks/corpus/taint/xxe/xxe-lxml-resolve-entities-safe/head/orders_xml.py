from flask import Flask, request
from lxml import etree

app = Flask(__name__)


@app.post("/orders/xml")
def import_order():
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    doc = etree.fromstring(request.data, parser)
    return {"customer": doc.findtext("customer")}
