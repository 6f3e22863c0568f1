import os
import shlex

from flask import Flask, request

app = Flask(__name__)
TIMEOUT = 60


@app.post("/scan")
def scan():
    upload = request.files["file"]
    name = shlex.quote(upload.filename)
    upload.save("/tmp/scan/upload.bin")
    code = os.system(f"timeout {TIMEOUT} clamscan /tmp/scan/upload.bin --log=/tmp/scan/{name}.log")
    return {"infected": code != 0}
