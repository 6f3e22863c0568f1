"""Evaluation behind constant disguises: each reads as its plain form."""

import importlib
import runpy

from flask import request


def calc(expr: str, plugin: str) -> object:
    # ruleid: code-injection
    ev = eval; ev(request.args['expr'])
    # ruleid: code-injection
    run = exec
    # ruleid: code-injection
    getattr(__import__('builtins'), 'ev' + 'al')(request.args['expr'])
    # ruleid: code-injection
    runpy.run_path(plugin)
    # ruleid: code-injection
    runpy.run_module(request.args['module'], run_name='__main__')
    # ok: code-injection
    runpy.run_module('app.tasks', run_name='__main__')
    # ok: code-injection
    ev = evaluate_rules; ev(expr)
    # ok: code-injection
    return importlib.import_module('json').loads(expr)
