from flask import Flask, request

from repo import load_profile

app = Flask(__name__)


@app.get("/profile")
def profile():
    token = request.cookies.get("session_token", "")
    return load_profile(token) or ({"error": "not found"}, 404)
