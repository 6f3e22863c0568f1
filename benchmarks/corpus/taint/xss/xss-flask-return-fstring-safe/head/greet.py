import html

from flask import Flask, request

app = Flask(__name__)


@app.get("/hello")
def hello():
    name = request.args.get("name", "stranger")
    shown = html.escape(name)
    return f"<h1>Hello, {shown}!</h1>"
