"""Load a labelled pull-request corpus: one ``case.yaml`` per case directory, with its
``base/`` tree and either a ``head/`` tree or a ``patch`` applied to base, into frozen
:class:`Case` values.

``case.yaml`` is a trust boundary (a team points ``secreview bench`` at its own corpus), so it
is validated by pydantic and every error names the file, the key, the value and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import SecreviewError
from .trees import FAKES, PatchError, apply_patch, fill


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
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]{3,63}$")


@dataclass(frozen=True)
class Expected:
    """One finding a perfect reviewer reports: rule, head-relative path, inclusive line range
    of the sink, and CWE."""

    rule: str
    path: str
    lines: tuple[int, int]
    cwe: str
    # Other rule ids or CWEs that name the same problem (a template injection reported as
    # xss or code-injection, a removed check found by the general review).
    also: tuple[str, ...] = ()

    def identifies(self, rule: str, cwe: str | None) -> bool:
        """Whether a finding of ``rule`` carrying ``cwe`` is of this problem's kind."""
        kinds = {self.rule, self.cwe, *self.also}
        return rule in kinds or (cwe or "").upper() in kinds

    def contains(self, line: int) -> bool:
        """Whether ``line`` lies in the expected range."""
        return self.lines[0] <= line <= self.lines[1]


@dataclass(frozen=True)
class Case:
    """One labelled pull request: the files at base (``None`` = no base tree: the PR adds
    every head file) and at head (a ``head/`` tree, or ``patch`` applied to base), and what
    should be reported. ``fill`` maps placeholder names in the files to fake-credential kinds
    (:data:`~.trees.FAKES`), expanded by :meth:`files`. ``category`` is ``None`` for a case
    outside the taint categories (a team's own rule, a removed safeguard)."""

    id: str
    description: str
    category: str | None
    vulnerable: bool
    twin: str | None
    tags: tuple[str, ...]
    expect: tuple[Expected, ...]
    directory: Path
    base: Path | None
    head: Path | None
    patch: Path | None = None
    fill: tuple[tuple[str, str], ...] = ()

    def _tree(self, root: Path | None) -> dict[str, bytes]:
        if root is None:
            return {}
        placeholders = dict(self.fill)
        return {
            p.relative_to(root).as_posix(): fill(p.read_bytes(), placeholders)
            for p in sorted(root.rglob("*")) if p.is_file()
        }

    def files(self, tree: str) -> dict[str, bytes]:
        """Every file of ``tree`` (``"base"`` or ``"head"``) by POSIX path relative to it,
        placeholders filled. Raises :class:`CorpusError` when the patch does not apply."""
        if tree != "head":
            return self._tree(self.base)
        if self.patch is None:
            return self._tree(self.head)
        try:
            return apply_patch(self._tree(self.base),
                               fill(self.patch.read_bytes(), dict(self.fill)))
        except (OSError, PatchError) as exc:
            raise CorpusError(
                f"{self.directory / 'case.yaml'}: key 'patch' value "
                f"{self.patch.name!r} does not apply to base/ ({exc}); regenerate it with "
                "`git diff` from the base tree to the head tree") from exc


class _ExpectModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = Field(pattern=_ID.pattern)
    path: str = Field(min_length=1)
    lines: tuple[int, int]
    cwe: str = Field(pattern=_CWE.pattern)
    also: tuple[str, ...] = ()

    @field_validator("also")
    @classmethod
    def _kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for kind in value:
            if not (_ID.match(kind) or _CWE.match(kind)):
                raise ValueError(f"{kind!r} is neither a rule id nor CWE-<number>; write "
                                 "e.g. [xss, CWE-1336]")
        return value

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
    category: str | None = None
    vulnerable: bool
    twin: str | None = Field(default=None, pattern=_ID.pattern)
    tags: tuple[str, ...] = ()
    expect: tuple[_ExpectModel, ...] = ()
    patch: str | None = Field(default=None, min_length=1)
    fill: dict[str, str] = Field(default_factory=dict)

    @field_validator("category")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in CATEGORIES:
            raise ValueError(f"must be one of {', '.join(CATEGORIES)} (or leave it out)")
        return value

    @field_validator("patch")
    @classmethod
    def _patch_name(cls, value: str | None) -> str | None:
        if value is not None and (PurePosixPath(value).is_absolute() or "/" in value
                                  or "\\" in value or value in {".", ".."}):
            raise ValueError("must be a file name in the case directory, e.g. change.patch")
        return value

    @field_validator("fill")
    @classmethod
    def _placeholders(cls, value: dict[str, str]) -> dict[str, str]:
        for name, kind in value.items():
            if not _PLACEHOLDER.match(name):
                raise ValueError(f"placeholder {name!r} must be upper-case letters, digits "
                                 "or '_', at least 4 long, e.g. AWS_KEY_ID")
            if kind not in FAKES:
                raise ValueError(f"placeholder {name!r} has kind {kind!r}; known kinds: "
                                 f"{', '.join(FAKES)}")
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
    "also": "write a list of other rule ids or CWEs naming the same problem, e.g. [xss]",
    "lines": "write [first, last], e.g. [14, 14]",
    "path": "write a path relative to head/, e.g. app/views.py",
    "patch": "name the unified diff file next to case.yaml, e.g. change.patch",
    "fill": "write {PLACEHOLDER: kind}, e.g. {AWS_KEY_ID: aws_access_key_id}",
    "category": "leave it out, or use a category of benchmarks/corpus/README.md",
}


def _describe(error: Mapping[str, Any]) -> tuple[str, str]:
    loc = tuple(str(part) for part in error.get("loc", ()))
    key = ".".join(loc) or "(top level)"
    if error.get("type") == "extra_forbidden":
        return key, (f"(value {error.get('input')!r}) is not a case.yaml key; remove it "
                     "(allowed: id, description, category, vulnerable, twin, tags, expect, patch, "
                     "fill; in expect: rule, path, lines, cwe, also)")
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
    patch = directory / model.patch if model.patch is not None else None
    if patch is not None and head.exists():
        raise CorpusError(f"{file}: key 'patch' value {model.patch!r} and a head/ directory "
                          "both give the head revision; keep one of them")
    if patch is not None and (patch.is_symlink() or not patch.is_file()):
        raise CorpusError(f"{file}: key 'patch' value {model.patch!r} is not a regular file "
                          f"in {directory}; write the unified diff there (git diff > "
                          f"{model.patch})")
    if patch is None and not head.is_dir():
        raise CorpusError(f"{file}: the case has no head/ directory; create {head} with the "
                          "files at the pull request's head revision, or set key 'patch' to "
                          "a unified diff applied to base/")
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
    case = Case(
        id=case_id, description=model.description, category=model.category,
        vulnerable=model.vulnerable, twin=model.twin, tags=model.tags, expect=(),
        directory=directory, base=base if base.is_dir() else None,
        head=head if patch is None else None, patch=patch, fill=tuple(model.fill.items()),
    )
    _check_placeholders(file, case)
    files = case.files("head")
    expect = tuple(_check_expect(file, files, i, e) for i, e in enumerate(model.expect))
    return replace(case, expect=expect)


def _check_placeholders(file: Path, case: Case) -> None:
    # A placeholder no file uses is a typo: the case would silently test nothing.
    raw = [p.read_bytes() for tree in (case.base, case.head) if tree is not None
           for p in tree.rglob("*") if p.is_file()]
    if case.patch is not None:
        raw.append(case.patch.read_bytes())
    for name, _kind in case.fill:
        if not any(name.encode() in data for data in raw):
            raise CorpusError(f"{file}: key 'fill.{name}' names a placeholder that no file of "
                              "the case contains; write it in the code or remove it")


def _check_expect(file: Path, head: Mapping[str, bytes], index: int,
                  e: _ExpectModel) -> Expected:
    where = "the head revision (head/ or base/ with the patch applied)"
    if e.path not in head:
        raise CorpusError(f"{file}: key 'expect.{index}.path' names {e.path!r}, which is not a "
                          f"file of {where}; fix the path or add the file")
    count = len(head[e.path].splitlines())
    if e.lines[1] > count:
        raise CorpusError(f"{file}: key 'expect.{index}.lines' is {list(e.lines)} but "
                          f"head/{e.path} has {count} lines; point it at the sink's lines")
    return Expected(rule=e.rule, path=e.path, lines=e.lines, cwe=e.cwe, also=e.also)


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
