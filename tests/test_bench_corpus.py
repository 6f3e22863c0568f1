"""The labelled corpus format: the loader on the shipped corpus and on broken cases, and
case-level scoring."""

from __future__ import annotations

import ast
import difflib
import sys
from collections import Counter
from pathlib import Path

import pytest

from pytest_secreview.bench import (
    CATEGORIES,
    Case,
    CorpusError,
    Reported,
    load_case,
    load_corpus,
    score_case,
    summarise,
)
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / "corpus" / "taint"
AUTHORING = ROOT / "benchmarks" / "corpus" / "_authoring" / "build.py"
MODEL_CORPUS = ROOT / "benchmarks" / "model_corpus"

MIN_CASES = 260
MIN_PER_CATEGORY = 12
# The injection classes get more cases than the rest (issue 12 item 7).
MIN_LARGE = {"sql": 24, "command": 20, "path": 20, "code": 16, "xss": 20, "ssrf": 16}


@pytest.fixture(scope="module")
def corpus() -> tuple[Case, ...]:
    return load_corpus(CORPUS)


def _py(case: Case) -> dict[str, str]:
    return {p: t.decode() for p, t in case.files("head").items() if p.endswith(".py")}


def test_every_shipped_case_loads_and_twins_pair_up(corpus: tuple[Case, ...]) -> None:
    assert len(corpus) >= MIN_CASES
    by_id = {c.id: c for c in corpus}
    for case in corpus:
        assert case.twin is not None, case.id
        twin = by_id[case.twin]
        assert twin.twin == case.id
        assert twin.vulnerable is not case.vulnerable, case.id
        assert twin.category == case.category, case.id
        assert twin.base is None or case.base is not None, case.id
    assert sum(c.vulnerable for c in corpus) * 2 == len(corpus)


def test_expected_ranges_point_at_a_line_that_uses_the_sink(corpus: tuple[Case, ...]) -> None:
    for case in (c for c in corpus if c.vulnerable):
        category = CATEGORIES[case.category]
        for e in case.expect:
            assert (e.rule, e.cwe) == (category.rule, category.cwe), case.id
            lines = (case.head / e.path).read_text().splitlines()
            assert len(lines) >= e.lines[1], case.id
            text = "\n".join(lines[e.lines[0] - 1:e.lines[1]])
            # Every sink is a call or a returned/stored value: never a blank or a comment.
            assert text.strip() and not text.strip().startswith("#"), case.id
            assert "(" in text or "return" in text or "=" in text, (case.id, text)


def test_categories_are_all_covered_with_enough_cases(corpus: tuple[Case, ...]) -> None:
    counts = Counter(c.category for c in corpus)
    missing = [name for name in CATEGORIES if counts[name] < MIN_PER_CATEGORY]
    assert not missing, f"categories under {MIN_PER_CATEGORY} cases: {missing}"
    for name, least in MIN_LARGE.items():
        assert counts[name] >= least, (name, counts[name])


def test_safe_twins_differ_from_their_vulnerable_case_by_a_small_edit(
        corpus: tuple[Case, ...]) -> None:
    by_id = {c.id: c for c in corpus}
    for case in (c for c in corpus if c.vulnerable):
        assert case.twin is not None
        twin = by_id[case.twin]
        mine, theirs = case.files("head"), twin.files("head")
        assert mine.keys() == theirs.keys(), case.id
        changed = 0
        for path in mine:
            diff = difflib.unified_diff(mine[path].decode().splitlines(),
                                        theirs[path].decode().splitlines(), n=0, lineterm="")
            changed += sum(1 for line in diff if line[:1] in "+-" and line[:3] not in "+++---")
        assert 1 <= changed <= 8, (case.id, changed)


def test_removed_sanitizer_cases_share_their_base(corpus: tuple[Case, ...]) -> None:
    removed = [c for c in corpus if "removed-sanitizer" in c.tags]
    assert removed
    by_id = {c.id: c for c in corpus}
    for case in removed:
        assert case.vulnerable and case.base is not None and case.twin is not None
        twin = by_id[case.twin]
        assert twin.base is not None and twin.files("base") == case.files("base")
        assert case.files("base") != case.files("head") != twin.files("head")


def test_programs_parse_and_py312_cases_need_python_312(corpus: tuple[Case, ...]) -> None:
    newer = [c for c in corpus if "py312" in c.tags]
    assert newer
    for case in corpus:
        failures = []
        for path, text in _py(case).items():
            try:
                ast.parse(text, filename=f"{case.id}/{path}")
            except SyntaxError:
                failures.append(path)
        if "py312" in case.tags and sys.version_info < (3, 12):
            assert failures, f"{case.id} is tagged py312 but parses on {sys.version}"
        elif "py312" not in case.tags:
            assert not failures, (case.id, failures)


def test_the_corpus_is_what_the_authoring_specs_build(tmp_path: Path) -> None:
    build = load_script(AUTHORING, "corpus_build")
    count = build.build(tmp_path / "taint")
    built = {p.relative_to(tmp_path / "taint"): p.read_bytes()
             for p in (tmp_path / "taint").rglob("*") if p.is_file()}
    shipped = {p.relative_to(CORPUS): p.read_bytes() for p in CORPUS.rglob("*") if p.is_file()}
    assert count == len(load_corpus(CORPUS))
    assert built.keys() == shipped.keys()
    stale = [str(p) for p in built if built[p] != shipped[p]]
    assert not stale, "run python benchmarks/corpus/_authoring/build.py: " + ", ".join(stale)


def test_the_model_corpus_is_what_its_script_builds_and_twins_differ_by_one_file(
    tmp_path: Path
) -> None:
    build = load_script(MODEL_CORPUS / "_build.py", "model_corpus_build")
    count = build.build(tmp_path)
    built = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*")
             if p.is_file()}
    shipped = {p.relative_to(MODEL_CORPUS): p.read_bytes() for p in MODEL_CORPUS.rglob("*")
               if p.is_file() and p.parent != MODEL_CORPUS}
    assert built == shipped, "run python benchmarks/model_corpus/_build.py"
    cases = {c.id: c for c in load_corpus(MODEL_CORPUS)}
    assert count == len(cases) >= 12
    vulnerable = [c for c in cases.values() if c.vulnerable]
    assert len(vulnerable) >= 6 and sum(not c.twin for c in cases.values()) >= 2
    for case in vulnerable:
        assert case.twin is not None
        twin = cases[case.twin]
        assert not twin.vulnerable and twin.files("base") == case.files("base")
        head, safe = case.files("head"), twin.files("head")
        changed = [p for p in head if head[p] != safe.get(p)]
        (expected,) = case.expect
        assert changed == [expected.path], case.id  # the fix is in the flawed file only
        # Nothing in the code names the flaw for the model.
        assert not any(b"vulnerab" in t.lower() or b"flaw" in t for t in head.values())


# --- broken cases: every error names the file, the key, the value and the fix ---------------

_GOOD = """\
id: demo
description: a demo case
category: sql
vulnerable: true
twin: demo-safe
tags: [flask]
expect:
  - rule: sql-injection
    path: app.py
    lines: [2, 2]
    cwe: CWE-89
"""


def _case(root: Path, yaml_text: str, head: dict[str, str] | None = None,
          name: str = "demo") -> Path:
    directory = root / name
    (directory / "head").mkdir(parents=True)
    for rel, text in (head if head is not None else {"app.py": "x = 1\ncur.execute(q)\n"}).items():
        (directory / "head" / rel).write_text(text)
    (directory / "case.yaml").write_text(yaml_text)
    return directory


def test_a_valid_case_loads_into_a_frozen_value(tmp_path: Path) -> None:
    case = load_case(_case(tmp_path, _GOOD))
    assert (case.id, case.category, case.vulnerable, case.twin) == ("demo", "sql", True,
                                                                      "demo-safe")
    assert case.expect[0].lines == (2, 2) and case.base is None
    assert case.files("head") == {"app.py": b"x = 1\ncur.execute(q)\n"}
    with pytest.raises(AttributeError):
        case.id = "other"  # type: ignore[misc]


@pytest.mark.parametrize(("edit", "needles"), [
    (("tags: [flask]", "tags: [flask]\nseverity: high"),
     ["'severity'", "(value 'high')", "not a case.yaml key", "remove it"]),
    (("category: sql", "category: sqli"), ["'category'", "'sqli'", "must be one of", "ssrf"]),
    (("lines: [2, 2]", "lines: [3, 2]"), ["'expect.0.lines'", "1 <= first <= last"]),
    (("lines: [2, 2]", "lines: [2, 9]"), ["'expect.0.lines'", "[2, 9]", "has 2 lines"]),
    (("path: app.py", "path: ../app.py"), ["'expect.0.path'", "'../app.py'", "relative"]),
    (("path: app.py", "path: views.py"), ["'expect.0.path'", "'views.py'", "not a file"]),
    (("cwe: CWE-89", "cwe: CWE89"), ["'expect.0.cwe'", "'CWE89'", "write CWE-<number>"]),
    (("cwe: CWE-89", "cwe: 89"), ["'expect.0.cwe'", "89", "write CWE-<number>"]),
    (("vulnerable: true", "vulnerable: maybe"), ["'vulnerable'", "'maybe'", "true or false"]),
    (("description: a demo case\n", ""), ["'description'", "is required; add it"]),
    (("vulnerable: true", "vulnerable: false"), ["'expect'", "vulnerable", "expect: []"]),
])
def test_bad_case_yaml_errors_say_where_and_how_to_fix(
        tmp_path: Path, edit: tuple[str, str], needles: list[str]) -> None:
    directory = _case(tmp_path, _GOOD.replace(*edit))
    with pytest.raises(CorpusError) as info:
        load_case(directory)
    message = str(info.value)
    assert str(directory / "case.yaml") in message
    for needle in needles:
        assert needle in message, (needle, message)


def test_unreadable_yaml_and_missing_head_are_actionable(tmp_path: Path) -> None:
    broken = _case(tmp_path, "id: [unclosed\n", name="broken")
    with pytest.raises(CorpusError, match="cannot read it as YAML"):
        load_case(broken)
    headless = tmp_path / "headless"
    headless.mkdir()
    (headless / "case.yaml").write_text(_GOOD)
    with pytest.raises(CorpusError, match=r"no head/ directory; create .*headless/head"):
        load_case(headless)


def test_symbolic_links_in_a_case_are_rejected(tmp_path: Path) -> None:
    directory = _case(tmp_path, _GOOD)
    (directory / "head" / "secrets.py").symlink_to(tmp_path / "outside.py")
    with pytest.raises(CorpusError, match=r"secrets\.py is a symbolic link; .* copy the file"):
        load_case(directory)


def test_corpus_level_errors_name_the_twin_and_duplicate_ids(tmp_path: Path) -> None:
    _case(tmp_path, _GOOD)
    with pytest.raises(CorpusError, match="'demo-safe' is not a case id"):
        load_corpus(tmp_path)
    safe = _GOOD.replace("id: demo\n", "id: demo-safe\n").replace("twin: demo-safe", "twin: x")
    safe = safe.split("expect:")[0].replace("vulnerable: true", "vulnerable: false")
    _case(tmp_path, safe + "expect: []\n", name="demo-safe")
    _case(tmp_path, "id: x\ndescription: d\ncategory: sql\nvulnerable: false\ntwin: demo\n",
          name="x")
    back = r"key 'twin' value 'demo-safe' does not name 'demo' back \(its twin is 'x'\)"
    with pytest.raises(CorpusError, match=back):
        load_corpus(tmp_path)
    with pytest.raises(CorpusError, match=r"no case\.yaml found"):
        load_corpus(tmp_path / "demo" / "head")


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    plain = _GOOD.replace("twin: demo-safe\n", "")
    _case(tmp_path, plain, name="one")
    _case(tmp_path, plain, name="two")
    with pytest.raises(CorpusError, match="'demo' is also used by"):
        load_corpus(tmp_path)


# --- scoring ----------------------------------------------------------------------------------

def test_scoring_counts_a_hit_only_in_the_expected_range(tmp_path: Path) -> None:
    vuln = load_case(_case(tmp_path, _GOOD))
    safe_text = _GOOD.split("expect:")[0].replace("vulnerable: true", "vulnerable: false")
    safe = load_case(_case(tmp_path, safe_text.replace("id: demo", "id: demo-safe"), name="s"))
    at_sink = Reported("sql-injection", None, "app.py", 2)
    by_cwe = Reported("something-else", "CWE-89", "app.py", 2)
    elsewhere = Reported("sql-injection", "CWE-89", "app.py", 1)
    other_rule = Reported("xss", "CWE-79", "app.py", 2)
    assert score_case(vuln, [at_sink]).hit
    assert score_case(vuln, [by_cwe]).hit
    assert not score_case(vuln, [elsewhere, other_rule]).hit
    assert score_case(safe, [elsewhere]).hit
    assert not score_case(safe, [other_rule]).hit
    scores, mean = summarise([score_case(vuln, [at_sink]), score_case(safe, [other_rule])])
    assert [(s.category, s.cases, s.tpr, s.fpr, s.score) for s in scores] == [
        ("sql", 2, 1.0, 0.0, 1.0)]
    assert (mean.tpr, mean.fpr, mean.cases) == (1.0, 0.0, 2)
