from flask import Flask, redirect, request

app = Flask(__name__)
LANDING = ("/dashboard", "/settings", "/inbox")


@app.post("/login")
def login():
    target = request.args.get("next", "/dashboard")
    # credentials checked elsewhere
    return redirect(target)
