"""The parser front end: newer grammar under this interpreter, broken code, arbitrary code."""

from __future__ import annotations

import ast
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_secreview.analysis.parse import parse_module

from .taintutil import analyse, sinks

PY312 = '''
from flask import request
import os

type Command = str

def run[T](value: T) -> T:
    os.system(f"echo {request.args["name"]}")
    return value

def nested():
    os.system(f"{f"{request.args['a']}"}")
'''


def test_python_312_syntax_is_analysed_under_any_interpreter() -> None:
    if sys.version_info < (3, 12):
        # What the interpreter running the review cannot read, the engine can.
        with pytest.raises(SyntaxError):
            ast.parse(PY312)
    assert sinks(PY312, "command-injection") == {8, 12}


def test_a_broken_function_does_not_lose_the_rest_of_the_file() -> None:
    code = '''
from flask import request
import os

def broken(:
    os.system(request.args["x"]

def fine():
    os.system(request.args["y"])
'''
    assert parse_module(code.encode()).errors > 0
    assert 9 in sinks(code, "command-injection")


def test_an_unparseable_byte_soup_yields_no_flow_and_no_crash() -> None:
    assert analyse({"app.py": "\x00\xff def ((( ]]] " * 50}) == []


_PY_TOKENS = st.sampled_from([
    "x", "request.args['a']", "os.system(", "eval(", ")", "(", "[", "]", "{", "}", ":", "=",
    "+", "%", "f'{x}'", "'s'", "1", "if ", "else", "for y in ", "return ", "def f(a):",
    "class C:", "self.v", "\n", "\n    ", "lambda: ", "*", "**", ",", ".", "not ", " in ",
    "with open(x) as h:", "try:", "except E as e:", "yield ", "await ", "async ", "match x:",
    "case 1:", "import os", "from m import n", "global g", "del x", "assert x", "...",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PY_TOKENS, max_size=60).map("".join))
def test_engine_never_raises_on_arbitrary_code(code: str) -> None:
    analyse({"app.py": code})


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_engine_never_raises_on_arbitrary_text(code: str) -> None:
    analyse({"app.py": code})
