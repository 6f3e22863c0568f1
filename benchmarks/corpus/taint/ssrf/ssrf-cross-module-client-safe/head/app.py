from flask import Flask, request

from client import fetch_status

app = Flask(__name__)
STATUS_URL = "https://status.example.com/api/v2/summary.json"


@app.post("/status")
def status():
    wanted = request.json.get("url", STATUS_URL)
    return {"asked": wanted, "status": fetch_status(STATUS_URL)}
