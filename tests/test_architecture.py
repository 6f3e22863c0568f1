"""The package's shape, checked from its source: no import cycles between modules, and the
layers of ARCHITECTURE.md are the import graph of the package's first-level parts (each
subpackage and each top-level module): every import, lazy ones inside functions included,
goes to the importer's own layer or one below it, and no two parts import each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_secreview"
ARCHITECTURE = PACKAGE.parent / "ARCHITECTURE.md"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under an ``if TYPE_CHECKING:`` block (annotations only, never run)."""
    return {id(inner) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for child in node.body for inner in ast.walk(child)}


def _imports(name: str, path: Path, modules: dict[str, Path], *,
             type_checking: bool = True) -> dict[str, int]:
    """Every package module ``name`` imports, with the line of one such import, at any depth
    of its code: lazy imports included, and ``TYPE_CHECKING`` blocks unless ``type_checking``
    is false (a cycle there is still a cycle between modules, but annotations do not make one
    part depend on another at run time)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: dict[str, int] = {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if type_checking else _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        # Importing one's own parent package is how relative imports resolve, not a cycle.
        for c in candidates:
            if c in modules and c != name and not name.startswith(c + "."):
                found.setdefault(c, node.lineno)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: set(_imports(name, path, modules)) for name, path in modules.items()}


def _part(module: str) -> str:
    """The first-level part a module belongs to: its subpackage or top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _part_edges() -> dict[tuple[str, str], str]:
    """Every import between two parts, with one example ``module:line -> module``; lazy
    imports count, ``TYPE_CHECKING`` blocks do not."""
    modules = _modules()
    edges: dict[tuple[str, str], str] = {}
    for name, path in sorted(modules.items()):
        for target, line in sorted(_imports(name, path, modules, type_checking=False).items()):
            if _part(name) != _part(target):
                edges.setdefault((_part(name), _part(target)), f"{name}:{line} -> {target}")
    return edges


#: ``### <n> · <title> — may import <layers>`` (the layer headings of ARCHITECTURE.md).
_LAYER_HEADING = re.compile(r"^### (\d+) · (.+) — may import (.+)$")
#: ``- `part` ...``, ``- `part/` ...`` or ``- `part.py` ...`` under a layer heading.
_PART_LINE = re.compile(r"^- `([\w]+)(?:/|\.py)?`")


def _layers() -> dict[str, int]:
    """Each part's layer, read from ARCHITECTURE.md: the one table of the layers, so the
    document and this test cannot drift apart. Duplicates are kept visible (as ``part#2``)."""
    layers: dict[str, int] = {}
    layer: int | None = None
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = _LAYER_HEADING.match(line)
            layer = int(heading.group(1)) if heading else None
        elif layer is not None and (part := _PART_LINE.match(line)):
            name = part.group(1)
            while name in layers:
                name += "#2"
            layers[name] = layer
    return layers


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


def test_architecture_md_names_each_layer_with_what_it_may_import() -> None:
    headings = [m for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines()
                if (m := _LAYER_HEADING.match(line))]
    numbers = [int(m.group(1)) for m in headings]
    assert numbers == list(range(len(numbers) - 1, -1, -1)), "layers numbered top (n) to 0"
    assert len(numbers) > 1
    assert [m.group(3) for m in headings] == [
        f"layers 0–{n}" if n else "layer 0 only" for n in numbers]


def test_every_part_is_in_exactly_one_layer_of_architecture_md() -> None:
    parts = {_part(name) for name in _modules()}
    placed = _layers()
    assert sorted(p for p in parts if p not in placed) == [], "add these to ARCHITECTURE.md"
    assert sorted(p for p in placed if p not in parts) == [], "stale or repeated in ARCHITECTURE.md"


def test_the_part_graph_counts_lazy_imports_and_not_type_checking_ones(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                      "    from pkg import a\n\n\ndef f():\n    from pkg import b\n")
    modules = {"pkg.m": source, "pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py"}
    assert _imports("pkg.m", source, modules, type_checking=False) == {"pkg.b": 8}
    assert _imports("pkg.m", source, modules) == {"pkg.a": 4, "pkg.b": 8}


def test_no_cycle_between_parts() -> None:
    graph: dict[str, set[str]] = {_part(name): set() for name in _modules()}
    for source, target in _part_edges():
        graph[source].add(target)
    assert _cycles(graph) == []


def test_every_import_goes_to_its_own_layer_or_a_lower_one() -> None:
    layers = _layers()
    upward = sorted(f"{source} (layer {layers[source]}) -> {target} (layer {layers[target]}): "
                    f"{example}"
                    for (source, target), example in _part_edges().items()
                    if source in layers and target in layers and layers[source] < layers[target])
    assert upward == []


LOWER_LAYERS = ("analysis", "scanners", "triage", "audit", "mcp", "tools", "rules", "diff",
                "llm")


@pytest.mark.parametrize("layer", LOWER_LAYERS)
def test_lower_layers_do_not_import_reporting_or_github(layer: str) -> None:
    prefix = f"pytest_secreview.{layer}"
    offending = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items() if name == prefix or name.startswith(prefix + ".")
        for target in targets
        if target.startswith(("pytest_secreview.reporting", "pytest_secreview.github",
                              "pytest_secreview.publish"))
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

