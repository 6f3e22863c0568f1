from flask import Flask, request
from markupsafe import Markup, escape

app = Flask(__name__)


def render_comment(text):
    return Markup(f"<div class='comment'>{escape(text)}</div>")


@app.post("/comments/preview")
def comment_preview():
    body = request.json["comment"]
    return str(render_comment(body))
