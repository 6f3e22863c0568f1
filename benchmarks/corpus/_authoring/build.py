"""Build benchmarks/corpus/taint/ from the authoring specs in ``specs/``.

Each spec module defines ``PAIRS``: a list of :func:`pair` values. A pair is written once, as
the vulnerable head files with ``#@sink`` at the end of every line of the sink call, plus the
ONE edit (``safe``: exact (old, new) replacements) that makes the safe twin. The markers are
stripped and the expected line range is computed from them, so ``expect`` lines are never
typed by hand. A pair with ``base`` (replacements applied to the safe head) is a "removed
sanitizer" pair: both cases share that base; the vulnerable head drops the sanitizer.

    python benchmarks/corpus/_authoring/build.py [--out DIR]
    python benchmarks/corpus/_authoring/build.py --breadth [--out DIR]

``--breadth`` builds ``benchmarks/corpus/breadth/`` from ``specs_breadth/``: classes outside
the taint categories (one directory per class, see :data:`CLASSES`), whose cases carry no
``category`` (``bench_detection.py`` scores them per class against the class's rule).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "taint"
BREADTH_OUT = HERE.parent / "breadth"
MARK = re.compile(r"[ \t]*#@sink[ \t]*$")

RULES = {
    "sql": ("sql-injection", "CWE-89"), "command": ("command-injection", "CWE-78"),
    "code": ("code-injection", "CWE-94"), "path": ("path-traversal", "CWE-22"),
    "ssrf": ("ssrf", "CWE-918"), "redirect": ("open-redirect", "CWE-601"),
    "xss": ("xss", "CWE-79"), "deserialization": ("unsafe-deserialization", "CWE-502"),
    "ldap": ("ldap-injection", "CWE-90"), "xpath": ("xpath-injection", "CWE-643"),
    "xxe": ("xxe", "CWE-611"), "trust-boundary": ("trust-boundary", "CWE-501"),
}

#: The breadth corpus: class (its directory) -> the bundled rule that covers it and its CWE.
CLASSES = {
    "unsafe-yaml": ("unsafe-deserialization", "CWE-502"),
    "weak-hash": ("weak-cryptography", "CWE-327"),
    "insecure-random": ("insecure-randomness", "CWE-338"),
    "insecure-cookie": ("insecure-cookie", "CWE-614"),
    "xml-entities": ("xxe", "CWE-611"),
    "jinja-autoescape": ("xss", "CWE-79"),
    "tar-extract": ("path-traversal", "CWE-22"),
    "ssh-host-key": ("ssh-host-key-not-verified", "CWE-295"),
    "temp-file": ("insecure-temp-file", "CWE-377"),
    "world-writable": ("world-writable-permissions", "CWE-732"),
    "ecb-mode": ("weak-cryptography", "CWE-327"),
    "assert-authz": ("assert-authorization", "CWE-703"),
}


@dataclass(frozen=True)
class Pair:
    id: str
    category: str
    desc: str
    safe_desc: str
    tags: tuple[str, ...]
    safe_tags: tuple[str, ...]
    files: dict[str, str]
    safe: tuple[tuple[str, str], ...]
    base: tuple[tuple[str, str], ...] | None = None
    extra_tags: tuple[str, ...] = field(default=())


def pair(id: str, category: str, desc: str, safe_desc: str, tags: list[str],
         safe_tags: list[str], files: dict[str, str], safe: list[tuple[str, str]],
         base: list[tuple[str, str]] | None = None) -> Pair:
    """One vulnerable case and its safe twin (see the module docstring)."""
    return Pair(id, category, desc, safe_desc, tuple(tags), tuple(safe_tags),
                dict(files), tuple(safe),
                None if base is None else tuple(base))


def _dedent(text: str) -> str:
    import textwrap
    return textwrap.dedent(text).lstrip("\n")


def _dedent_all(files: dict[str, str]) -> dict[str, str]:
    return {k: _dedent(v) for k, v in files.items()}


def _replace(files: dict[str, str], edits: tuple[tuple[str, str], ...], what: str) -> dict[str, str]:
    out = dict(files)
    for old, new in edits:
        where = [p for p, t in out.items() if old in t]
        hits = sum(out[p].count(old) for p in where)
        if hits != 1:
            raise SystemExit(f"{what}: replacement {old!r} matches {hits} times (need exactly 1)")
        out[where[0]] = out[where[0]].replace(old, new)
    return out


def _strip(text: str) -> tuple[str, list[int]]:
    lines, marked = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        if MARK.search(line):
            marked.append(number)
            line = MARK.sub("", line)
        lines.append(line)
    return "\n".join(lines), marked


def _yaml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(items) + "]"


def _write_case(out: Path, category: str, case_id: str, desc: str, vulnerable: bool,
                twin: str, tags: tuple[str, ...], head: dict[str, str],
                base: dict[str, str] | None, breadth: bool = False) -> None:
    rule, cwe = (CLASSES if breadth else RULES)[category]
    directory = out / category / case_id
    expect: list[str] = []
    stripped: dict[str, str] = {}
    for path, text in head.items():
        clean, marked = _strip(text)
        stripped[path] = clean
        if vulnerable and marked:
            if marked != list(range(marked[0], marked[-1] + 1)):
                raise SystemExit(f"{case_id}: #@sink lines in {path} are not contiguous: {marked}")
            expect.append(f"  - rule: {rule}\n    path: {path}\n"
                          f"    lines: [{marked[0]}, {marked[-1]}]\n    cwe: {cwe}\n")
    if vulnerable and not expect:
        raise SystemExit(f"{case_id}: vulnerable case without a #@sink marker")
    for tree, files in (("head", stripped), ("base", None if base is None else
                                               {p: _strip(t)[0] for p, t in base.items()})):
        if files is None:
            continue
        for path, text in files.items():
            target = directory / tree / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if '"' in desc:
        raise SystemExit(f"{case_id}: description must not contain a double quote")
    body = (f"id: {case_id}\ndescription: \"{desc}\"\n"
            + ("" if breadth else f"category: {category}\n") +
            f"vulnerable: {'true' if vulnerable else 'false'}\ntwin: {twin}\n"
            f"tags: {_yaml_list(tags)}\n")
    body += "expect:\n" + "".join(expect) if expect else "expect: []\n"
    (directory / "case.yaml").write_text(body, encoding="utf-8")


def load_pairs(specs: str = "specs") -> list[Pair]:
    """Every pair of every spec module of ``specs``, in file order."""
    pairs: list[Pair] = []
    for spec_file in sorted((HERE / specs).glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"specs_{spec_file.stem}", spec_file)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        module.pair = pair  # type: ignore[attr-defined]
        spec.loader.exec_module(module)
        pairs.extend(module.PAIRS)
    return pairs


def build(out: Path, breadth: bool = False) -> int:
    """Write every case under ``out`` (replacing it) and return the number of cases; with
    ``breadth``, the breadth corpus from ``specs_breadth/``."""
    pairs = load_pairs("specs_breadth" if breadth else "specs")
    seen: set[str] = set()
    if out.exists():
        shutil.rmtree(out)
    for p in pairs:
        if p.category not in (CLASSES if breadth else RULES):
            raise SystemExit(f"{p.id}: unknown category {p.category}")
        if p.id in seen:
            raise SystemExit(f"{p.id}: duplicate id")
        seen.add(p.id)
        vuln_head = _dedent_all(p.files)
        safe_head = _dedent_all(_replace(p.files, p.safe, p.id))
        if {k: _strip(v)[0] for k, v in safe_head.items()} == {
                k: _strip(v)[0] for k, v in vuln_head.items()}:
            raise SystemExit(f"{p.id}: the safe twin is identical to the vulnerable case")
        base = None if p.base is None else _dedent_all(
            _replace(_replace(p.files, p.safe, p.id), p.base, p.id + " base"))
        safe_id = p.id + "-safe"
        removed = ("removed-sanitizer",) if base is not None else ()
        kept = ("kept-sanitizer",) if base is not None else ()
        _write_case(out, p.category, p.id, p.desc, True, safe_id, p.tags + removed,
                    vuln_head, base, breadth)
        _write_case(out, p.category, safe_id, p.safe_desc, False, p.id,
                    p.tags + p.safe_tags + kept, safe_head, base, breadth)
    return 2 * len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--breadth", action="store_true",
                        help="build the breadth corpus from specs_breadth/")
    args = parser.parse_args()
    out = args.out or (BREADTH_OUT if args.breadth else DEFAULT_OUT)
    print(f"{build(out, args.breadth)} cases written to {out}")


if __name__ == "__main__":
    main()
