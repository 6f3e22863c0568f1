"""Load a labelled pull-request corpus: one ``case.yaml`` per case directory, with its
``base/`` and ``head/`` trees, into frozen :class:`Case` values.

``case.yaml`` is a trust boundary (a team points ``secreview bench`` at its own corpus), so it
is validated by pydantic and every error names the file, the key, the value and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import SecreviewError


class CorpusError(SecreviewError):
    """A corpus or one of its cases is invalid; the message says where and how to fix it."""


@dataclass(frozen=True)
class Category:
    """A vulnerability class of the corpus: the bundled rule that covers it and its CWE."""

    name: str
    rule: str
    cwe: str


CATEGORIES: Mapping[str, Category] = {
    c.name: c
    for c in (
        Category("sql", "sql-injection", "CWE-89"),
        Category("command", "command-injection", "CWE-78"),
        Category("code", "code-injection", "CWE-94"),
        Category("path", "path-traversal", "CWE-22"),
        Category("ssrf", "ssrf", "CWE-918"),
        Category("redirect", "open-redirect", "CWE-601"),
        Category("xss", "xss", "CWE-79"),
        Category("deserialization", "unsafe-deserialization", "CWE-502"),
        Category("ldap", "ldap-injection", "CWE-90"),
        Category("xpath", "xpath-injection", "CWE-643"),
        Category("xxe", "xxe", "CWE-611"),
        Category("trust-boundary", "trust-boundary", "CWE-501"),
    )
}

_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,120}$")
_CWE = re.compile(r"^CWE-[1-9][0-9]{0,5}$")


@dataclass(frozen=True)
class Expected:
    """One finding a perfect reviewer reports: rule, head-relative path, inclusive line range
    of the sink, and CWE."""

    rule: str
    path: str
    lines: tuple[int, int]
    cwe: str

    def contains(self, line: int) -> bool:
        """Whether ``line`` lies in the expected range."""
        return self.lines[0] <= line <= self.lines[1]


@dataclass(frozen=True)
class Case:
    """One labelled pull request: the files at base (``None`` = no base tree: the PR adds
    every head file) and at head, and what should be reported."""

    id: str
    description: str
    category: str
    vulnerable: bool
    twin: str | None
    tags: tuple[str, ...]
    expect: tuple[Expected, ...]
    directory: Path
    base: Path | None
    head: Path

    def files(self, tree: str) -> dict[str, bytes]:
        """Every file of ``tree`` (``"base"`` or ``"head"``) by POSIX path relative to it."""
        root = self.head if tree == "head" else self.base
        if root is None:
            return {}
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()
        }


class _ExpectModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = Field(pattern=_ID.pattern)
    path: str = Field(min_length=1)
    lines: tuple[int, int]
    cwe: str = Field(pattern=_CWE.pattern)

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        pure = PurePosixPath(value)
        if pure.is_absolute() or ".." in pure.parts or "\\" in value:
            raise ValueError("must be a POSIX path relative to head/ without '..', "
                             "e.g. app/views.py")
        return value

    @field_validator("lines")
    @classmethod
    def _range(cls, value: tuple[int, int]) -> tuple[int, int]:
        if value[0] < 1 or value[1] < value[0]:
            raise ValueError("must be [first, last] with 1 <= first <= last, e.g. [14, 14]")
        return value


class _CaseModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, pattern=_ID.pattern)
    description: str = Field(min_length=1)
    category: str
    vulnerable: bool
    twin: str | None = Field(default=None, pattern=_ID.pattern)
    tags: tuple[str, ...] = ()
    expect: tuple[_ExpectModel, ...] = ()

    @field_validator("category")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"must be one of {', '.join(CATEGORIES)}")
        return value


_FIX = {
    "id": "use lower-case letters, digits, '.', '_' or '-', e.g. sql-flask-fstring",
    "twin": "give the id of the near-identical case, e.g. sql-flask-fstring-safe",
    "description": "write one line saying what flows where",
    "vulnerable": "write true or false",
    "tags": "write a list of words, e.g. [flask, fstring]",
    "expect": "write a list of {rule, path, lines, cwe} mappings, or [] for a safe case",
    "rule": "write the rule id, e.g. sql-injection",
    "cwe": "write CWE-<number>, e.g. CWE-89",
    "lines": "write [first, last], e.g. [14, 14]",
    "path": "write a path relative to head/, e.g. app/views.py",
}


def _describe(error: Mapping[str, Any]) -> tuple[str, str]:
    loc = tuple(str(part) for part in error.get("loc", ()))
    key = ".".join(loc) or "(top level)"
    if error.get("type") == "extra_forbidden":
        return key, (f"(value {error.get('input')!r}) is not a case.yaml key; remove it "
                     "(allowed: id, description, category, vulnerable, twin, tags, expect; in "
                     "expect: rule, path, lines, cwe)")
    if error.get("type") == "missing":
        return key, "is required; add it"
    leaf = next((part for part in reversed(loc) if part in _FIX), "")
    fix = f"; {_FIX[leaf]}" if leaf else ""
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    return key, f"value {error.get('input')!r} is invalid: {message}{fix}"


def load_case(directory: Path) -> Case:
    """Load and validate the case in ``directory`` (which holds ``case.yaml``).

    Raises :class:`CorpusError` naming the file, the key, the value and the fix.
    """
    file = directory / "case.yaml"
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CorpusError(f"{file}: cannot read it as YAML ({exc}); fix the file") from exc
    if not isinstance(raw, dict):
        raise CorpusError(f"{file}: must be a mapping of keys (id, description, category, "
                          f"vulnerable, twin, tags, expect), got {type(raw).__name__}")
    try:
        model = _CaseModel.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{file}: key {key!r} {why}" for key, why in map(_describe, exc.errors())]
        raise CorpusError("\n".join(lines)) from exc
    case_id = model.id or directory.name
    if not _ID.match(case_id):
        raise CorpusError(f"{file}: the case id {case_id!r} (from the directory name) is not "
                          "lower-case letters, digits, '.', '_' or '-'; set key 'id'")
    head = directory / "head"
    if not head.is_dir():
        raise CorpusError(f"{file}: the case has no head/ directory; create {head} with the "
                          "files at the pull request's head revision")
    base = directory / "base"
    for tree in (head, base):
        # A case is data: a link could make a benchmark read (and a report quote) any file.
        link = next((p for p in tree.rglob("*") if p.is_symlink()), None) if tree.is_dir() else None
        if link is not None:
            raise CorpusError(f"{file}: {link} is a symbolic link; a case holds regular files "
                              "only, so copy the file's content instead")
    if model.vulnerable and not model.expect:
        raise CorpusError(f"{file}: key 'expect' is empty but 'vulnerable' is true; list the "
                          "expected findings (rule, path, lines, cwe) or set vulnerable: false")
    if not model.vulnerable and model.expect:
        raise CorpusError(f"{file}: key 'expect' lists findings but 'vulnerable' is false; a "
                          "safe case expects nothing: use expect: [] or set vulnerable: true")
    expect = tuple(_check_expect(file, head, i, e) for i, e in enumerate(model.expect))
    return Case(
        id=case_id, description=model.description, category=model.category,
        vulnerable=model.vulnerable, twin=model.twin, tags=model.tags, expect=expect,
        directory=directory, base=base if base.is_dir() else None, head=head,
    )


def _check_expect(file: Path, head: Path, index: int, e: _ExpectModel) -> Expected:
    target = head / e.path
    if not target.is_file():
        raise CorpusError(f"{file}: key 'expect.{index}.path' names {e.path!r}, which is not a "
                          f"file under head/; fix the path or add {target}")
    count = len(target.read_bytes().splitlines())
    if e.lines[1] > count:
        raise CorpusError(f"{file}: key 'expect.{index}.lines' is {list(e.lines)} but "
                          f"head/{e.path} has {count} lines; point it at the sink's lines")
    return Expected(rule=e.rule, path=e.path, lines=e.lines, cwe=e.cwe)


def load_corpus(root: Path) -> tuple[Case, ...]:
    """Every case under ``root`` (a case directory is one holding ``case.yaml``), sorted by
    id. Ids must be unique and twins must exist and name each other back."""
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory; pass the corpus root (the directory that "
                          "holds the case directories)")
    cases = tuple(sorted((load_case(f.parent) for f in root.rglob("case.yaml")
                          if "head" not in f.parent.relative_to(root).parts
                          and "base" not in f.parent.relative_to(root).parts),
                         key=lambda c: c.id))
    if not cases:
        raise CorpusError(f"{root}: no case.yaml found; each case is a directory with "
                          "case.yaml and head/ (see benchmarks/corpus/README.md)")
    by_id: dict[str, Case] = {}
    for case in cases:
        if case.id in by_id:
            raise CorpusError(f"{case.directory / 'case.yaml'}: key 'id' value {case.id!r} is "
                              f"also used by {by_id[case.id].directory}; ids must be unique")
        by_id[case.id] = case
    for case in cases:
        if case.twin is None:
            continue
        other = by_id.get(case.twin)
        file = case.directory / "case.yaml"
        if other is None:
            raise CorpusError(f"{file}: key 'twin' value {case.twin!r} is not a case id in "
                              f"{root}; fix the id or add the twin case")
        if other.twin != case.id:
            raise CorpusError(f"{file}: key 'twin' value {case.twin!r} does not name "
                              f"{case.id!r} back (its twin is {other.twin!r}); twins name "
                              "each other")
    return cases
