import html

from flask import Flask, request

app = Flask(__name__)


@app.post("/widget")
def widget():
    label = request.form.get("label", "")
    safe_label = html.escape(label)
    return "<span class='tag'>" + safe_label + "</span>"
