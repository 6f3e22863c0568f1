"""A dataflow item's task artifact records the hunks of the files its flows go through, not
every changed file its rule's ``taint:`` section reads (issue 16, item 3: memory and
artifacts flat in the number of files)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

STORE = textwrap.dedent('''\
    import os


    def read_report(name):
        path = os.path.join("/srv/reports", name)
        with open(path) as fh:
            return fh.read()
    ''')

VIEW = textwrap.dedent('''\
    from flask import request

    from shop.store import read_report


    def report():
        return {"body": read_report(request.args["name"])}
    ''')

UNRELATED = textwrap.dedent('''\
    def total(prices):
        return sum(prices)  # marker-of-an-unrelated-file
    ''')


def test_a_dataflow_items_task_holds_its_flow_files_only(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(pr={"shop/__init__.py": "", "shop/store.py": STORE, "shop/views.py": VIEW,
                    "shop/prices.py": UNRELATED})
    out = pytester.path / "out"
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", ":bundled", f"--secreview-artifacts={out}")
    dataflow = {}
    for task_path in out.glob("items/*/task.json"):
        task = json.loads(task_path.read_text())
        if "[dataflow:" in task["nodeid"]:
            evaluation = json.loads((task_path.parent / "evaluation.json").read_text())
            dataflow[task["nodeid"]] = (task, evaluation)
    task, evaluation = next(v for k, v in dataflow.items() if k.startswith(
        "rules/path-traversal.md::"))
    assert "shop/prices.py" in evaluation["paths"], "the item covered the unrelated file"
    assert evaluation["findings"][0]["path"] == "shop/store.py"
    # The flow's two files, each under its File: line; not the file no flow goes through.
    assert "File: shop/store.py" in task["hunks"] and "File: shop/views.py" in task["hunks"]
    # Each added line as the reviewer sees it: its head line number, then the code.
    assert "+5\t    path = os.path.join" in task["hunks"]
    assert "marker-of-an-unrelated-file" not in task["hunks"]
    # A dataflow item that found nothing put nothing in front of anyone.
    quiet = [t for k, (t, e) in dataflow.items() if not e["findings"]]
    assert quiet and all(t["hunks"] == "" for t in quiet)


PROBE = textwrap.dedent('''\
    from pathlib import Path

    from pytest_secreview.reporting.artifacts import item_dir_name


    def pytest_runtest_logfinish(nodeid, location):
        item = Path("out/items") / item_dir_name(nodeid)
        with open("seen.txt", "a") as fh:
            fh.write(f"{(item / 'evaluation.json').is_file()} {nodeid}\\n")
    ''')


def test_each_items_artifacts_are_written_when_it_ends_not_held_to_the_end(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(pr={"shop/__init__.py": "", "shop/store.py": STORE, "shop/views.py": VIEW})
    # A plugin (untracked, so not part of the reviewed change) that looks for each item's
    # evaluation.json when pytest has finished the item.
    (pytester.path / "probe.py").write_text(PROBE)
    pytester.syspathinsert()
    pytester.runpytest("-p", "probe", "--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", ":bundled", "--secreview-artifacts=out")
    seen = (pytester.path / "seen.txt").read_text().splitlines()
    rule_items = [line for line in seen if "::" in line and "rules/" in line
                  and "intent" not in line]
    assert len(rule_items) > 5
    assert all(line.startswith("True ") for line in rule_items), rule_items
    task = next((pytester.path / "out" / "items").glob("*path-traversal*/evaluation.json"))
    assert json.loads(task.read_text())["outcome"] == "failed"
