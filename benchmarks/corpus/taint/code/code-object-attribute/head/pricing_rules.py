from flask import Flask, request

app = Flask(__name__)


class Rule:
    expression = "1.0"


@app.get("/discount")
def discount():
    rule = Rule()
    rule.expression = request.args.get("multiplier", "1.0")
    price = 100 * eval(rule.expression)
    return {"price": price}
