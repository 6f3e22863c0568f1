import hashlib
import hmac
import os

from flask import Flask, abort, request

app = Flask(__name__)
WEBHOOK_SECRET = os.environ["WEBHOOK_SECRET"].encode()


@app.post("/hooks/billing")
def billing_hook():
    body = request.get_data()
    signature = hmac.new(WEBHOOK_SECRET, body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature, request.headers.get("X-Signature", "")):
        abort(401)
    return {"ok": True}
