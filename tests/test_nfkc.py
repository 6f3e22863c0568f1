"""Identifiers as Python reads them (issue 20, item 3): ``𝗽𝗶𝗰𝗸𝗹𝗲.𝗹𝗼𝗮𝗱𝘀(...)`` runs as
``pickle.loads(...)`` because Python applies NFKC to identifiers. The patterns and the taint
engine read the normalised text, and the disguise is a finding of its own."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]
RULES = {name: (bundled_rules_dir() / f"{name}.md").read_text()
         for name in ("unsafe-deserialization", "unicode-identifier-evasion")}


def bold(name: str) -> str:
    """``name`` in mathematical sans-serif bold letters (NFKC folds them back)."""
    return "".join(chr(0x1D5EE + ord(c) - ord("a")) for c in name)


def _review(pytester: pytest.Pytester) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules")


def test_a_disguised_call_on_request_data_fails_as_the_plain_one_would(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    call = f"{bold('pickle')}.{bold('loads')}(request.data)"
    review_repo(pr={"views.py": f"import pickle\n\n\ndef load(request):\n    return {call}\n"},
                rules=RULES)
    result = _review(pytester)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "views.py:5  CRITICAL  request data is deserialized with pickle" in out
    assert "views.py:5  HIGH  identifier written with characters that only NFKC" in out


def test_the_taint_engine_follows_request_data_into_a_disguised_sink(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    sink = f"{bold('pickle')}.{bold('loads')}(blob)"
    code = ("import pickle\n\n\ndef load(request):\n    blob = request.get_data()\n"
            f"    return {sink}\n")
    review_repo(pr={"views.py": code}, rules={"unsafe-deserialization":
                                               RULES["unsafe-deserialization"]})
    out = _review(pytester).stdout.str()
    assert "views.py:6  CRITICAL" in out
    assert "request.get_data()" in out or "views.py:5" in out
