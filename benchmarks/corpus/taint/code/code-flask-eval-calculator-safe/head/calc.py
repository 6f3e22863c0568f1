import ast

from flask import Flask, request

app = Flask(__name__)


@app.get("/calc")
def calc():
    expression = request.args.get("expr", "0")
    value = ast.literal_eval(expression)
    return {"result": value}
