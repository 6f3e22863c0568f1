"""The taint engine through constant disguises of a sink: a constant import, attribute look-up
or alias reaches the plain name's sinks, a shell argument vector is a shell command line, and
each safe twin (a harmless constant name, an argument list without a shell) reaches none. A
line marked ``# VULN`` must be a sink of the case's rule; no other line may be one."""

from __future__ import annotations

import pytest

from .taintutil import marked, sinks

FLASK = "import importlib, os, runpy, subprocess\nfrom flask import request\n"

CASES: list[tuple[str, str, str]] = [
    ("getattr-of-a-constant-import", "command-injection", FLASK + """
def view():
    cmd = request.args["c"]
    getattr(__import__('os'), 'system')(cmd)  # VULN
    getattr(os, 'getcwd')(cmd)
"""),
    ("import-of-a-concatenated-name", "command-injection", FLASK + """
def view():
    cmd = request.args["c"]
    name = 'o' + 's'
    __import__(name).system(cmd)  # VULN
    __import__('o' 's').popen(cmd)  # VULN
    __import__('sh' + 'util').which(cmd)
"""),
    ("a-local-alias-of-eval", "code-injection", FLASK + """
def view():
    ev = eval
    ev(request.args["x"])  # VULN
    ev = len
    ev(request.args["x"])
    ev = eval
    ev = handlers = {}
    ev(request.args["x"])
"""),
    ("a-module-alias-survives-an-optional-import", "unsafe-deserialization", FLASK + """
try:
    import yaml
except ImportError:
    yaml = None
codec = __import__('pickle')
def view():
    codec.loads(request.data)  # VULN
    yaml.load(request.data)  # VULN
"""),
    ("a-module-alias-of-exec-and-of-a-sink", "code-injection", FLASK + """
run = exec
also = compile
def view():
    run(request.form["code"])  # VULN
    also(request.form["code"], "<x>", "exec")  # VULN
    print(request.form["code"])
"""),
    ("shell-through-an-argument-vector", "command-injection", FLASK + """
def view():
    cmd = request.args["c"]
    subprocess.run(['sh', '-c', cmd])  # VULN
    subprocess.run(['/bin/bash', '-c', 'ls ' + cmd], check=True)  # VULN
    subprocess.check_output(['cmd', '/c', cmd])  # VULN
    subprocess.run(['ls', '-l', cmd])
    subprocess.run(['sh', 'build.sh', cmd])
"""),
    ("import-module-of-a-deserializer", "unsafe-deserialization", FLASK + """
def view():
    data = request.get_data()
    importlib.import_module('pickle').loads(data)  # VULN
    codec = importlib.import_module('mar' + 'shal')
    codec.loads(data)  # VULN
    importlib.import_module('json').loads(data)
"""),
    ("runpy-of-a-payload", "code-injection", FLASK + """
def view():
    target = request.args["plugin"]
    runpy.run_path(target)  # VULN
    runpy.run_module(target, run_name="__main__")  # VULN
    runpy.run_module("app.tasks", run_name="__main__")
"""),
]


@pytest.mark.parametrize(("name", "rule", "code"), CASES, ids=[c[0] for c in CASES])
def test_a_disguised_sink_is_the_plain_sink(name: str, rule: str, code: str) -> None:
    assert sinks(code, rule) == marked(code)
