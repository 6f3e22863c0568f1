"""The taint session: which flows a pull request introduces, and files it cannot analyse."""

from __future__ import annotations

from pytest_secreview.analysis.session import MAX_FILE_BYTES, ChangedFile, TaintSession

from .taintutil import bundled_specs

BASE = b"""import os
from flask import request

def run():
    name = request.args["n"]
    if name not in ("a", "b"):
        return
    os.system("echo " + name)
"""


class Files:
    """Two revisions held in memory (the session's FileSource interface)."""

    def __init__(self, head: dict[str, bytes], base: dict[str, bytes]) -> None:
        self._head, self._base = head, base

    def head(self, path: str) -> bytes | None:
        return self._head.get(path)

    def base(self, path: str) -> bytes | None:
        return self._base.get(path)


def session(head: bytes, base: bytes | None, added: set[int]) -> TaintSession:
    files = Files({"app.py": head}, {"app.py": base} if base is not None else {})
    return TaintSession(files, bundled_specs(), [ChangedFile("app.py", None, frozenset(added))])


def test_removed_guard_makes_a_new_flow_without_an_added_line() -> None:
    head = BASE.replace(b'    if name not in ("a", "b"):\n        return\n', b"")
    flows = session(head, BASE, set()).flows("command-injection", "app.py")
    assert [(f.sink_line, f.why_new, f.severity) for f in flows] == [(6, "not at base",
                                                                      "CRITICAL")]


def test_a_flow_already_at_base_and_untouched_is_not_new() -> None:
    vulnerable = BASE.replace(b'    if name not in ("a", "b"):\n        return\n', b"")
    assert session(vulnerable, vulnerable, set()).flows("command-injection", "app.py") == []
    # ...but touching any of its steps makes it the pull request's (line 5: the source).
    flows = session(vulnerable, vulnerable, {5}).flows("command-injection", "app.py")
    assert [f.why_new for f in flows] == ["added line"]


def test_a_file_too_large_is_not_reviewed_for_the_taint_part() -> None:
    big = BASE + b"#" * MAX_FILE_BYTES
    s = session(big, None, {1})
    assert s.flows("command-injection", "app.py") == []
    assert "larger than" in (s.not_reviewed("app.py") or "")


def test_non_python_files_are_not_covered() -> None:
    files = Files({"a.js": b"eval(x)"}, {})
    s = TaintSession(files, bundled_specs(), [ChangedFile("a.js", None, frozenset({1}))])
    assert not s.covers("a.js") and s.not_reviewed("a.js") is None


def test_code_nested_too_deeply_is_not_reviewed_never_a_crash() -> None:
    deep = b"import os\nx = " + b"[" * 5000 + b"1" + b"]" * 5000 + b"\nos.system(x)\n"
    s = session(deep, None, {1, 2, 3})
    assert s.flows("command-injection", "app.py") == []
    assert "taint analysis" in (s.not_reviewed("app.py") or "")
