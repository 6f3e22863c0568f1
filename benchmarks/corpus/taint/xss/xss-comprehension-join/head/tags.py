from flask import Flask, make_response, request
from markupsafe import escape

app = Flask(__name__)


@app.get("/tags")
def tags():
    chosen = request.args.getlist("tag")
    items = [f"<li>{t}</li>" for t in chosen]
    page = "<ul>" + "".join(items) + "</ul>"
    return make_response(page)
