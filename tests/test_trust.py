"""The base revision's pytest configuration is found the way pytest finds it: each case is
checked against expected values and against pytest's own search on the same files."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.config.findpaths import locate_config

from pytest_secreview.invocation import parse_command_line
from pytest_secreview.options import SPECS
from pytest_secreview.trust import parse_config, resolve_config_at, split_addopts
from tests.gitutil import GitRepo

PYPROJECT = '[tool.pytest.ini_options]\nsecreview_fail_on = "medium"\naddopts = "-ra"\n'

CASES = {
    "empty pytest.ini beats pyproject.toml": (
        {"pytest.ini": "", "pyproject.toml": PYPROJECT}, ".", "pytest.ini", {}),
    "tox.ini without [pytest] is skipped": (
        {"tox.ini": "[tox]\nenvlist = py\n", "setup.cfg": "[tool:pytest]\nsecreview_model = x\n"},
        ".", "setup.cfg", {"secreview_model": "x"}),
    "pyproject.toml without pytest settings is the fallback": (
        {"pyproject.toml": "[project]\nname = 'x'\n"}, ".", "pyproject.toml", {}),
    "pyproject.toml settings": (
        {"pyproject.toml": PYPROJECT}, ".", "pyproject.toml",
        {"secreview_fail_on": "medium", "addopts": "-ra"}),
    "nearest directory first": (
        {"sub/tox.ini": "[pytest]\nsecreview_fail_on = low\n", "pyproject.toml": PYPROJECT},
        "sub", "sub/tox.ini", {"secreview_fail_on": "low"}),
    "parents are searched": (
        {"pyproject.toml": PYPROJECT, "sub/x.py": ""}, "sub", "pyproject.toml",
        {"secreview_fail_on": "medium", "addopts": "-ra"}),
    "nothing at all": ({"README": "x"}, ".", None, {}),
}


@pytest.mark.parametrize("files, start, expected, values", CASES.values(), ids=CASES.keys())
def test_resolved_like_pytest_at_the_base(
    tmp_path: Path, files: dict[str, str], start: str, expected: str | None,
    values: dict[str, str],
) -> None:
    repo = GitRepo(tmp_path / "repo")
    for rel, text in files.items():
        repo.write(rel, text)
    base = repo.commit("base")
    # The pull request removes every file and adds an empty pytest.ini in each directory.
    for rel in files:
        (repo.path / rel).unlink()
    repo.write("pytest.ini", "")
    repo.write(f"{start}/pytest.ini", "")
    repo.commit("pull request")

    found = resolve_config_at(repo.path, base, [repo.path / start])
    assert found.values == values
    assert (found.path.relative_to(repo.path).as_posix() if found.path else None) == expected

    repo.git("checkout", "-q", base)  # pytest's own answer on the base's files
    _rootdir, inifile, _cfg, *_ = locate_config(repo.path, [repo.path / start])
    assert (inifile.relative_to(repo.path).as_posix() if inifile else None) == expected


def test_a_file_only_in_the_working_tree_is_not_the_bases(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("pyproject.toml", PYPROJECT)
    base = repo.commit("base")
    repo.write("pytest.ini", "[pytest]\nsecreview_fail_on = info\n")  # untracked
    found = resolve_config_at(repo.path, base, [repo.path])
    assert found.path == repo.path / "pyproject.toml"
    assert found.secreview == {"secreview_fail_on": "medium"}


def test_files_above_the_repository_are_read_from_disk(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text("[pytest]\nsecreview_fail_on = high\n")
    repo = GitRepo(tmp_path / "repo")
    repo.write("README", "x")
    base = repo.commit("base")
    found = resolve_config_at(repo.path, base, [repo.path])
    assert found.path == tmp_path / "tox.ini"
    assert found.secreview == {"secreview_fail_on": "high"}


@pytest.mark.parametrize("name, text, expected", [
    ("pytest.ini", "not an ini file [", {}),
    ("tox.ini", "not an ini file [", None),
    ("setup.cfg", "[pytest]\nx = 1\n", None),
    ("pyproject.toml", "[tool.pytest]\nsecreview_rules = ['a', 'b']\n",
     {"secreview_rules": ["a", "b"]}),
    ("pyproject.toml", "= broken", {}),
])
def test_parse_config_follows_pytests_rules(
    name: str, text: str, expected: dict[str, object] | None
) -> None:
    assert parse_config(name, text) == expected


def test_addopts_split_like_pytest() -> None:
    assert split_addopts("-m 'not secreview' -ra") == ["-m", "not secreview", "-ra"]
    assert split_addopts(["-x", "-q"]) == ["-x", "-q"]
    assert split_addopts(None) == []


def test_command_line_parsing_keeps_values_and_paths_apart() -> None:
    parsed = parse_command_line(SPECS, [
        "-p", "no:cacheprovider", "--secreview-api-base=http://127.0.0.1:1",
        "-m", "not slow", "-k", "sql", "tests/test_a.py::test_x", "-o", "secreview_model=x",
        "--secreview-rules", "a", "--secreview-rules", "b", "--co", "-n", "2",
    ])
    assert parsed.values["secreview_api_base"] == "http://127.0.0.1:1"
    assert parsed.values["secreview_rules"] == ["a", "b"]
    assert parsed.selection() == {"markexpr": "not slow", "keyword": "sql", "collectonly": True}
    assert parsed.paths == ("tests/test_a.py",)
    assert parsed.overrides == {"secreview_model": "x"}
