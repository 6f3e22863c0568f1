import os
import shlex

from flask import Flask, request

app = Flask(__name__)


@app.get("/ping")
def ping():
    host = request.args.get("host", "localhost")
    target = shlex.quote(host)
    status = os.system(f"ping -c 1 -W 2 {target}")
    return {"reachable": status == 0}
