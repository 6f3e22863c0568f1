import urllib.request

from flask import Flask, request

app = Flask(__name__)


@app.post("/webhooks/test")
def test_webhook():
    config = request.get_json()
    target = "https://hooks.example.com/test"
    with urllib.request.urlopen(target, timeout=5) as reply:
        code = reply.status
    return {"callback": config["callback"], "status": code}
