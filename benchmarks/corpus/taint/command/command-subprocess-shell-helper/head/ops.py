import subprocess

from flask import Flask, request

app = Flask(__name__)


def run_shell(command):
    done = subprocess.run(command, shell=True, capture_output=True, text=True)
    return done.stdout


@app.post("/firewall/open")
def open_port():
    port = request.json["port"]
    out = run_shell("ufw allow " + str(port))
    return {"output": out}
