import requests
from flask import Flask, abort, request

app = Flask(__name__)
FEEDS = {"https://status.example.com/feed", "https://blog.example.com/rss"}


@app.get("/preview")
def preview():
    url = request.args["url"]
    if url not in FEEDS:
        abort(400)
    resp = requests.get(url, timeout=5)
    return {"status": resp.status_code, "length": len(resp.content)}
