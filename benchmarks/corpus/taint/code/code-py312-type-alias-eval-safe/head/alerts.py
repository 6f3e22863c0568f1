from flask import Flask, request

app = Flask(__name__)

type Limits = dict[str, int]


def limits_for(raw: str) -> Limits:
    return {"cpu": int(raw)}


@app.get("/alerts")
def alerts():
    return limits_for(request.values.get("cpu", "80"))
