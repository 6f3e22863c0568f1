"""Versions of the two ecosystems: PEP 440 for PyPI (``packaging``), Semantic Versioning 2.0.0
for npm (a small comparator: OSV's ``SEMVER`` ranges and npm versions). Ranges are never
expanded: a constraint that is not one exact version is reported as written."""

from __future__ import annotations

import functools
import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .model import NPM, PYPI

_SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")

#: Longest version string read (a pull request's text).
MAX_VERSION = 128


@functools.total_ordering
class SemVer:
    """A Semantic Versioning 2.0.0 version; build metadata is ignored in comparisons."""

    __slots__ = ("core", "pre")

    def __init__(self, text: str) -> None:
        match = _SEMVER.match(text.strip()) if len(text) <= MAX_VERSION else None
        if match is None:
            raise ValueError(f"{text!r} is not a semantic version")
        self.core = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        self.pre: tuple[tuple[int, int | str], ...] = tuple(
            (0, int(p)) if p.isdigit() else (1, p)
            for p in (match.group(4).split(".") if match.group(4) else ()))

    def _key(self) -> tuple[Any, ...]:
        # A release sorts after its pre-releases; identifiers compare numerically first.
        return (self.core, not self.pre, self.pre)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SemVer) and self._key() == other._key()

    def __lt__(self, other: SemVer) -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())


#: A version of either ecosystem.
AnyVersion = Version | SemVer


def parse_version(ecosystem: str, text: str) -> AnyVersion | None:
    """``text`` as a version of ``ecosystem``, or None when it is not one."""
    if not text or len(text) > MAX_VERSION:
        return None
    try:
        return SemVer(text) if ecosystem == NPM else Version(text)
    except (InvalidVersion, ValueError):
        return None


def exact_pip(spec: str) -> str | None:
    """The one version a PEP 440 specifier set pins (``==1.2.3``, ``===1.2.3``), else None
    (a range, a wildcard ``==1.2.*``, several clauses)."""
    try:
        specs = list(SpecifierSet(spec))
    except InvalidSpecifier:
        return None
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
        return None
    return specs[0].version


_NPM_EXACT = re.compile(r"^=?\s*v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$")


def exact_npm(spec: str) -> str | None:
    """The one version an npm range pins (``1.2.3``, ``=1.2.3``, ``v1.2.3``), else None."""
    match = _NPM_EXACT.match(spec.strip())
    return match.group(1) if match and parse_version(NPM, match.group(1)) else None


def exact(ecosystem: str, spec: str) -> str | None:
    """The exact version ``spec`` pins in ``ecosystem``, else None."""
    return exact_npm(spec) if ecosystem == NPM else exact_pip(spec)


def is_open(ecosystem: str, spec: str) -> bool:
    """True when ``spec`` has no upper bound (any future release is taken): empty, ``*``,
    ``latest``, ``>=1.0``, npm's ``^``/``~`` are bounded and are not open."""
    text = spec.strip()
    if text in ("", "*", "latest", "x", "X"):
        return True
    if ecosystem == PYPI:
        try:
            specs = list(SpecifierSet(text))
        except InvalidSpecifier:
            return False
        return bool(specs) and all(s.operator in (">=", ">", "!=") for s in specs)
    alternatives = [a.strip() for a in text.split("||")]
    return any(a in ("", "*", "x", "X") or (a.startswith(">") and "<" not in a)
               for a in alternatives)
