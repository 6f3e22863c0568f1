import ast
import json

from flask import request


def parse_settings():
    # ok: code-injection
    settings = ast.literal_eval(request.args["settings"])
    # ok: code-injection
    payload = json.loads(request.data)
    return settings, payload
