import os

from flask import Flask, request

app = Flask(__name__)
MODE = "modern"


@app.post("/deploy")
def deploy():
    tag = "stable"
    if MODE == "legacy":
        tag = request.headers.get("X-Release-Tag", "stable")
    os.system("/opt/deploy.sh " + tag)
    return {"deployed": True}
