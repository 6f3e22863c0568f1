import requests
from flask import Flask, request

app = Flask(__name__)
KNOWN = {"https://a.mirror.example", "https://b.mirror.example"}


@app.post("/mirrors/check")
def check_mirrors():
    targets = []
    for value in request.form.getlist("mirror"):
        targets.append(value)
    alive = []
    for target in targets:
        if requests.head(target, timeout=3).ok:
            alive.append(target)
    return {"alive": alive}
