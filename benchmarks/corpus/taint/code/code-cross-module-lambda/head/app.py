from flask import Flask, abort, request

from formulas import make_scorer

app = Flask(__name__)
KNOWN = ("x * 2", "x + 10", "x ** 2")


@app.get("/score/<int:x>")
def score(x):
    expr = request.cookies.get("scorer", "x * 2")
    return {"score": make_scorer(expr)(x)}
