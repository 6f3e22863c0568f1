import html

from flask import Flask, request

app = Flask(__name__)


@app.post("/widget")
def widget():
    label = request.form.get("label", "")
    safe_label = label
    return "<span class='badge'>" + safe_label + "</span>"
