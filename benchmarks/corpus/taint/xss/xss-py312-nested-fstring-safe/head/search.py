from flask import Flask, request
from markupsafe import escape

app = Flask(__name__)


@app.get("/find")
def find():
    return f"<p>No results for {escape(request.args.get("q", ""))}</p>"
