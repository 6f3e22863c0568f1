import ast

from flask import Flask, request

app = Flask(__name__)


@app.get("/prefs")
def prefs():
    raw = request.cookies.get("prefs", "{}")
    settings = ast.literal_eval(raw)
    return {"theme": settings.get("theme", "light")}
