"""The package's shape, checked from its source: no import cycles, and the second-wave
subpackages stay below the reporting and GitHub layers (DESIGN §3)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_secreview"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every package module ``name`` imports, at any depth of its code (lazy imports and
    ``TYPE_CHECKING`` blocks included: a cycle there is still a cycle in the design)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        # Importing one's own parent package is how relative imports resolve, not a cycle.
        found.update(c for c in candidates
                     if c in modules and c != name and not name.startswith(c + "."))
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


LOWER_LAYERS = ("analysis", "scanners", "triage", "audit", "mcp", "tools", "rules", "diff",
                "llm")


@pytest.mark.parametrize("layer", LOWER_LAYERS)
def test_lower_layers_do_not_import_reporting_or_github(layer: str) -> None:
    prefix = f"pytest_secreview.{layer}"
    offending = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items() if name == prefix or name.startswith(prefix + ".")
        for target in targets
        if target.startswith(("pytest_secreview.reporting", "pytest_secreview.github"))
    )
    assert offending == []


def test_the_core_layer_imports_nothing_else_of_the_package() -> None:
    offending = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items() if name.startswith("pytest_secreview.core")
        for target in targets if not target.startswith("pytest_secreview.core")
    )
    assert offending == []


def test_every_renderer_orders_findings_worst_first_the_same_way() -> None:
    from pytest_secreview.core.findings import Finding
    from pytest_secreview.core.severity import Severity
    from pytest_secreview.reporting.actions import annotations
    from pytest_secreview.reporting.markdown import to_markdown
    from pytest_secreview.reporting.model import Report, Usage
    from pytest_secreview.reporting.sarif import to_sarif

    def finding(severity: Severity, path: str, line: int, title: str) -> Finding:
        return Finding(rule="r", severity=severity, title=title, path=path, line=line,
                       source="pattern").with_fingerprint(title)

    findings = [finding(Severity.MEDIUM, "a.py", 1, "Tmedium"),
                finding(Severity.CRITICAL, "b.py", 9, "Tcritical9"),
                finding(Severity.CRITICAL, "b.py", 2, "Tcritical2"),
                finding(Severity.HIGH, "a.py", 5, "Thigh")]
    expected = ["Tcritical2", "Tcritical9", "Thigh", "Tmedium"]
    report = Report(tool_version="0", base_ref="main", base_sha="0" * 40, head_sha="1" * 40,
                    fail_on=Severity.INFO, outcomes={}, findings=findings, items=[], rules=[],
                    not_reviewed=[], usage=Usage())

    def order(texts: list[str]) -> list[str]:
        return [t for text in texts for t in expected if t in text]

    assert [f.title for f in sorted(findings, key=Finding.sort_key)] == expected
    assert order([r["message"]["text"] for r in to_sarif(report)["runs"][0]["results"]]) == \
        expected
    assert order([c for c in annotations(report) if c.startswith("::error")]) == expected
    markdown = to_markdown(report)
    assert sorted(expected, key=markdown.index) == expected

