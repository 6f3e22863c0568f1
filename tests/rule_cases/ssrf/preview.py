import urllib.request

import requests
from flask import Flask, request

app = Flask(__name__)


@app.route("/preview")
def preview():
    # ruleid: ssrf
    resp = requests.get(request.args["url"], timeout=5)
    # ok: ssrf
    status = requests.get("https://status.example.com/api", timeout=5)
    return {"length": len(resp.content), "status": status.status_code}


@app.route("/fetch")
def fetch():
    # ruleid: ssrf
    with urllib.request.urlopen(request.args["target"]) as fh:
        return fh.read()
