"""Disguised sinks through the real plugin, with no model, in a real git repository: each
constant disguise of a sink fed by request data (a constant import or attribute look-up, an
alias of ``eval``, a shell argument vector, ``runpy``) and each split, encoded or reversed
cloud key fails the run at the default threshold on its own added line, under the plain
form's rule; each safe twin passes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest

from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]

#: (rule, line): each line is reported, CRITICAL, on the line itself.
DISGUISED = [
    ("command-injection", "getattr(__import__('os'), 'system')(cmd)"),
    ("command-injection", "__import__('o' + 's').system(cmd)"),
    ("command-injection", "subprocess.run(['sh', '-c', cmd])"),
    ("command-injection", "subprocess.run(['bash', '-c', cmd], check=True)"),
    ("command-injection", "subprocess.run(['cmd', '/c', cmd])"),
    ("code-injection", "ev(cmd)"),
    ("code-injection", "runpy.run_path(cmd)"),
    ("code-injection", "runpy.run_module(cmd)"),
    ("unsafe-deserialization", "importlib.import_module('pickle').loads(cmd)"),
]
SAFE_TWINS = [
    "getattr(os, 'getcwd')()",
    "subprocess.run(['ls', '-l', cmd], check=True)",
    "importlib.import_module('json').loads(cmd)",
    "runpy.run_module('app.tasks', run_name='__main__')",
    "ln = len; ln(cmd)",
]
HEADER = ["import importlib", "import os", "import runpy", "import subprocess", "",
          "from flask import request", "", "ev = eval", "", "", "def view():",
          "    cmd = request.args['c']"]


def _view(lines: list[str]) -> str:
    return "\n".join([*HEADER, *(f"    {line}" for line in lines)]) + "\n"


def _keys() -> tuple[str, list[str]]:
    key = aws_key_id()
    return key, [
        f"SPLIT = '{key[:4]}' '{key[4:]}'",
        f"JOINED = '{key[:4]}' + '{key[4:]}'",
        f"ENCODED = base64.b64decode('{base64.b64encode(key.encode()).decode()}').decode()",
        f"HEXED = bytes.fromhex('{key.encode().hex()}').decode()",
        f"REVERSED = '{key[::-1]}'[::-1]",
    ]


def _review(pytester: pytest.Pytester) -> tuple[pytest.RunResult, list[dict[str, object]]]:
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider")
    summary = pytester.path / "secreview-artifacts" / "report" / "summary.json"
    return result, json.loads(summary.read_text())["findings"]


def test_disguised_sinks_and_keys_fail_the_run_on_their_own_lines(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    _, key_lines = _keys()
    review_repo(pr={"app/views.py": _view([line for _, line in DISGUISED]),
                    "app/keys.py": "import base64\n\n" + "\n".join(key_lines) + "\n"})
    result, findings = _review(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    found = {(f["path"], f["line"], f["rule"], f["severity"]) for f in findings}
    first = len(HEADER) + 1
    for offset, (rule, line) in enumerate(DISGUISED):
        assert ("app/views.py", first + offset, rule, "CRITICAL") in found, (line, found)
    for number in range(3, 3 + len(key_lines)):
        assert ("app/keys.py", number, "hardcoded-secrets", "CRITICAL") in found, (
            key_lines[number - 3], found)


def test_the_safe_twins_pass(pytester: pytest.Pytester, review_repo: Build) -> None:
    prose = base64.b64encode(b"hello from the build server").decode()
    token = base64.b64encode(b"release-channel-stable").decode()
    review_repo(pr={"app/views.py": _view(SAFE_TWINS),
                    "app/keys.py": f"GREETING = '{prose}'\nCHANNEL = '{token}'\n"
                                   "PREFIX = 'AK' + 'IA'\n"})
    result, findings = _review(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    # Bandit's own low findings (a subprocess import, a program by name) are no rule's.
    ours = [f for f in findings if f["path"] in ("app/views.py", "app/keys.py")
            and not str(f["rule"]).startswith("scanner-")]
    assert not ours, ours
