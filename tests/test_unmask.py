"""The plain form of a disguised line (``pytest_secreview.unmask``): each disguise reads as the
call or literal Python runs, and its safe twin reads as written."""

from __future__ import annotations

import base64

import pytest

from pytest_secreview.textnorm import readings, variants
from pytest_secreview.unmask import MAX_LINE, unmask

from .conftest import aws_key_id

DISGUISED = [
    ("getattr(__import__('os'), 'system')(cmd)", "os.system(cmd)"),
    ("__import__('o' + 's').system(cmd)", "os.system(cmd)"),
    ("getattr(importlib.import_module('o' 's'), 'po' + 'pen')(cmd)", "os.popen(cmd)"),
    ("importlib.import_module('pickle').loads(data)", "pickle.loads(data)"),
    ("getattr(__import__('builtins'), 'ev' + 'al')(x)", "eval(x)"),
    ("ev = eval; ev(x)", "ev = eval; eval(x)"),
    ("subprocess.run(['sh', '-c', cmd])", "subprocess.run(cmd, shell=True)"),
    ("subprocess.run(['/bin/bash', '-c', 'ls ' + request.args['d']])",
     "subprocess.run('ls ' + request.args['d'], shell=True)"),
    ("subprocess.run(['cmd', '/c', cmd])", "subprocess.run(cmd, shell=True)"),
]
SAFE = [
    "getattr(obj, 'name')()",
    "subprocess.run(['ls', '-l', path])",
    "subprocess.run(['sh', 'scripts/build.sh'])",
    "print('a', 'b')",
    "x = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'",
    "x = '" + base64.b64encode(b"hello from the build server").decode() + "'",
    "value = compute(a + b)",
]


@pytest.mark.parametrize(("text", "plain"), DISGUISED)
def test_a_disguise_reads_as_its_plain_form(text: str, plain: str) -> None:
    assert unmask(text) == plain
    assert plain in readings(text)


@pytest.mark.parametrize("text", SAFE)
def test_a_safe_twin_reads_as_written(text: str) -> None:
    plain = unmask(text)
    assert "shell=True" not in plain and "os." not in plain and "eval(" not in plain
    if "getattr(obj" not in text and "print(" not in text:
        assert plain == text


def _key_forms(key: str) -> list[str]:
    return [
        f"K = '{key[:4]}' '{key[4:]}'",
        f'K = "{key[:4]}" + "{key[4:]}"',
        f"K = base64.b64decode('{base64.b64encode(key.encode()).decode()}').decode()",
        f"K = bytes.fromhex('{key.encode().hex()}').decode()",
        f"K = '{key[::-1]}'[::-1]",
        f"K = ''.join(reversed('{key[::-1]}'))",
    ]


@pytest.mark.parametrize("index", range(6))
def test_a_split_encoded_or_reversed_key_reads_as_the_key(index: int) -> None:
    key = aws_key_id()
    text = _key_forms(key)[index]
    assert key not in text
    assert key in unmask(text)


def test_a_line_without_a_disguise_is_the_same_object() -> None:
    text = "total = price * quantity"
    assert unmask(text) is text
    assert variants([text]) == [text]


def test_a_line_longer_than_the_limit_is_read_as_written() -> None:
    # Minified code and data lines: the raw and NFKC readings apply, the folding does not.
    text = "x = '" + "a" * MAX_LINE + "' + 'b'"
    assert unmask(text) is text
