"""What a manifest or lock file says: requirements and the options that decide where packages
come from, each with the line it is written on."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: OSV's ecosystem names.
PYPI = "PyPI"
NPM = "npm"

_PEP503 = re.compile(r"[-_.]+")


def normalise(ecosystem: str, name: str) -> str:
    """The name a registry compares: PEP 503 for PyPI (``Foo_Bar`` is ``foo-bar``), lower
    case for npm."""
    if ecosystem == PYPI:
        return _PEP503.sub("-", name).lower()
    return name.lower()


@dataclass(frozen=True)
class Requirement:
    """One dependency as a manifest or lock file states it.

    ``spec`` is the version constraint as written (``==2.19.0``, ``>=2,<3``, ``^1.2.0``; empty:
    any version); ``version`` the one exact version it pins (a ``==`` pin, an exact npm
    version, a lock entry), else None; ``origin`` where it is fetched from when that is not the
    registry (``url``, ``vcs`` or ``path``, with ``location``)."""

    ecosystem: str
    name: str
    spec: str
    version: str | None
    line: int
    group: str = ""  # "dependencies", "optional:dev", "group:test", "dev-packages"...
    origin: str = ""  # "" (the registry), "url", "vcs" or "path"
    location: str = ""
    hashes: int = 0  # how many --hash / integrity values pin it
    lock: bool = False  # a lock file's entry (resolved), not a manifest's constraint

    @property
    def key(self) -> str:
        """The normalised name."""
        return normalise(self.ecosystem, self.name)


@dataclass(frozen=True)
class Source:
    """Where packages come from, as a manifest configures it: an index (``--index-url``,
    ``--extra-index-url``, a Poetry/Pipenv/uv source), a ``--trusted-host``, a
    ``--find-links`` location, an included file (``-r``/``-c``)."""

    kind: str  # index-url, extra-index-url, trusted-host, find-links, requirement, constraint
    value: str
    line: int


@dataclass
class Manifest:
    """Everything read from one file."""

    path: str
    requirements: list[Requirement] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    require_hashes: int = 0  # the line of --require-hashes, 0 when absent
    problem: str | None = None  # why (part of) the file could not be read
    lines: tuple[str, ...] = ()

    def text_of(self, line: int) -> str:
        """The text of ``line`` (1-based), '' outside the file."""
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""
