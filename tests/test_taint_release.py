"""The taint engine parses each module when the analysis reaches it and releases it after its
turn: calls into a released module still resolve (to its functions' summaries), and the
parsed code held at once does not grow with the number of modules."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_secreview.analysis import ir
from pytest_secreview.analysis.parse import parse_module
from pytest_secreview.analysis.project import Project
from pytest_secreview.analysis.values import Hit

from .gitutil import GitRepo
from .taintutil import catalogue

HELPER = """
import subprocess
def run(cmd):
    return subprocess.check_output(cmd, shell=True)
"""
VIEW = """
from flask import request
from tools.shell import run
def view():
    return run("grep " + request.args["q"])
"""
PLAIN = """
import os
def handler(name):
    return os.path.join("/srv", name)
"""


def _lazy(files: dict[str, str]) -> tuple[list[Hit], list[int], list[str]]:
    """Hits of a lazily parsing project over ``files`` (in that order), the number of
    parsed modules held each time one more is parsed, and the order they were parsed in."""
    held: list[int] = []
    parsed: list[str] = []
    project: Project

    def load(path: str) -> ir.Module | None:
        held.append(len(project.modules))
        parsed.append(path)
        return parse_module(textwrap.dedent(files[path]).encode())

    project = Project(catalogue(), paths=list(files), load=load)
    hits = project.analyse()
    assert not project.modules, "every module is released after its turn"
    return hits, held, parsed


def _found(hits: list[Hit]) -> set[tuple[str, str, int, str]]:
    return {(h.rule, h.sink_path, h.sink_line, h.trace.steps[0].path) for h in hits}


@pytest.mark.parametrize("order", [("app.py", "tools/shell.py"), ("tools/shell.py", "app.py")])
def test_a_call_into_a_module_resolves_before_and_after_its_release(
        order: tuple[str, str]) -> None:
    files = {"app.py": VIEW, "tools/shell.py": HELPER}
    hits, _, parsed = _lazy({p: files[p] for p in order})
    assert ("command-injection", "tools/shell.py", 4, "app.py") in _found(hits)
    assert sorted(parsed) == sorted(files), "each module parsed exactly once"


def test_independent_modules_are_held_one_at_a_time() -> None:
    files = {f"pkg/m{i}.py": PLAIN for i in range(30)}
    files["app.py"] = VIEW
    files["tools/shell.py"] = HELPER
    hits, held, _ = _lazy(files)
    # app.py's call parses tools/shell.py while app.py is held: two at most.
    assert max(held) <= 1
    assert ("command-injection", "tools/shell.py", 4, "app.py") in _found(hits)


def test_lazy_and_eager_projects_find_the_same_flows() -> None:
    files = {"app.py": VIEW, "tools/shell.py": HELPER, "pkg/m.py": PLAIN}
    eager = Project(catalogue(), {p: parse_module(textwrap.dedent(t).encode())
                                  for p, t in files.items()}).analyse()
    lazy, _, _ = _lazy(files)
    assert eager == lazy


def test_a_module_that_cannot_be_parsed_is_not_resolved() -> None:
    held: list[str] = []

    def load(path: str) -> ir.Module | None:
        held.append(path)
        return None if path == "tools/shell.py" else parse_module(
            textwrap.dedent(VIEW).encode())

    hits = Project(catalogue(), paths=["app.py", "tools/shell.py"], load=load).analyse()
    assert not [h for h in hits if h.sink_path == "tools/shell.py"]
    assert held.count("tools/shell.py") == 1, "an unusable module is asked for once"


def test_line_runs_hold_exactly_the_numbers_given() -> None:
    from pytest_secreview.analysis.session import LineRuns

    numbers = {1, 2, 3, 7, 9, 10, 40}
    runs = LineRuns([10, 3, 1, 2, 7, 9, 40, 3])
    assert {n for n in range(-2, 50) if n in runs} == numbers
    assert "3" not in runs and 2.0 not in runs
    assert 5 not in LineRuns([])


def test_git_files_budget_counts_time_in_git_not_the_analysis_between_reads(
        tmp_path: Path) -> None:
    # The engine reads the files as it reaches them: on a large pull request the analysis
    # between two reads outlasts the budget, and the files read last must still be read.
    import time

    from pytest_secreview.evaluation.files import GitFiles

    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "a = 1\n")
    base = repo.commit("base")
    repo.write("a.py", "a = 2\n")
    repo.write("b.py", "b = 2\n")
    head = repo.commit("head")
    files = GitFiles(repo.path, base, head, ["a.py", "b.py"], ["a.py"], window_bytes=1,
                     read_budget=1.0)
    assert files.head("a.py") == b"a = 2\n"
    time.sleep(1.2)  # the analysis of a.py, longer than the whole budget
    assert files.head("b.py") == b"b = 2\n"
    assert files.base("a.py") == b"a = 1\n"


def test_git_files_read_any_file_in_any_order_through_a_small_window(tmp_path: Path) -> None:
    from pytest_secreview.evaluation.files import GitFiles

    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "base a\n")
    repo.write("gone.py", "base gone\n")
    base = repo.commit("base")
    texts = {f"m{i}.py": f"x = {i}\n" * (i + 1) for i in range(8)}
    for rel, text in texts.items():
        repo.write(rel, text)
    repo.write("a.py", "head a\n")
    head = repo.commit("head")
    paths = [*texts, "a.py", "missing.py"]
    files = GitFiles(repo.path, base, head, paths, ["a.py", "gone.py"], window_bytes=20)
    for rel in [*reversed(paths), *paths, "m3.py", "m3.py", "m0.py"]:
        expected = texts.get(rel, "head a\n" if rel == "a.py" else None)
        assert files.head(rel) == (expected.encode() if expected else None), rel
        # Only a window of files is held, never all of them.
        assert len(files._window["head"]) <= 3
    assert files.base("a.py") == b"base a\n" and files.base("gone.py") == b"base gone\n"
    assert files.base("m1.py") is None and files.head("unasked.py") is None
