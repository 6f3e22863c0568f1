import shlex
import subprocess

from flask import Flask, request

app = Flask(__name__)

type Args = list[str]


def join_args[T](parts: list[T]) -> str:
    return " ".join(str(p) for p in parts)


@app.get("/grep")
def grep():
    args: Args = ["grep", "-rn", "-e", request.args["pattern"], "/srv/logs"]
    line = join_args(args)
    result = subprocess.run(line, shell=True, capture_output=True)
    return result.stdout.decode()
