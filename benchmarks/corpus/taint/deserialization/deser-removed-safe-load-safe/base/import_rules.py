import yaml
from flask import Flask, request

app = Flask(__name__)
MAX_BYTES = 32768


@app.post("/rules/import")
def import_rules():
    upload = request.files["rules"]
    text = upload.read(MAX_BYTES).decode()
    rules = yaml.safe_load(text)
    return {"count": len(rules)}
