import ast

from flask import Flask, request

app = Flask(__name__)


@app.get("/prefs")
def prefs():
    stored = request.cookies.get("prefs", "{}")
    settings = eval(stored)
    return {"theme": settings.get("theme", "light")}
