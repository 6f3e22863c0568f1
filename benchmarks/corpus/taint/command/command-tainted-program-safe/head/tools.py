import subprocess

from flask import Flask, abort, request

app = Flask(__name__)
TOOLS = {"disk": "/usr/bin/df", "uptime": "/usr/bin/uptime"}


@app.get("/tool")
def tool():
    program = request.args["tool"]
    if program not in TOOLS.values():
        abort(404)
    output = subprocess.check_output([program, "-h"], timeout=5)
    return output.decode()
