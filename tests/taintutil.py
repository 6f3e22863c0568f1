"""Helpers for the taint engine tests: the bundled rules' taint sections, and analysing
snippets whose expected sinks are marked with a ``# VULN`` comment."""

from __future__ import annotations

import textwrap
from functools import cache
from pathlib import Path

from pytest_secreview.analysis.catalogue import PRESETS
from pytest_secreview.analysis.parse import parse_module
from pytest_secreview.analysis.project import Project
from pytest_secreview.analysis.spec import Catalogue, TaintSpec, merge
from pytest_secreview.analysis.values import Hit
from pytest_secreview.rules.parse import parse_rule

RULES = Path(__file__).resolve().parent.parent / "rules"


@cache
def bundled_specs() -> tuple[TaintSpec, ...]:
    """The taint sections of the bundled rule pack."""
    specs = []
    for path in sorted(RULES.glob("*.md")):
        rule = parse_rule(path.read_bytes(), f"rules/{path.name}")
        if rule.taint is not None:
            specs.append(rule.taint)
    return tuple(specs)


@cache
def catalogue() -> Catalogue:
    return merge(bundled_specs(), tuple(s for p in PRESETS.values() for s in p))


def analyse(files: dict[str, str]) -> list[Hit]:
    """Every flow in ``files`` (path -> source, dedented)."""
    modules = {path: parse_module(textwrap.dedent(code).encode()) for path, code in files.items()}
    return Project(catalogue(), modules).analyse()


def sinks(code: str, rule: str, others: dict[str, str] | None = None) -> set[int]:
    """The sink lines of ``rule``'s flows in ``code`` (as ``app.py``)."""
    hits = analyse({"app.py": code, **(others or {})})
    return {h.sink_line for h in hits if h.rule == rule and h.sink_path == "app.py"}


def marked(code: str, mark: str = "# VULN") -> set[int]:
    """Lines of ``code`` (dedented) marked ``mark``."""
    lines = textwrap.dedent(code).splitlines()
    return {i for i, line in enumerate(lines, 1) if mark in line}
