from flask import Flask, request
from lxml import etree

app = Flask(__name__)
PARSER = etree.XMLParser(load_dtd=True, resolve_entities=True)


@app.post("/invoices/validate")
def validate():
    source = request.files["invoice"]
    tree = etree.parse(source, PARSER)
    return {"root": tree.getroot().tag, "uploaded": source.filename}
