from flask import Flask, redirect, request

app = Flask(__name__)
SITES = {"default": "https://www.example.com"}


@app.get("/switch")
def switch():
    return redirect(f"{SITES["default"]}/home")
