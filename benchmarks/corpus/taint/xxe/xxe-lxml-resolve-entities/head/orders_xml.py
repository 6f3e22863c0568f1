from flask import Flask, request
from lxml import etree

app = Flask(__name__)


@app.post("/orders/xml")
def import_order():
    parser = etree.XMLParser(resolve_entities=True, no_network=False)
    doc = etree.fromstring(request.data, parser)
    return {"customer": doc.findtext("customer")}
