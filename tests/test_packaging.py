"""What users install is the tree: the sdist and the wheel built from it hold every module,
prompt, rule, schema and corpus file, the licence, and one version.

Users never run the source tree: pip builds a wheel (from the git repository, the action's
checkout or the sdist) and installs it. A subpackage or data file the build leaves out works
in every editable test run and crashes every real install, so the check is on the built
archives, against the files of the tree.
"""

from __future__ import annotations

import email
import re
from pathlib import Path

import pytest

from pytest_secreview import __version__
from tests.distribution import ROOT, Built, build, snapshot, source_files

#: Folders of the tree mapped into the package: (folder, package path in the wheel).
DATA_FOLDERS = (("rules/", "pytest_secreview/bundled_rules/"),
                ("schemas/", "pytest_secreview/json_schemas/"))
#: Files of the tree that only the sdist carries (the wheel has the licence in dist-info).
SDIST_ONLY = {"README.md", "LICENSE", "CHANGELOG.md", "pyproject.toml", "setup.py",
              "MANIFEST.in"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    source = tmp_path_factory.mktemp("source")
    snapshot(source)
    return build(source, tmp_path_factory.mktemp("dist"))


def _shipped_from_tree() -> dict[str, str]:
    """tree path -> wheel path, for every file of the tree the wheel must hold."""
    shipped = {}
    for rel in source_files():
        if rel.startswith("pytest_secreview/"):
            shipped[rel] = rel
        for folder, package in DATA_FOLDERS:
            if rel.startswith(folder):
                shipped[rel] = package + rel[len(folder):]
    return shipped


def test_the_wheel_holds_every_module_prompt_rule_schema_and_corpus_file(built: Built) -> None:
    names = built.wheel_names()
    shipped = _shipped_from_tree()
    missing = sorted(tree for tree, wheel in shipped.items() if wheel not in names)
    assert not missing, f"the wheel lacks {len(missing)} file(s) of the tree: {missing[:20]}"
    # every kind the issue names is really among them (a filter that matched nothing would
    # make the check above vacuous)
    for kind in ("pytest_secreview/items/", "pytest_secreview/agent/prompts/",
                 "pytest_secreview/bundled_rules/", "pytest_secreview/json_schemas/",
                 "pytest_secreview/bench/corpus/"):
        assert any(w.startswith(kind) for w in shipped.values()), kind


def test_the_wheel_holds_nothing_else_of_the_tree(built: Built) -> None:
    """No test, benchmark or bytecode rides along, and no file appears that the tree lacks."""
    expected = set(_shipped_from_tree().values())
    extra = sorted(n for n in built.wheel_names()
                   if ".dist-info/" not in n and n not in expected)
    assert not extra, extra


def test_the_sdist_holds_what_a_wheel_is_built_from(built: Built) -> None:
    names = built.sdist_names()
    needed = set(_shipped_from_tree()) | SDIST_ONLY
    assert not sorted(needed - names), sorted(needed - names)[:20]


def test_metadata_has_one_version_the_licence_and_the_project_urls(built: Built) -> None:
    (metadata_name,) = (n for n in built.wheel_names() if n.endswith(".dist-info/METADATA"))
    import zipfile

    with zipfile.ZipFile(built.wheel) as archive:
        metadata = email.message_from_bytes(archive.read(metadata_name))
        licence = next(n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
        assert archive.read(licence) == (ROOT / "LICENSE").read_bytes()
    assert metadata["Version"] == __version__
    assert built.wheel.name.startswith(f"pytest_secreview-{__version__}-")
    assert metadata["License-Expression"] == "Apache-2.0"
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert {"Source", "Changelog", "Issues"} <= set(urls)
    assert f"## {__version__}" in (ROOT / "CHANGELOG.md").read_text(), (
        "CHANGELOG.md has a section for the version being built")


def test_the_version_is_written_once() -> None:
    """pyproject.toml reads it from the package; no other module of the product states it
    (test data may use any version string)."""
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "pytest_secreview.__version__"}
    stated = [rel for rel in source_files()
              if rel.startswith("pytest_secreview/") and rel.endswith(".py")
              and rel != "pytest_secreview/__init__.py"
              and re.search(rf"['\"]{re.escape(__version__)}['\"]", (ROOT / rel).read_text())]
    assert stated == [], f"the version is written out again in {stated}"


def test_every_subpackage_of_the_tree_is_found_not_listed() -> None:
    """A folder of Python modules without ``__init__.py`` would not be found: every folder of
    the package that holds a module is a package (corpus data aside)."""
    folders = {str(Path(rel).parent) for rel in source_files()
               if rel.startswith("pytest_secreview/") and rel.endswith(".py")
               and "/bench/corpus/" not in rel}
    missing = sorted(f for f in folders if not (ROOT / f / "__init__.py").is_file())
    assert not missing, f"module folders without __init__.py (not found as packages): {missing}"


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("## Quick start"):].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_the_quick_start_runs_the_main_job_from_a_built_wheel_and_ci_runs_its_tests() -> None:
    """Two set-up commands: the first installs the product as users get it (not editable)
    and runs the demo; CI's script installs and tests exactly as the second says."""
    main_job, tests = _quick_start()
    assert " -e " not in main_job and main_job.endswith("secreview-demo")
    ci = (ROOT / ".ci" / "run").read_text()
    install, run = tests.split(" && .venv/bin/python -m pytest")
    assert install in ci.replace(" -q ", " ")
    assert ".venv/bin/python -m pytest" + run in ci
    assert "check_installed.py" in ci, "CI also runs the product from the built wheel"
