"""benchmarks/bench_detection.py on a two-case corpus: real git repositories, the product's
deterministic layer, Bandit (when the bench extra is installed), figures from the labels."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_secreview.bench import CATEGORIES, load_corpus

ROOT = Path(__file__).resolve().parent.parent

_VULN = """\
import sqlite3

from flask import request


def lookup():
    name = request.args["name"]
    cur = sqlite3.connect("a.db").cursor()
    cur.execute(f"SELECT id FROM users WHERE name = '{name}'")
    return cur.fetchall()
"""
_SAFE = _VULN.replace("""f"SELECT id FROM users WHERE name = '{name}'\")""",
                      """"SELECT id FROM users WHERE name = ?", (name,))""")


def _bench() -> ModuleType:
    path = ROOT / "benchmarks" / "bench_detection.py"
    spec = importlib.util.spec_from_file_location("bench_detection", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _corpus(root: Path) -> Path:
    for case_id, vulnerable, twin, text in (("v", True, "s", _VULN), ("s", False, "v", _SAFE)):
        directory = root / "sql" / case_id
        (directory / "head").mkdir(parents=True)
        (directory / "head" / "db.py").write_text(text)
        expect = ("expect:\n  - {rule: sql-injection, path: db.py, lines: [9, 9], cwe: CWE-89}\n"
                  if vulnerable else "expect: []\n")
        (directory / "case.yaml").write_text(
            f"description: d\ncategory: sql\nvulnerable: {str(vulnerable).lower()}\n"
            f"twin: {twin}\n" + expect)
    return root


def test_bandit_table_maps_only_to_corpus_categories() -> None:
    table = _bench().BANDIT_CATEGORY
    assert set(table.values()) <= set(CATEGORIES)
    assert table["B608"] == "sql" and table["B307"] == "code" and table["B506"] == (
        "deserialization")


def test_each_case_is_a_real_pr_reviewed_by_the_deterministic_layer(tmp_path: Path) -> None:
    bench = _bench()
    cases = load_corpus(_corpus(tmp_path / "corpus"))
    by_id = {c.id: c for c in cases}
    bench.build_repo(tmp_path / "repo", [("", by_id["v"])])
    found = bench.ours(tmp_path / "repo")
    assert any(f.rule == "sql-injection" and (f.path, f.line) == ("db.py", 9) for f in found)


def test_the_script_prints_figures_from_the_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bandit", reason="Bandit comes with the bench extra")
    bench = _bench()
    assert bench.main(["--corpus", str(_corpus(tmp_path / "corpus")), "--json",
                       "--repeat", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cases"] == 2
    assert [r["id"] for r in report["results"]] == ["s", "v"]
    # The f-string SQL at the labelled line is found by both; the bound parameter by neither.
    for who in ("ours", "bandit"):
        assert report[who]["mean"] == {"category": "mean", "cases": 2, "tpr": 1.0, "fpr": 0.0,
                                       "tpr_minus_fpr": 1.0}
    assert report["timing"]["one_pr_files"] == 2
