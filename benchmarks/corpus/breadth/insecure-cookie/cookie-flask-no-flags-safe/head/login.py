import secrets

from flask import Flask, jsonify, request

app = Flask(__name__)
SESSIONS = {}


@app.post("/login")
def login():
    sid = secrets.token_urlsafe(32)
    SESSIONS[sid] = request.form["user"]
    resp = jsonify(ok=True)
    resp.set_cookie("sid", sid, max_age=3600, secure=True, httponly=True, samesite="Lax")
    return resp
