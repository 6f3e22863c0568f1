"""benchmarks/bench_detection.py on a two-case corpus: real git repositories, the product's
deterministic layer, Bandit (when the bench extra is installed), figures from the labels."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from pytest_secreview.bench import CATEGORIES, load_corpus
from tests.scripts import load_script

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
    return load_script(ROOT / "benchmarks" / "bench_detection.py", "bench_detection")


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


BREADTH = ROOT / "benchmarks" / "corpus" / "breadth"
AUTHORING = ROOT / "benchmarks" / "corpus" / "_authoring" / "build.py"


def _authoring() -> ModuleType:
    return load_script(AUTHORING, "corpus_build_breadth")


def test_the_breadth_corpus_is_what_its_specs_build(tmp_path: Path) -> None:
    count = _authoring().build(tmp_path / "breadth", breadth=True)
    built = {p.relative_to(tmp_path / "breadth"): p.read_bytes()
             for p in (tmp_path / "breadth").rglob("*") if p.is_file()}
    shipped = {p.relative_to(BREADTH): p.read_bytes() for p in BREADTH.rglob("*")
               if p.is_file()}
    assert built == shipped, "run python benchmarks/corpus/_authoring/build.py --breadth"
    assert count == len(load_corpus(BREADTH))


def test_every_breadth_class_has_two_pairs_and_one_rule() -> None:
    bench = _bench()
    cases = load_corpus(BREADTH)
    targets = bench.class_targets(cases)
    assert set(targets) == set(_authoring().CLASSES)
    for name in targets:
        mine = [c for c in cases if bench.breadth_class(c) == name]
        vulnerable = {c.id for c in mine if c.vulnerable}
        assert len(vulnerable) >= 2, name
        # Each vulnerable case's twin is a safe case of the same class.
        assert {c.twin for c in mine if not c.vulnerable} == vulnerable, name
        assert all(c.category is None for c in mine)
    assert set(bench.BANDIT_CLASS.values()) <= set(targets)


def test_breadth_scoring_counts_the_class_rule_only(tmp_path: Path) -> None:
    bench = _bench()
    root = tmp_path / "breadth"
    for case_id, vulnerable, twin, mode in (("v", True, "s", "0o777"), ("s", False, "v", "0o755")):
        directory = root / "world-writable" / case_id
        (directory / "head").mkdir(parents=True)
        (directory / "head" / "perm.py").write_text(
            f"import os\n\n\ndef share(path):\n    os.chmod(path, {mode})\n    assert path\n")
        expect = ("expect:\n  - {rule: world-writable-permissions, path: perm.py, "
                  "lines: [5, 5], cwe: CWE-732}\n" if vulnerable else "expect: []\n")
        (directory / "case.yaml").write_text(
            f"description: d\nvulnerable: {str(vulnerable).lower()}\ntwin: {twin}\n" + expect)
    cases = load_corpus(root)
    score = bench.breadth_scorer(bench.class_targets(cases))
    by_id = {c.id: c for c in cases}
    elsewhere = bench.Reported("world-writable-permissions", "CWE-732", "perm.py", 6)
    other_rule = bench.Reported("assert-authorization", "CWE-703", "perm.py", 6)
    # A vulnerable case counts only at its labelled line; a safe twin only for its class rule.
    assert not score(by_id["v"], [elsewhere]).hit
    assert score(by_id["v"], [bench.Reported("world-writable-permissions", None, "perm.py",
                                             5)]).hit
    assert score(by_id["s"], [elsewhere]).hit and not score(by_id["s"], [other_rule]).hit
    scores, mean = bench.summarise_classes([score(by_id["v"], []), score(by_id["s"], [])])
    assert [(s.category, s.tpr, s.fpr) for s in scores] == [("world-writable", 0.0, 0.0)]
    assert mean.cases == 2


def test_the_breadth_run_prints_figures_per_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bandit", reason="Bandit comes with the bench extra")
    bench = _bench()
    corpus = tmp_path / "breadth"
    for case_id, vulnerable, twin, call in (("v", True, "s", "tempfile.mktemp()"),
                                            ("s", False, "v", "tempfile.mkstemp()[1]")):
        directory = corpus / "temp-file" / case_id
        (directory / "head").mkdir(parents=True)
        (directory / "head" / "tmp.py").write_text(
            f"import tempfile\n\n\ndef scratch():\n    return {call}\n")
        expect = ("expect:\n  - {rule: insecure-temp-file, path: tmp.py, lines: [5, 5], "
                  "cwe: CWE-377}\n" if vulnerable else "expect: []\n")
        (directory / "case.yaml").write_text(
            f"description: d\nvulnerable: {str(vulnerable).lower()}\ntwin: {twin}\n" + expect)
    assert bench.main(["--breadth", "--corpus", str(corpus), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # mktemp at the labelled line is found by both (Bandit's B306), mkstemp by neither.
    for who in ("ours", "bandit"):
        assert report[who]["classes"] == [{"category": "temp-file", "cases": 2, "tpr": 1.0,
                                           "fpr": 0.0, "tpr_minus_fpr": 1.0}]
