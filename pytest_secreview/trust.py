"""The review's own configuration is read from the base revision.

pytest reads its ini file (``pytest.ini``, ``pyproject.toml``, ``tox.ini``, ``setup.cfg``) from
the checkout, which is the pull request's head. A pull request that edits the ``secreview_*``
keys there could point the model (and its credential) at another server, soften the verdict
or read rules from its own branch. So, like the rules, these keys are taken from the same ini
file as it is at the base revision; what the pull request changed is reported, not used.
"""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path
from typing import Any

from .errors import GitError
from .gitcmd import run_git

_SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest",
             "setup.cfg": "tool:pytest"}


def _secreview_keys(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k == "secreview" or k.startswith("secreview_")}


def parse_ini_text(name: str, text: str) -> dict[str, Any]:
    """The ``secreview*`` keys of an ini file's text (a TOML file's pytest table, or the
    pytest section of an INI file); lists stay lists, INI values stay strings."""
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {}
        table = data.get("tool", {}).get("pytest", {}).get("ini_options", {})
        return _secreview_keys(table if isinstance(table, dict) else {})
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    section = _SECTIONS.get(name, "pytest")
    if not parser.has_section(section):
        return {}
    return _secreview_keys(dict(parser.items(section)))


def ini_at_revision(repo: Path, revision: str, inipath: Path | None) -> dict[str, Any] | None:
    """The ``secreview*`` keys of ``inipath`` as it is at ``revision``; None when the ini file
    lies outside the repository (a file the CI job provides, e.g. with ``-c``, is trusted)."""
    if inipath is None:
        return {}
    try:
        relative = inipath.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return None
    try:
        blob = run_git(repo, "cat-file", "blob", "--end-of-options",
                       f"{revision}:{relative}").stdout
    except GitError:
        return {}  # the pull request added the file: the base had no such settings
    return parse_ini_text(inipath.name, blob.decode("utf-8", "replace"))


def normalise(value: Any) -> Any:
    """A comparable form of an ini value (pytest's ``linelist`` strings vs TOML lists)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str) and "\n" in value:
        return [line.strip() for line in value.splitlines() if line.strip()]
    return value if not isinstance(value, str) else value.strip()


def tracked_under(repo: Path, revision: str, directory: Path) -> bool:
    """True when the commit ``revision`` tracks files under ``directory`` (a directory that
    a pull request could fill with forged content, such as a cache)."""
    try:
        relative = directory.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return False
    out = run_git(repo, "ls-tree", "-r", "--name-only", "--end-of-options", revision, "--",
                  relative or ".").stdout
    return bool(out.strip())
