from flask import request


def calculate():
    # ruleid: code-injection
    result = eval(request.args["expr"])
    # ruleid: code-injection
    exec(request.form.get("snippet"))
    # match: code-injection
    value = eval(build_expression(request.args))
    # ok: code-injection
    total = eval("1 + 2")
    return result, value, total
