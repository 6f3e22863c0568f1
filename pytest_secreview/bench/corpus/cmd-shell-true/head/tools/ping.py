import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.post("/ping")
def ping():
    host = request.form["host"]
    out = subprocess.run(f"ping -c 1 {host}", shell=True, capture_output=True)
    return out.stdout
