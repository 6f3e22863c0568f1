import ast
import sys

from flask import request


def calculate():
    expr = request.args["expr"]
    # ruleid: code-injection
    result = eval(request.args["expr"])
    # match: code-injection
    exec(expr)
    # ok: code-injection
    value = ast.literal_eval(expr)
    # ruleid: code-injection
    eval(f"{sys.argv[1]} + 1")
    return str(result) + str(value)
