from flask import Flask, redirect, request

app = Flask(__name__)
LANDING = ("/dashboard", "/settings", "/inbox")


@app.post("/login")
def login():
    target = request.args.get("next", "/dashboard")
    if target not in LANDING:
        target = "/dashboard"
    return redirect(target)
