"""Everything the deterministic layer outputs on a big generated application and on the two
shipped labelled corpora, as one JSON document: the check that a speed change keeps every
finding identical.

For each pull request (the generated application of ``benchmarks/_app.py``; every case of
``benchmarks/corpus/taint`` in one repository; every case of ``pytest_secreview/bench/corpus``
in one repository) it records ``review_range``'s findings (every field), what it did not
review and what it left for a model, with the taint engine on and off; the intent audit's
risk evidence; and ``find_secrets``/``redact`` of every changed line and of every changed
file's whole head text.

    .venv/bin/python benchmarks/findings_snapshot.py --write before.json   # old code
    .venv/bin/python benchmarks/findings_snapshot.py --check before.json   # new code

``--check`` exits 1 and names the first differences when the output is not identical.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_detection import CORPUS, build_repo
from bench_taint_speed import build_app_repo

from pytest_secreview.audit.evidence import collect_evidence
from pytest_secreview.bench import load_corpus
from pytest_secreview.evaluation.offline import review_range
from pytest_secreview.tools.redaction import find_secrets, redact

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "pytest_secreview" / "bench" / "corpus"


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "value") and not isinstance(value, str | int | float):
        return value.value  # an enum
    return value


def _secrets(text: str) -> list[Any]:
    found = [dataclasses.astuple(m) for m in find_secrets(text)]
    return [found, redact(text)] if found else []


def snapshot_repo(repo: Path) -> dict[str, Any]:
    """Every output of the deterministic layer on ``main..pr`` in ``repo``."""
    out: dict[str, Any] = {}
    for taint in (True, False):
        review = review_range(repo, "main", "pr", use_taint=taint, use_scanners=False)
        out[f"taint={taint}"] = {
            "findings": _plain(review.findings),
            "not_reviewed": _plain(review.not_reviewed),
            "needs_model": _plain(review.needs_model),
            "rule_errors": list(review.rule_errors),
        }
    diff = review.diff
    out["evidence"] = collect_evidence(diff).to_json()
    lines: dict[str, Any] = {}
    for file in diff.files:
        for side, found in (("+", file.added_lines), ("-", file.removed_lines)):
            for line in found:
                secrets = _secrets(line.text)
                if secrets:
                    lines[f"{file.path}:{side}{line.number}"] = secrets
        head = repo / file.path
        if head.is_file():
            whole = _secrets(head.read_text(errors="replace"))
            if whole:
                lines[file.path] = whole
    out["secrets"] = lines
    return out


def repos(work: Path, modules: int) -> Iterator[tuple[str, Path]]:
    """The pull requests of the snapshot, built under ``work``."""
    app = work / "app"
    build_app_repo(app, modules)
    yield "app", app
    for name, root in (("taint-corpus", CORPUS), ("bench-corpus", SHIPPED)):
        repo = work / name
        build_repo(repo, [(f"{c.category}/{c.id}/", c) for c in load_corpus(root)])
        yield name, repo


def main(argv: list[str] | None = None) -> int:
    """Write or check the snapshot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, help="write the snapshot here")
    group.add_argument("--check", type=Path, help="compare with the snapshot written here")
    parser.add_argument("--files", type=int, default=1200, help="application modules")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="secreview-snapshot-") as tmp:
        data = {name: snapshot_repo(repo) for name, repo in repos(Path(tmp), args.files)}
    text = json.dumps(data, indent=1, sort_keys=True, default=str)
    if args.write is not None:
        args.write.write_text(text)
        counts = {name: len(d["taint=True"]["findings"]) for name, d in data.items()}
        print(f"wrote {args.write}: findings with taint {counts}")
        return 0
    expected = args.check.read_text()
    if text == expected:
        print(f"identical to {args.check} ({len(text)} characters)")
        return 0
    old, new = json.loads(expected), json.loads(text)
    for name in sorted(set(old) | set(new)):
        for key in sorted(set(old.get(name, {})) | set(new.get(name, {}))):
            if old.get(name, {}).get(key) != new.get(name, {}).get(key):
                print(f"DIFFERENT: {name} / {key}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
