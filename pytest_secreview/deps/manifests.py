"""Manifest and lock file texts read into :class:`~.model.Manifest` values.

Every reader takes the file's text (the pull request's, untrusted) and never runs or fetches
anything it names: ``setup.py`` is read with :mod:`ast` (literal lists only), TOML with
:mod:`tomllib`, JSON with :mod:`json`. A file that does not parse gives a manifest with its
``problem`` set and no requirement (the caller reports the problem; nothing is guessed).
Lines are 1-based head-file lines; structured formats locate an entry's line by its text
(their parsers keep no positions).
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement as PepRequirement

from .model import NPM, PYPI, Manifest, Requirement, Source
from .versions import exact, exact_npm

#: Requirements read from one file at most (a padded file cannot grow memory without bound).
MAX_REQUIREMENTS = 20_000
#: Longest logical line of a requirements file read.
MAX_LINE = 8_192

_PIP_COMMENT = re.compile(r"(^|\s+)#.*$")
_OPTION_SPLIT = re.compile(r"\s+(?=--?[A-Za-z])")
_VCS = re.compile(r"^(git|hg|svn|bzr)\+", re.IGNORECASE)
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_EGG = re.compile(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_ARCHIVE = re.compile(r"(?:^|/)([A-Za-z0-9][A-Za-z0-9._]*?)-\d[^/]*\.(?:whl|tar\.gz|zip|tar\.bz2)$")


def ecosystem_of(path: str) -> str:
    """The OSV ecosystem of the file at ``path``."""
    name = path.rpartition("/")[2].lower()
    return NPM if name in ("package.json", "package-lock.json", "npm-shrinkwrap.json") else PYPI


def read_manifest(path: str, text: str) -> Manifest | None:
    """The manifest at ``path`` read from ``text``; None when no reader knows the file."""
    name = path.rpartition("/")[2].lower()
    reader = _READERS.get(name)
    if reader is None and is_requirements_file(path):
        reader = read_requirements
    if reader is None:
        return None
    manifest = Manifest(path, lines=tuple(text.splitlines()))
    try:
        reader(manifest, text)
    except (ValueError, SyntaxError, TypeError, AttributeError, KeyError, RecursionError,
            configparser.Error) as exc:
        manifest.requirements.clear()
        manifest.problem = f"{name} could not be read: {_short(exc)}"
    del manifest.requirements[MAX_REQUIREMENTS:]
    return manifest


_REQ_NAME = re.compile(r"^(?:[\w.-]*[-_.])?(requirements|constraints)(?:[-_.][\w.-]*)?\.(txt|in)$",
                       re.IGNORECASE)


def is_requirements_file(path: str) -> bool:
    """True for ``requirements*.txt``/``.in``, ``constraints*.txt``/``.in``, the same words
    after a prefix and a separator (``dev-requirements.txt``, Home Assistant's
    ``package_constraints.txt``), and any ``.txt`` or ``.in`` file in a ``requirements/``
    directory."""
    directory, _, name = path.rpartition("/")
    if _REQ_NAME.match(name):
        return True
    return name.lower().endswith((".txt", ".in")) and "requirements" in directory.lower().split("/")


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


# -- requirements files ------------------------------------------------------------------

def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first physical line, logical line) with ``\\``-continuations joined and comments cut."""
    start, parts = 0, list[str]()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not parts:
            start = number
        if raw.endswith("\\"):
            parts.append(raw[:-1])
            continue
        parts.append(raw)
        line = " ".join(parts)[:MAX_LINE]
        parts = []
        line = _PIP_COMMENT.sub("", line).strip()
        if line:
            yield start, line
    if parts:
        line = _PIP_COMMENT.sub("", " ".join(parts)[:MAX_LINE]).strip()
        if line:
            yield start, line


#: Option -> the kind of source it names (None: an option that names none).
_PIP_OPTIONS: dict[str, str | None] = {
    "-r": "requirement", "--requirement": "requirement",
    "-c": "constraint", "--constraint": "constraint",
    "-i": "index-url", "--index-url": "index-url",
    "--extra-index-url": "extra-index-url", "--trusted-host": "trusted-host",
    "-f": "find-links", "--find-links": "find-links",
    "-e": "editable", "--editable": "editable",
}


def read_requirements(manifest: Manifest, text: str) -> None:
    """A pip requirements file: requirements, ``-r``/``-c`` includes, index and host options,
    ``--require-hashes``, editable and direct URL/VCS/path requirements, ``--hash`` pins."""
    for number, line in _logical_lines(text):
        if line.startswith("-"):
            first, *rest = line.split()
            option, sep, value = first.partition("=")
            if not sep:
                value = rest[0] if rest else ""
            if option[:2] in ("-r", "-c") and len(option) > 2 and not option.startswith("--"):
                option, value = option[:2], option[2:]
            if option == "--require-hashes":
                manifest.require_hashes = manifest.require_hashes or number
                continue
            kind = _PIP_OPTIONS.get(option)
            if kind == "editable":
                _direct(manifest, value, number, PYPI, group="editable")
            elif kind is not None:
                manifest.sources.append(Source(kind, value.split()[0] if value else "", number))
            continue
        _requirement_line(manifest, line, number)


def _requirement_line(manifest: Manifest, line: str, number: int) -> None:
    requirement, *options = _OPTION_SPLIT.split(line)
    hashes = sum(1 for option in options for o in option.split() if o.startswith("--hash"))
    if _URL.match(requirement) or _VCS.match(requirement) or requirement.startswith(
            (".", "/", "~")):
        _direct(manifest, requirement.split()[0], number, PYPI, hashes=hashes)
        return
    try:
        found = _pep508(requirement, number, "dependencies", hashes=hashes)
    except ValueError:
        if not requirement.endswith((".whl", ".tar.gz", ".zip")):
            raise
        _direct(manifest, requirement.split()[0], number, PYPI, hashes=hashes)  # a file name
        return
    manifest.requirements.append(found)


def _pep508(text: str, line: int, group: str, hashes: int = 0) -> Requirement:
    """A PEP 508 requirement string; raises ValueError when it is not one."""
    try:
        parsed = PepRequirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"line {line}: {text[:80]!r} is not a requirement ({_short(exc)})"
                         ) from None
    spec = str(parsed.specifier)
    if parsed.url:
        origin, location = _origin(parsed.url)
        return Requirement(PYPI, parsed.name, spec, None, line, group, origin, location, hashes)
    return Requirement(PYPI, parsed.name, spec, exact(PYPI, spec), line, group, hashes=hashes)


def _origin(location: str) -> tuple[str, str]:
    """(``vcs``, ``url`` or ``path``, location) of a direct reference."""
    if _VCS.match(location):
        return "vcs", location
    if location.lower().startswith("file:") or not _URL.match(location):
        return "path", location
    return "url", location


def _direct(manifest: Manifest, location: str, line: int, ecosystem: str, *,
            group: str = "dependencies", hashes: int = 0, name: str = "") -> None:
    """A requirement given by location (URL, VCS, path): its name from ``#egg=`` or the
    archive's file name when the line does not say."""
    if not name:
        egg = _EGG.search(location)
        archive = _ARCHIVE.search(location.split("#")[0])
        name = egg.group(1) if egg else archive.group(1) if archive else location[:100]
    origin, location = _origin(location)
    manifest.requirements.append(Requirement(ecosystem, name, "", None, line, group, origin,
                                             location, hashes))


# -- locating an entry in a structured file ----------------------------------------------

class _Lines:
    """Find the line an entry of a structured file is written on."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)

    def find(self, needle: str, start: int = 0, stop: int | None = None) -> int:
        """The first line (1-based) at or after ``start`` (0-based index) containing
        ``needle``, before ``stop``; 0 when none."""
        for index in range(start, len(self.lines) if stop is None else stop):
            if needle in self.lines[index]:
                return index + 1
        return 0

    def header(self, pattern: str) -> int:
        """The line of a TOML table header matching ``pattern`` (a regex of its dotted
        name), 0 when none."""
        regex = re.compile(r"^\s*\[\s*" + pattern + r"\s*\]\s*(#.*)?$")
        for index, line in enumerate(self.lines):
            if regex.match(line):
                return index + 1
        return 0

    def key_line(self, key: str, start: int) -> int:
        """The line of ``key = ...`` (bare or quoted) after line ``start``, else 0."""
        regex = re.compile(r"^\s*(?:" + re.escape(key) + "|\"" + re.escape(key) + "\"|'"
                           + re.escape(key) + r"')\s*=")
        for index in range(start, len(self.lines)):
            if regex.match(self.lines[index]):
                return index + 1
        return 0

    def string_line(self, value: str, start: int) -> int:
        """The line holding the string ``value`` (quoted) after ``start``; else anywhere."""
        for quote in ('"', "'"):
            found = self.find(quote + value + quote, start) or self.find(quote + value + quote)
            if found:
                return found
        return self.find(value, start) or self.find(value)


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML ({_short(exc)})") from None


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({_short(exc)})") from None


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# -- pyproject.toml ----------------------------------------------------------------------

def read_pyproject(manifest: Manifest, text: str) -> None:
    """``[project]`` dependencies and optional dependencies, PEP 735 ``[dependency-groups]``,
    ``[build-system] requires``, Poetry's dependencies and groups and its sources, uv's
    indexes and sources."""
    data = _toml(text)
    lines = _Lines(manifest.lines)
    project = _table(data.get("project"))
    start = lines.header(r"project")
    for entry in project.get("dependencies") or ():
        _pyproject_string(manifest, lines, entry, start, "dependencies")
    start = lines.header(r"project\.optional-dependencies") or start
    for extra, entries in _table(project.get("optional-dependencies")).items():
        at = lines.key_line(extra, start)
        for entry in entries if isinstance(entries, list) else ():
            _pyproject_string(manifest, lines, entry, at, f"optional:{extra}")
    start = lines.header(r"dependency-groups")
    for group, entries in _table(data.get("dependency-groups")).items():
        at = lines.key_line(group, start)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, str):  # {include-group = "..."} names another group
                _pyproject_string(manifest, lines, entry, at, f"group:{group}")
    start = lines.header(r"build-system")
    for entry in _table(data.get("build-system")).get("requires") or ():
        _pyproject_string(manifest, lines, entry, start, "build-system")
    tool = _table(data.get("tool"))
    _poetry(manifest, lines, _table(tool.get("poetry")))
    _uv(manifest, lines, _table(tool.get("uv")))


def _pyproject_string(manifest: Manifest, lines: _Lines, entry: Any, start: int,
                      group: str) -> None:
    if not isinstance(entry, str):
        return
    line = lines.string_line(entry, max(start - 1, 0)) or start or 1
    manifest.requirements.append(_pep508(entry, line, group))


def _poetry(manifest: Manifest, lines: _Lines, poetry: dict[str, Any]) -> None:
    sections: list[tuple[str, str, Any]] = [
        ("dependencies", r"tool\.poetry\.dependencies", poetry.get("dependencies")),
        ("dev-dependencies", r"tool\.poetry\.dev-dependencies", poetry.get("dev-dependencies")),
    ]
    for group, body in _table(poetry.get("group")).items():
        sections.append((f"group:{group}", r"tool\.poetry\.group\." + re.escape(group)
                         + r"\.dependencies", _table(body).get("dependencies")))
    for group, header, table in sections:
        start = lines.header(header)
        for name, value in _table(table).items():
            if name.lower() == "python":
                continue
            line = lines.key_line(name, start) or start or 1
            for constraint in value if isinstance(value, list) else [value]:
                manifest.requirements.append(_poetry_requirement(name, constraint, line, group))
    start = lines.header(r"\[\s*tool\.poetry\.source\s*\]")
    for source in poetry.get("source") or ():
        url = str(_table(source).get("url") or "")
        if url:
            line = lines.find(url) or start or 1
            kind = "index-url" if _table(source).get("priority") in ("default", "primary") \
                or _table(source).get("default") else "extra-index-url"
            manifest.sources.append(Source(kind, url, line))


_POETRY_EXACT = re.compile(r"^(?:==\s*)?(\d+(?:\.\d+)*(?:[-._]?[A-Za-z]+\.?\d*)*)$")


def _poetry_requirement(name: str, value: Any, line: int, group: str) -> Requirement:
    """Poetry's constraint (``^1.2``, ``~1.2``, ``1.2.3`` exact, ``*``) or table
    (``version``, ``git``, ``url``, ``path``)."""
    if isinstance(value, dict):
        for key, origin in (("git", "vcs"), ("url", "url"), ("path", "path")):
            if value.get(key):
                return Requirement(PYPI, name, "", None, line, group, origin, str(value[key]))
        value = value.get("version", "")
    spec = str(value).strip()
    match = _POETRY_EXACT.match(spec)
    return Requirement(PYPI, name, spec, match.group(1) if match else None, line, group)


def _uv(manifest: Manifest, lines: _Lines, uv: dict[str, Any]) -> None:
    for key in ("index-url", "extra-index-url"):
        values = uv.get(key)
        for url in [values] if isinstance(values, str) else values or ():
            manifest.sources.append(Source(key, str(url), lines.find(str(url)) or 1))
    for index in uv.get("index") or ():
        url = str(_table(index).get("url") or "")
        if url:
            kind = "index-url" if _table(index).get("default") else "extra-index-url"
            manifest.sources.append(Source(kind, url, lines.find(url) or 1))
    start = lines.header(r"tool\.uv\.sources")
    for name, value in _table(uv.get("sources")).items():
        for key, origin in (("git", "vcs"), ("url", "url"), ("path", "path")):
            if _table(value).get(key):
                line = lines.key_line(name, start) or start or 1
                manifest.requirements.append(Requirement(
                    PYPI, name, "", None, line, "tool.uv.sources", origin, str(value[key])))


# -- setup.cfg and setup.py --------------------------------------------------------------

def read_setup_cfg(manifest: Manifest, text: str) -> None:
    """``[options] install_requires`` and ``[options.extras_require]``."""
    parser = configparser.RawConfigParser(strict=False)
    parser.read_string(text)
    lines = _Lines(manifest.lines)
    pairs: list[tuple[str, str]] = []
    if parser.has_option("options", "install_requires"):
        pairs.append(("dependencies", parser.get("options", "install_requires")))
    if parser.has_section("options.extras_require"):
        pairs += [(f"optional:{extra}", value)
                  for extra, value in parser.items("options.extras_require")]
    start = lines.header(r"options")
    for group, value in pairs:
        for entry in (e.strip() for e in re.split(r"[\n;]", value) if e.strip()):
            if entry.startswith("#"):
                continue
            line = lines.find(entry, max(start - 1, 0)) or start or 1
            manifest.requirements.append(_pep508(entry, line, group))


def read_setup_py(manifest: Manifest, text: str) -> None:
    """The literal ``install_requires`` and ``extras_require`` of ``setup(...)``, read with
    :mod:`ast` and never run; a name bound once at module level to a literal list is
    followed. Anything computed is not a static requirement and is left out."""
    tree = ast.parse(text)
    names: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            names[node.targets[0].id] = node.value
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _callee(call.func) == "setup"):
            continue
        for keyword in call.keywords:
            value = names.get(keyword.value.id, keyword.value) if isinstance(
                keyword.value, ast.Name) else keyword.value
            if keyword.arg == "install_requires":
                _literal_list(manifest, value, "dependencies")
            elif keyword.arg == "extras_require" and isinstance(value, ast.Dict):
                for key, entries in zip(value.keys, value.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        if isinstance(entries, ast.Name):
                            entries = names.get(entries.id, entries)
                        _literal_list(manifest, entries, f"optional:{key.value}")


def _callee(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(
        func, ast.Name) else ""


def _literal_list(manifest: Manifest, node: ast.expr, group: str) -> None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return
    for element in node.elts:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            manifest.requirements.append(_pep508(element.value, element.lineno, group))


# -- Pipfile and Pipfile.lock ------------------------------------------------------------

def read_pipfile(manifest: Manifest, text: str) -> None:
    """``[packages]``, ``[dev-packages]`` and ``[[source]]``."""
    data = _toml(text)
    lines = _Lines(manifest.lines)
    for group in ("packages", "dev-packages"):
        start = lines.header(re.escape(group))
        for name, value in _table(data.get(group)).items():
            line = lines.key_line(name, start) or start or 1
            if isinstance(value, dict):
                for key, origin in (("git", "vcs"), ("file", "url"), ("path", "path")):
                    if value.get(key):
                        manifest.requirements.append(Requirement(
                            PYPI, name, "", None, line, group, origin, str(value[key])))
                        break
                else:
                    _pipfile_version(manifest, name, str(value.get("version", "*")), line, group)
            else:
                _pipfile_version(manifest, name, str(value), line, group)
    _source_list(manifest, lines, data.get("source"))


def _pipfile_version(manifest: Manifest, name: str, spec: str, line: int, group: str) -> None:
    spec = "" if spec.strip() == "*" else spec.strip()
    manifest.requirements.append(Requirement(PYPI, name, spec, exact(PYPI, spec), line, group))


def _source_list(manifest: Manifest, lines: _Lines, sources: Any) -> None:
    for n, source in enumerate(sources if isinstance(sources, list) else ()):
        url = str(_table(source).get("url") or "")
        if url:
            manifest.sources.append(Source("index-url" if n == 0 else "extra-index-url", url,
                                           lines.find(url) or 1))
        if url and _table(source).get("verify_ssl") is False:
            manifest.sources.append(Source("trusted-host", url, lines.find(url) or 1))


def read_pipfile_lock(manifest: Manifest, text: str) -> None:
    """``default`` and ``develop`` entries with their versions and hashes; ``_meta``'s
    sources."""
    data = _table(_json(text))
    lines = _Lines(manifest.lines)
    for group in ("default", "develop"):
        start = lines.find(json.dumps(group) + ":")
        for name, entry in _table(data.get(group)).items():
            entry = _table(entry)
            at = lines.find(json.dumps(name) + ":", start) or start or 1
            version_line = lines.find('"version"', at - 1, at + 40) or at
            hashes = len(entry.get("hashes") or ())
            for key, origin in (("git", "vcs"), ("file", "url"), ("path", "path")):
                if entry.get(key):
                    manifest.requirements.append(Requirement(
                        PYPI, name, "", None, at, group, origin, str(entry[key]), hashes, True))
                    break
            else:
                spec = str(entry.get("version") or "")
                manifest.requirements.append(Requirement(
                    PYPI, name, spec, exact(PYPI, spec), version_line, group, hashes=hashes,
                    lock=True))
    _source_list(manifest, lines, _table(data.get("_meta")).get("sources"))


# -- TOML lock files: poetry.lock, uv.lock, pdm.lock -------------------------------------

def _package_headers(lines: list[str]) -> list[int]:
    return [n for n, line in enumerate(lines) if line.strip() == "[[package]]"]


def read_toml_lock(manifest: Manifest, text: str) -> None:
    """``[[package]]`` entries of ``poetry.lock``, ``uv.lock`` and ``pdm.lock``: name,
    version, where it comes from (``source``: git, url, directory, a registry) and how many
    hashes pin it."""
    data = _toml(text)
    lines = list(manifest.lines)
    headers = _package_headers(lines)
    for n, package in enumerate(data.get("package") or ()):
        package = _table(package)
        name = str(package.get("name") or "")
        if not name:
            continue
        version = str(package.get("version") or "")
        first = headers[n] if n < len(headers) else 0
        end = headers[n + 1] if n + 1 < len(headers) else len(lines)
        line = _Lines(lines).find("version", first, end) or (first + 1)
        origin, location = _lock_source(package)
        hashes = _lock_hashes(package)
        manifest.requirements.append(Requirement(
            PYPI, name, f"=={version}" if version else "", version or None, line, "lock",
            origin, location, hashes, True))


def _lock_source(package: dict[str, Any]) -> tuple[str, str]:
    source = package.get("source")
    if isinstance(source, dict):
        if "git" in source or source.get("type") == "git":
            return "vcs", str(source.get("git") or source.get("url") or "")
        if "url" in source and source.get("type") in (None, "url", "file"):
            return "url", str(source["url"])
        for key in ("path", "directory", "editable", "virtual"):
            if key in source or source.get("type") == key:
                return "path", str(source.get(key) or source.get("url") or "")
    for key, origin in (("git", "vcs"), ("url", "url"), ("path", "path")):  # pdm
        if package.get(key):
            return origin, str(package[key])
    return "", ""


def _lock_hashes(package: dict[str, Any]) -> int:
    count = sum(1 for f in package.get("files") or () if _table(f).get("hash"))
    count += 1 if _table(package.get("sdist")).get("hash") else 0
    count += sum(1 for w in package.get("wheels") or () if _table(w).get("hash"))
    return count


# -- npm: package.json and package-lock.json ---------------------------------------------

_NPM_GROUPS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def read_package_json(manifest: Manifest, text: str) -> None:
    """The four dependency maps of ``package.json``: ranges as written, exact versions,
    and git, URL, GitHub-shorthand and ``file:`` specs."""
    data = _table(_json(text))
    lines = _Lines(manifest.lines)
    for group in _NPM_GROUPS:
        start = lines.find(json.dumps(group) + ":")
        for name, spec in _table(data.get(group)).items():
            spec = str(spec)
            line = lines.find(json.dumps(name) + ":", max(start - 1, 0)) or start or 1
            origin, location = _npm_origin(spec)
            if spec.startswith("npm:"):  # an alias: "lodash-es": "npm:lodash@4.17.21"
                alias, _, spec = spec[4:].rpartition("@")
                name = alias or name
            manifest.requirements.append(Requirement(
                NPM, name, spec, None if origin else exact_npm(spec), line, group, origin,
                location))


_GITHUB_SHORTHAND = re.compile(r"^(github:|gitlab:|bitbucket:|gist:)?[A-Za-z0-9_.-]+/"
                               r"[A-Za-z0-9_.-]+(#.*)?$")


def _npm_origin(spec: str) -> tuple[str, str]:
    lowered = spec.lower()
    if lowered.startswith(("git+", "git:", "git@")) or _GITHUB_SHORTHAND.match(spec):
        return "vcs", spec
    if lowered.startswith(("http://", "https://")):
        return "url", spec
    if lowered.startswith(("file:", "link:", ".", "/", "~")):
        return "path", spec
    return "", ""


def read_package_lock(manifest: Manifest, text: str) -> None:
    """``package-lock.json``/``npm-shrinkwrap.json``: the ``packages`` map (lockfile v2, v3)
    or the nested ``dependencies`` (v1); each entry's version, where it resolved from and
    its integrity."""
    data = _table(_json(text))
    lines = _Lines(manifest.lines)
    packages = _table(data.get("packages"))
    if packages:
        for key, entry in packages.items():
            if not key or not isinstance(entry, dict) or entry.get("link"):
                continue
            name = str(entry.get("name") or key.rpartition("node_modules/")[2])
            at = lines.find(json.dumps(key) + ":") or 1
            _npm_lock_entry(manifest, lines, name, entry, at)
        return
    stack: list[tuple[dict[str, Any], int]] = [(_table(data.get("dependencies")), 0)]
    while stack:
        deps, start = stack.pop()
        for name, entry in deps.items():
            entry = _table(entry)
            at = lines.find(json.dumps(name) + ":", start) or start or 1
            _npm_lock_entry(manifest, lines, name, entry, at)
            if entry.get("dependencies"):
                stack.append((_table(entry["dependencies"]), at))


def _npm_lock_entry(manifest: Manifest, lines: _Lines, name: str, entry: dict[str, Any],
                    at: int) -> None:
    version = str(entry.get("version") or "")
    resolved = str(entry.get("resolved") or "")
    line = lines.find('"version"', at - 1, at + 40) or at
    origin, location = _npm_origin(version) if not exact_npm(version) else ("", "")
    if not origin and resolved and not resolved.startswith("https://registry.npmjs.org/"):
        origin, location = _npm_origin(resolved)
        if origin == "url":  # another registry's tarball: its registry is a source
            origin, location = "", ""
            scheme, _, rest = resolved.partition("://")
            manifest.sources.append(Source("registry", f"{scheme}://{rest.split('/')[0]}/",
                                           line))
    manifest.requirements.append(Requirement(
        NPM, name, version, exact_npm(version), line, "lock", origin, location,
        1 if entry.get("integrity") else 0, True))


_READERS: dict[str, Callable[[Manifest, str], None]] = {
    "pyproject.toml": read_pyproject,
    "setup.cfg": read_setup_cfg,
    "setup.py": read_setup_py,
    "pipfile": read_pipfile,
    "pipfile.lock": read_pipfile_lock,
    "poetry.lock": read_toml_lock,
    "uv.lock": read_toml_lock,
    "pdm.lock": read_toml_lock,
    "package.json": read_package_json,
    "package-lock.json": read_package_lock,
    "npm-shrinkwrap.json": read_package_lock,
}
