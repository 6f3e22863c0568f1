"""The dependency review's readers and checks on real manifest, lock file and OSV texts
(:mod:`pytest_secreview.deps`): each format's requirements with their lines, what a change
introduces, the supply-chain signals, OSV's range semantics and CVSS scores."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_secreview.core.severity import Severity
from pytest_secreview.deps.changes import compare
from pytest_secreview.deps.manifests import read_manifest
from pytest_secreview.deps.model import normalise
from pytest_secreview.deps.osv import Query, cvss2_score, cvss3_score, hits, severity_of
from pytest_secreview.deps.review import supply_chain
from pytest_secreview.deps.signals import action_signals, distance, look_alike
from pytest_secreview.deps.versions import SemVer, exact_npm, exact_pip, is_open


def pins(path: str, text: str) -> list[tuple[str, str, str | None, int, str]]:
    manifest = read_manifest(path, textwrap.dedent(text))
    assert manifest is not None and manifest.problem is None, manifest
    return [(r.name, r.spec, r.version, r.line, r.group or r.origin)
            for r in manifest.requirements]


def introduced(path: str, base: str | None, head: str) -> list[tuple[str, str | None, int]]:
    change = compare(path, None if base is None else textwrap.dedent(base),
                     textwrap.dedent(head))
    assert change is not None
    return [(i.requirement.name, i.requirement.version, i.requirement.line)
            for i in change.introduced]


def signals(path: str, base: str | None, head: str) -> set[tuple[str, int]]:
    result = supply_chain({path: (None if base is None else textwrap.dedent(base),
                                  textwrap.dedent(head))})
    return {(s.check, s.line) for found in result.signals.values() for s in found}


# -- readers ------------------------------------------------------------------------------


def test_requirements_file_with_options_includes_continuations_and_hashes() -> None:
    text = """\
        # pinned with pip-compile
        -r base.txt
        -c constraints.txt
        --index-url https://pypi.org/simple
        Django==4.2.7 \\
            --hash=sha256:aaaa
        requests>=2.31 ; python_version >= "3.8"  # http client
        -e git+https://github.com/org/lib@v1#egg=lib
        https://example.org/pkgs/tool-1.0-py3-none-any.whl
        ./vendor/localpkg
        pyyaml===6.0.1
        """
    assert pins("requirements/dev.in", text) == [
        ("Django", "==4.2.7", "4.2.7", 5, "dependencies"),
        ("requests", ">=2.31", None, 7, "dependencies"),
        ("lib", "", None, 8, "editable"),
        ("tool", "", None, 9, "dependencies"),
        ("./vendor/localpkg", "", None, 10, "dependencies"),
        ("pyyaml", "===6.0.1", "6.0.1", 11, "dependencies"),
    ]
    manifest = read_manifest("requirements.txt", textwrap.dedent(text))
    assert manifest is not None
    assert [(s.kind, s.value, s.line) for s in manifest.sources] == [
        ("requirement", "base.txt", 2), ("constraint", "constraints.txt", 3),
        ("index-url", "https://pypi.org/simple", 4)]
    assert manifest.requirements[0].hashes == 1
    assert [r.origin for r in manifest.requirements] == ["", "", "vcs", "url", "path", ""]


def test_pyproject_pep621_optional_pep735_and_poetry() -> None:
    text = """\
        [build-system]
        requires = ["setuptools>=68"]

        [project]
        name = "app"
        dependencies = [
            "httpx==0.27.0",
            "pydantic>=2",
        ]

        [project.optional-dependencies]
        docs = ["sphinx==7.2.6"]

        [dependency-groups]
        test = ["pytest==8.0.0", {include-group = "lint"}]
        lint = ["ruff"]

        [tool.poetry.dependencies]
        python = "^3.11"
        flask = "2.3.3"
        celery = {version = "^5.3", extras = ["redis"]}
        mylib = {git = "https://github.com/org/mylib.git", rev = "main"}

        [tool.poetry.group.dev.dependencies]
        black = "^24.1"
        """
    assert pins("pyproject.toml", text) == [
        ("httpx", "==0.27.0", "0.27.0", 7, "dependencies"),
        ("pydantic", ">=2", None, 8, "dependencies"),
        ("sphinx", "==7.2.6", "7.2.6", 12, "optional:docs"),
        ("pytest", "==8.0.0", "8.0.0", 15, "group:test"),
        ("ruff", "", None, 16, "group:lint"),
        ("setuptools", ">=68", None, 2, "build-system"),
        ("flask", "2.3.3", "2.3.3", 20, "dependencies"),
        ("celery", "^5.3", None, 21, "dependencies"),
        ("mylib", "", None, 22, "dependencies"),
        ("black", "^24.1", None, 25, "group:dev"),
    ]


def test_setup_cfg_and_a_static_setup_py_never_run() -> None:
    cfg = """\
        [metadata]
        name = app

        [options]
        install_requires =
            click==8.1.7
            jinja2>=3

        [options.extras_require]
        yaml = pyyaml==6.0.1
        """
    assert pins("setup.cfg", cfg) == [("click", "==8.1.7", "8.1.7", 6, "dependencies"),
                                      ("jinja2", ">=3", None, 7, "dependencies"),
                                      ("pyyaml", "==6.0.1", "6.0.1", 10, "optional:yaml")]
    setup = """\
        import os
        from setuptools import setup

        REQUIRES = [
            "urllib3==1.26.5",
        ]
        os.system("touch /tmp/pwned")

        setup(
            name="app",
            install_requires=REQUIRES,
            extras_require={"s3": ["boto3==1.34.0"], "dyn": [os.environ["X"]]},
        )
        """
    assert pins("setup.py", setup) == [("urllib3", "==1.26.5", "1.26.5", 5, "dependencies"),
                                       ("boto3", "==1.34.0", "1.34.0", 12, "optional:s3")]


def test_pipfile_and_its_lock() -> None:
    pipfile = """\
        [[source]]
        url = "https://pypi.org/simple"
        verify_ssl = true

        [packages]
        requests = "==2.31.0"
        flask = "*"
        internal = {git = "https://git.example.org/internal.git", ref = "main"}

        [dev-packages]
        pytest = {version = ">=8"}
        """
    assert pins("Pipfile", pipfile) == [("requests", "==2.31.0", "2.31.0", 6, "packages"),
                                        ("flask", "", None, 7, "packages"),
                                        ("internal", "", None, 8, "packages"),
                                        ("pytest", ">=8", None, 11, "dev-packages")]
    lock = json.dumps({"_meta": {"sources": [{"url": "https://pypi.org/simple"}]},
                       "default": {"requests": {"hashes": ["sha256:a"], "version": "==2.31.0"}},
                       "develop": {"pytest": {"hashes": [], "version": "==8.0.0"}}}, indent=4)
    assert pins("Pipfile.lock", lock) == [("requests", "==2.31.0", "2.31.0", 14, "default"),
                                          ("pytest", "==8.0.0", "8.0.0", 20, "develop")]


def test_toml_lock_files_poetry_uv_pdm() -> None:
    poetry = """\
        [[package]]
        name = "certifi"
        version = "2024.2.2"
        description = "Mozilla's CA bundle"
        files = [{file = "certifi-2024.2.2.tar.gz", hash = "sha256:a"}]

        [[package]]
        name = "mylib"
        version = "0.1.0"

        [package.source]
        type = "git"
        url = "https://github.com/org/mylib.git"
        """
    assert pins("poetry.lock", poetry) == [("certifi", "==2024.2.2", "2024.2.2", 3, "lock"),
                                           ("mylib", "==0.1.0", "0.1.0", 9, "lock")]
    manifest = read_manifest("poetry.lock", textwrap.dedent(poetry))
    assert manifest is not None
    assert [(r.origin, r.hashes) for r in manifest.requirements] == [("", 1), ("vcs", 0)]
    uv = """\
        version = 1

        [[package]]
        name = "anyio"
        version = "4.3.0"
        source = { registry = "https://pypi.org/simple" }
        sdist = { url = "https://files/anyio-4.3.0.tar.gz", hash = "sha256:a" }
        """
    assert pins("uv.lock", uv) == [("anyio", "==4.3.0", "4.3.0", 5, "lock")]
    pdm = '[[package]]\nname = "idna"\nversion = "3.6"\nfiles = []\n'
    assert pins("pdm.lock", pdm) == [("idna", "==3.6", "3.6", 3, "lock")]


def test_package_json_and_both_lock_file_generations() -> None:
    package = json.dumps({"dependencies": {"express": "4.18.2", "lodash": "^4.17.21",
                                           "tool": "github:org/tool#main"},
                          "devDependencies": {"jest": "~29.7.0"}}, indent=2)
    assert pins("web/package.json", package) == [
        ("express", "4.18.2", "4.18.2", 3, "dependencies"),
        ("lodash", "^4.17.21", None, 4, "dependencies"),
        ("tool", "github:org/tool#main", None, 5, "dependencies"),
        ("jest", "~29.7.0", None, 8, "devDependencies")]
    v3 = json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "app"},
        "node_modules/ms": {"version": "2.1.3", "integrity": "sha512-x"}}}, indent=2)
    assert pins("package-lock.json", v3) == [("ms", "2.1.3", "2.1.3", 8, "lock")]
    v1 = json.dumps({"lockfileVersion": 1, "dependencies": {
        "debug": {"version": "2.6.9", "dependencies": {"ms": {"version": "2.0.0"}}}}}, indent=2)
    assert pins("npm-shrinkwrap.json", v1) == [("debug", "2.6.9", "2.6.9", 5, "lock"),
                                               ("ms", "2.0.0", "2.0.0", 8, "lock")]


def test_a_file_that_does_not_parse_says_so_and_guesses_nothing() -> None:
    manifest = read_manifest("pyproject.toml", "[project\ndependencies = [")
    assert manifest is not None and manifest.requirements == []
    assert manifest.problem and manifest.problem.startswith("pyproject.toml could not be read")
    assert read_manifest("README.md", "requests==1.0") is None
    assert read_manifest("MANIFEST.in", "include *.txt") is None


# -- what a change introduces -------------------------------------------------------------


def test_a_change_introduces_only_the_new_or_changed_requirements_on_their_lines() -> None:
    assert introduced("requirements.txt", "a==1.0\nb==2.0\nc>=1\n",
                      "a==1.0\nb==2.1\nc>=1\nd==0.1\n") == [("b", "2.1", 2), ("d", "0.1", 4)]
    assert introduced("requirements.txt", None, "a==1.0\n") == [("a", "1.0", 1)]
    # A requirement moved to another line, or re-spelled (case, separators), is not new.
    assert introduced("requirements.txt", "Foo_Bar==1.0\nx==1\n", "x==1\nfoo-bar==1.0\n") == []
    lock = '[[package]]\nname = "{n}"\nversion = "{v}"\n'
    assert introduced("uv.lock", lock.format(n="a", v="1.0"),
                      lock.format(n="a", v="1.0") + lock.format(n="a", v="2.0")) == [
        ("a", "2.0", 6)]


# -- supply-chain signals -----------------------------------------------------------------


def test_distance_and_look_alikes() -> None:
    assert distance("reqeusts", "requests", 1) == 1  # a swap is one edit
    assert distance("requests", "requests", 1) == 0
    assert distance("abcdef", "ghijkl", 2) == 3
    assert look_alike("PyPI", "reqeusts") == "requests"
    assert look_alike("PyPI", "djangorestframewrok") == "djangorestframework"
    assert look_alike("PyPI", "python-dateutils") == "python-dateutil"
    assert look_alike("PyPI", "py-yaml") == "pyyaml"  # separators dropped
    assert look_alike("npm", "lodahs") == "lodash"
    assert look_alike("PyPI", "requests") is None  # popular itself
    assert look_alike("PyPI", "boto3") is None
    assert look_alike("PyPI", "ujsn") is None or look_alike("PyPI", "ujsn") == "ujson"
    assert look_alike("PyPI", "sqlmodel") is None  # far from every popular name


def test_each_supply_chain_signal_on_its_line() -> None:
    assert signals("requirements.txt", "a==1.0 --hash=sha256:x\n--require-hashes\nb==1\n",
                   "--extra-index-url https://corp.example/simple\n"
                   "--trusted-host corp.example\n"
                   "a==1.0\n"
                   "b\n"
                   "-r https://example.org/reqs.txt\n"
                   "c @ http://example.org/c-1.0.tar.gz\n"
                   "d @ git+https://github.com/o/d@main\n"
                   "e @ file:///opt/e\n") == {
        ("extra-index-url", 1), ("trusted-host", 2), ("hashes-removed", 3),
        ("pin-widened", 4), ("remote-include", 5), ("insecure-url", 6), ("vcs", 7),
        ("local-path", 8), ("require-hashes-removed", 1)}
    assert signals("pyproject.toml", None, '[[tool.poetry.source]]\nname = "corp"\n'
                   'url = "https://corp.example/simple"\n') == {("extra-index-url", 3)}
    assert signals("package.json", None, json.dumps(
        {"dependencies": {"lodahs": "4.17.21", "x": "git+https://github.com/o/x.git"}},
        indent=2)) == {("typosquat", 3), ("vcs", 4)}


def test_an_ordinary_bump_and_a_vcs_pin_to_a_commit_are_quiet_or_low() -> None:
    assert signals("requirements.txt", "requests==2.31.0\n", "requests==2.32.3\n") == set()
    assert signals("poetry.lock", '[[package]]\nname = "a"\nversion = "1.0"\n',
                   '[[package]]\nname = "a"\nversion = "1.1"\n') == set()
    result = supply_chain({"requirements.txt": (
        None, "d @ git+https://github.com/o/d@" + "a" * 40 + "\n")})
    (signal,) = result.signals["requirements.txt"]
    assert signal.check == "vcs" and signal.severity is Severity.LOW


def test_actions_not_pinned_to_a_commit() -> None:
    base = "steps:\n  - uses: actions/checkout@v4\n"
    head = (base + "  - uses: actions/setup-node@" + "b" * 40 + "\n"
            "  - uses: ./.github/actions/local\n"
            "  - uses: docker://alpine:3.19\n"
            "  - uses: docker://alpine@sha256:" + "c" * 64 + "\n"
            "  - uses: org/repo/.github/workflows/ci.yml@main\n"
            "  - uses: 'actions/cache'\n")
    found = [(s.line, s.message) for s in action_signals(base, head)]
    assert [line for line, _ in found] == [5, 7, 8], found  # checkout@v4 was already there
    assert "without a digest" in found[0][1] and "no version" in found[2][1]


# -- OSV ------------------------------------------------------------------------------------


def record(events: list[dict[str, str]], kind: str = "ECOSYSTEM", ecosystem: str = "PyPI",
           name: str = "pkg", **extra: object) -> dict[str, object]:
    return {"id": "OSV-1", "affected": [{"package": {"ecosystem": ecosystem, "name": name},
                                         "ranges": [{"type": kind, "events": events}]}],
            **extra}


@pytest.mark.parametrize(("events", "affected", "clean"), [
    ([{"introduced": "0"}, {"fixed": "1.5"}], ["0.1", "1.4.9", "1.5rc1"], ["1.5", "2.0"]),
    ([{"introduced": "1.0"}, {"last_affected": "1.2"}], ["1.0", "1.2"], ["0.9", "1.2.1"]),
    ([{"introduced": "0"}, {"fixed": "1.0"}, {"introduced": "2.0"}, {"fixed": "2.3"}],
     ["0.5", "2.0", "2.2.9"], ["1.0", "1.9", "2.3"]),
    ([{"introduced": "0"}, {"limit": "3.0"}], ["2.9"], ["3.0", "3.1"]),
    ([{"introduced": "1.0"}], ["1.0", "99"], ["0.9"]),
])
def test_osv_range_semantics(events: list[dict[str, str]], affected: list[str],
                             clean: list[str]) -> None:
    data = record(events)
    for version in affected:
        assert hits(data, Query("PyPI", "PKG", version)) is not None, version
    for version in clean:
        assert hits(data, Query("PyPI", "pkg", version)) is None, version


def test_osv_versions_list_semver_withdrawn_and_the_first_fix() -> None:
    data = record([{"introduced": "0"}, {"fixed": "4.17.12"}, {"introduced": "5.0.0"},
                   {"fixed": "5.0.3"}], kind="SEMVER", ecosystem="npm", name="lodash")
    hit = hits(data, Query("npm", "lodash", "4.17.11"))
    assert hit is not None and hit.fixed == "4.17.12"
    assert hit.affected == "<4.17.12, >=5.0.0, <5.0.3"
    assert hits(data, Query("npm", "lodash", "4.17.12")) is None
    assert hits(data, Query("npm", "lodash", "5.0.0-beta.1")) is None  # below 5.0.0
    assert hits(data, Query("npm", "lodash-es", "4.17.11")) is None
    listed = {"id": "OSV-2", "affected": [{"package": {"ecosystem": "PyPI", "name": "pkg"},
                                           "versions": ["1.0", "1.1"]}]}
    assert hits(listed, Query("PyPI", "pkg", "1.1.0")) is not None  # PEP 440: 1.1 == 1.1.0
    assert hits({**listed, "withdrawn": "2024-01-01T00:00:00Z"},
                Query("PyPI", "pkg", "1.1")) is None
    git_only = record([{"introduced": "0"}, {"fixed": "abc123"}], kind="GIT")
    assert hits(git_only, Query("PyPI", "pkg", "1.0")) is None


def test_cvss_scores_and_severities() -> None:
    assert cvss3_score("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H") == 9.8
    assert cvss3_score("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N") == 7.5
    assert cvss3_score("CVSS:3.0/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N") == 6.4
    assert cvss3_score("CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:N") == 0.0
    assert cvss3_score("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N") is None
    assert cvss2_score("AV:N/AC:L/Au:N/C:P/I:P/A:P") == 7.5
    assert severity_of({"severity": [{"type": "CVSS_V3", "score":
                                      "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}]}) == (
        Severity.CRITICAL, "CVSS 3 base score 9.8")
    assert severity_of({"database_specific": {"severity": "MODERATE"}}) == (
        Severity.MEDIUM, "database severity MODERATE")
    assert severity_of({}) == (None, "")


def test_versions() -> None:
    assert exact_pip("==1.2.3") == "1.2.3" and exact_pip("==1.*") is None
    assert exact_pip(">=1,<2") is None and exact_pip("") is None
    assert exact_npm("1.2.3") == "1.2.3" and exact_npm("=v1.2.3") == "1.2.3"
    assert exact_npm("^1.2.3") is None and exact_npm("1.2") is None
    assert SemVer("1.0.0-alpha") < SemVer("1.0.0-alpha.1") < SemVer("1.0.0-beta.2") \
        < SemVer("1.0.0-beta.11") < SemVer("1.0.0") < SemVer("1.0.1")
    assert SemVer("1.0.0+build.5") == SemVer("1.0.0")
    assert is_open("PyPI", ">=2") and is_open("PyPI", "") and not is_open("PyPI", ">=2,<3")
    assert is_open("npm", "*") and is_open("npm", ">=1.0.0") and not is_open("npm", "^1.2.0")


def test_a_well_known_package_is_not_a_typosquat() -> None:
    """A name among each registry's 15,000 most downloaded packages is a package people mean:
    markdown2 is one edit from markdown, cattrs from attrs, preact from react, and none of them
    imitates it. A new, unknown name one edit from a popular one still is reported."""
    for ecosystem, name in (("PyPI", "markdown2"), ("PyPI", "cattrs"), ("PyPI", "moto"),
                            ("PyPI", "scapy"), ("PyPI", "fastai"), ("PyPI", "psycopg-binary"),
                            ("PyPI", "Markdown2"), ("npm", "preact"), ("npm", "pnpm"),
                            ("npm", "safer-buffer")):
        assert look_alike(ecosystem, normalise(ecosystem, name)) is None, name
    assert look_alike("PyPI", "markdown3") == "markdown"  # an unknown extension is still one
    assert look_alike("PyPI", "reqeusts") == "requests"
    assert look_alike("npm", "expresss") == "express"


#: Requirements and constraints files as real projects name them (Home Assistant ships
#: homeassistant/package_constraints.txt; dev-requirements.txt is common).
NAMED = ("requirements.txt", "requirements_test.txt", "requirements/dev.in", "constraints.txt",
         "homeassistant/package_constraints.txt", "dev-requirements.txt",
         "test_requirements.txt", "docs/doc-requirements.in", "pip.constraints.txt")


@pytest.mark.parametrize("path", NAMED)
def test_prefixed_requirements_and_constraints_files_are_read_and_selected(path: str) -> None:
    import pathspec

    from pytest_secreview.rules.loader import bundled_rules_dir
    from pytest_secreview.rules.parse import parse_rule

    manifest = read_manifest(path, "aiohttp==3.9.3\n")
    assert manifest is not None and [(r.name, r.version) for r in manifest.requirements] == [
        ("aiohttp", "3.9.3")]
    for rule in ("vulnerable-dependency", "dependency-supply-chain"):
        source = bundled_rules_dir() / f"{rule}.md"
        paths = parse_rule(source.read_bytes(), str(source)).paths
        assert pathspec.GitIgnoreSpec.from_lines(paths).match_file(path), (rule, path)


@pytest.mark.parametrize("path", ("requirementsfoo.txt", "notes.txt", "myconstraints.txt",
                                  "README.in"))
def test_other_text_files_are_not_requirements(path: str) -> None:
    assert read_manifest(path, "aiohttp==3.9.3\n") is None


def test_a_package_stated_twice_is_compared_statement_by_statement() -> None:
    """Home Assistant's package_constraints.txt pins pyOpenSSL and states a floor for it
    further down; a release that moves both (==23.2.0 to ==24.0.0, >=23.1.0 to >=24.0.0)
    widens nothing: each head statement is compared with the base's statement of the same
    rank, not with the first one."""
    base = "pyOpenSSL==23.2.0\nrequests==2.31.0\n# floor\npyOpenSSL>=23.1.0\n"
    head = "pyOpenSSL==24.0.0\nrequests==2.31.0\n# floor\npyOpenSSL>=24.0.0\n"
    path = "homeassistant/package_constraints.txt"
    assert signals(path, base, head) == set()
    assert introduced(path, base, head) == [("pyOpenSSL", "24.0.0", 1), ("pyOpenSSL", None, 4)]
    # the floor alone turned into "any version" is still a widening
    assert signals(path, base, head.replace("pyOpenSSL>=24.0.0", "pyOpenSSL")) == set()
    assert signals(path, "a==1.0\n", "a\n") == {("pin-widened", 1)}
