import subprocess

from flask import Flask, request

app = Flask(__name__)


@app.post("/ping")
def ping():
    host = request.form["host"]
    out = subprocess.run(["ping", "-c", "1", "--", host], capture_output=True, check=False)
    return out.stdout
