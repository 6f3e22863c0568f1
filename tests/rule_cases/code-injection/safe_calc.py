import ast
import json

OPERATIONS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b}


def calculate(op, raw):
    # ok: code-injection
    values = ast.literal_eval(raw)
    return OPERATIONS[op](*values), json.loads(raw)
