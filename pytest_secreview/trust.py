"""The review's own configuration is read from the base revision.

pytest reads its configuration file (``pytest.ini``, ``pyproject.toml``, ``tox.ini``,
``setup.cfg``...) from the checkout, which is the pull request's head. A pull request that
edits it could point the model (and its credential) at another server, soften the verdict,
read rules from its own branch, or simply add an empty ``pytest.ini`` (which pytest prefers to
the base's ``pyproject.toml``) or delete the file. So the review resolves the configuration
**the way pytest would at the base revision**, from git objects, and takes its settings from
there; what the pull request changed is reported, not used.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import iniconfig

from .errors import GitError
from .gitcmd import run_git


def _pytest_knows_toml() -> bool:
    try:
        from _pytest.config import findpaths
    except ImportError:  # pragma: no cover - pytest always has it
        return False
    return "pytest.toml" in getattr(findpaths, "CONFIG_LOADERS_BY_NAME", {})


#: The names pytest discovers, in its precedence order within one directory (pytest 9 added
#: ``pytest.toml``; with older versions it is not looked for here either).
CONFIG_NAMES: tuple[str, ...] = tuple(
    name for name in ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini",
                      "pyproject.toml", "tox.ini", "setup.cfg")
    if not name.endswith("pytest.toml") or _pytest_knows_toml()
)


def parse_config(name: str, text: str) -> dict[str, Any] | None:
    """Every key of the pytest configuration in a file's ``text``, or None when the file holds
    no pytest configuration (pytest then looks further). ``name`` is the file's name and
    decides how it is read, as pytest does: ``pytest.ini`` always counts, even empty;
    ``tox.ini`` needs ``[pytest]``, ``setup.cfg`` ``[tool:pytest]``, ``pyproject.toml``
    ``[tool.pytest]`` or ``[tool.pytest.ini_options]``. A file that does not parse counts
    as an empty configuration: it is the base's, and its keys cannot be trusted to mean
    anything."""
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {}
        if name in ("pytest.toml", ".pytest.toml"):
            table = data.get("pytest", {})
            return dict(table) if isinstance(table, dict) else {}
        tool = data.get("tool", {})
        tool_pytest = tool.get("pytest") if isinstance(tool, dict) else None
        if not isinstance(tool_pytest, dict):
            return None
        native = {k: v for k, v in tool_pytest.items() if k != "ini_options"}
        if native:
            return native
        ini = tool_pytest.get("ini_options")
        if not isinstance(ini, dict):
            return None
        return {k: v if isinstance(v, list) else str(v) for k, v in ini.items()}
    try:
        parsed = iniconfig.IniConfig(name, data=text)
    except iniconfig.ParseError:
        return {} if name in ("pytest.ini", ".pytest.ini") else None
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    if section in parsed:
        return dict(parsed[section].items())
    return {} if name in ("pytest.ini", ".pytest.ini") else None


def _secreview_keys(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k == "secreview" or k.startswith("secreview_")}


@dataclass(frozen=True)
class ResolvedConfig:
    """The pytest configuration file chosen for a revision, and its keys.

    ``path`` is the file (absolute), None when there is none; ``values`` all its keys.
    """

    path: Path | None
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def secreview(self) -> dict[str, Any]:
        """The review's own keys (``secreview``, ``secreview_*``)."""
        return _secreview_keys(self.values)

    @property
    def addopts(self) -> list[str]:
        """``addopts`` split like pytest splits it (shell words; a TOML list as is)."""
        return split_addopts(self.values.get("addopts"))


def split_addopts(value: Any) -> list[str]:
    """pytest's reading of an ``addopts`` value: a list as given, a string as shell words."""
    import shlex

    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    try:
        return shlex.split(str(value))
    except ValueError:
        return str(value).split()


def _chain(start: Path, repo: Path) -> list[tuple[Path, str | None]]:
    """``start`` and its parents, each with its repository-relative path (None outside)."""
    out: list[tuple[Path, str | None]] = []
    for directory in (start, *start.parents):
        try:
            rel = directory.relative_to(repo).as_posix()
        except ValueError:
            rel = None
        out.append((directory, rel))
    return out


def _existing_at(repo: Path, revision: str, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (repository-relative) are files at ``revision``; one git call."""
    if not paths:
        return set()
    out = run_git(repo, "ls-tree", "-z", "--name-only", "--full-tree", "--end-of-options",
                  revision, "--", *paths).stdout
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


def resolve_config_at(
    repo: Path, revision: str, starts: Iterable[Path]
) -> ResolvedConfig:
    """The configuration pytest would read if the checkout were at ``revision``.

    pytest walks up from each argument path (the invocation directory without arguments) and
    takes the first directory holding a file from :data:`CONFIG_NAMES` that carries pytest
    configuration, in that order. Directories inside ``repo`` are read from git objects at
    ``revision``; directories above it are not the pull request's and are read from disk.
    A ``pyproject.toml`` without pytest settings is kept as the fallback, like pytest does.
    """
    repo = repo.resolve()
    fallback: Path | None = None
    for start in starts:
        chain = _chain(start.resolve(), repo)
        candidates = [str(PurePosixPath(rel, name)) if rel not in ("", ".") else name
                      for _, rel in chain if rel is not None for name in CONFIG_NAMES]
        present = _existing_at(repo, revision, candidates)
        for directory, rel in chain:
            for name in CONFIG_NAMES:
                path = directory / name
                if rel is None:
                    if not path.is_file():
                        continue
                    text = path.read_text("utf-8", "replace")
                else:
                    relpath = name if rel in ("", ".") else f"{rel}/{name}"
                    if relpath not in present:
                        continue
                    text = _blob(repo, revision, relpath)
                if name == "pyproject.toml" and fallback is None:
                    fallback = path
                values = parse_config(name, text)
                if values is not None:
                    return ResolvedConfig(path, values)
    return ResolvedConfig(fallback, {}) if fallback is not None else ResolvedConfig(None)


def _blob(repo: Path, revision: str, relative: str) -> str:
    blob = run_git(repo, "cat-file", "blob", "--end-of-options", f"{revision}:{relative}").stdout
    return blob.decode("utf-8", "replace")


def config_file_at(repo: Path, revision: str, path: Path) -> ResolvedConfig:
    """A configuration file named explicitly (``-c``) as it is at ``revision``: its keys
    when it lies inside ``repo`` (empty when the base has no such file), read from disk
    when it lies outside (the CI job provides it)."""
    try:
        relative = path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        if not path.is_file():
            return ResolvedConfig(path)
        return ResolvedConfig(path, _explicit(path.name, path.read_text("utf-8", "replace")))
    try:
        text = _blob(repo, revision, relative)
    except GitError:
        return ResolvedConfig(path)  # the pull request added the file: the base had none
    return ResolvedConfig(path, _explicit(path.name, text))


def _explicit(name: str, text: str) -> dict[str, Any]:
    # A file passed with -c may have any name; pytest reads it by suffix.
    if name in CONFIG_NAMES:
        return parse_config(name, text) or {}
    suffix = PurePosixPath(name).suffix
    alias = {".toml": "pyproject.toml", ".cfg": "setup.cfg"}.get(suffix, "tox.ini")
    values = parse_config(alias, text)
    if values is None and suffix == ".toml":
        values = parse_config("pytest.toml", text)
    return values or {}


def inside(repo: Path, path: Path | None) -> bool:
    """True when ``path`` lies inside the repository (the pull request controls it)."""
    if path is None:
        return False
    try:
        path.resolve().relative_to(repo.resolve())
    except ValueError:
        return False
    return True


def normalise(value: Any) -> Any:
    """A comparable form of an ini value (pytest's ``linelist`` strings vs TOML lists; a
    list of one value equals that value, as a key read as ``linelist`` at head and as a
    plain string at the base)."""
    if isinstance(value, list):
        items = [str(v).strip() for v in value if str(v).strip()]
    elif isinstance(value, str) and "\n" in value:
        items = [line.strip() for line in value.splitlines() if line.strip()]
    else:
        return value if not isinstance(value, str) else value.strip()
    return items[0] if len(items) == 1 else items


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
