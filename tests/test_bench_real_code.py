"""benchmarks/bench_real_code.py without the network: the manifest and labels it ships, label
identity, the report's arithmetic, and a release's unpacking."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from types import ModuleType

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "bench_real_code.py", "bench_real_code")


def test_the_shipped_manifest_and_labels_load() -> None:
    bench = _bench()
    prs = bench.load_manifest()
    assert len(prs) >= 30
    assert {p.kind for p in prs} == set(bench.KINDS)
    names = {p.name for p in prs}
    for key in bench.load_labels():
        assert key.split("|")[0] in names, key


def test_identity_ignores_the_line_number_and_scores_per_group() -> None:
    bench = _bench()
    seen = [
        bench.Seen("p 1..2", "r1", "HIGH", "a.py", 10, "fa", "t"),
        bench.Seen("p 1..2", "r1", "HIGH", "a.py", 99, "fb", "t"),
        bench.Seen("p 1..2", "r2", "LOW", "b.py", 3, "fc", "t"),
        bench.Seen("q 3..4", "r1", "CRITICAL", "c.py", 1, "fd", "t"),
    ]
    labels = {
        bench.identity("p 1..2", "r1", "a.py", "fa"): {"verdict": "true", "why": "x"},
        bench.identity("p 1..2", "r1", "a.py", "fb"): {"verdict": "false", "why": "x"},
        bench.identity("p 1..2", "r2", "b.py", "fc"): {"verdict": "false", "why": "x"},
        bench.identity("p 1..2", "r9", "gone.py", "fz"): {"verdict": "false", "why": "x"},
    }
    report = bench.score(seen, labels, added=2000, prs=["p 1..2", "q 3..4"])
    assert (report.overall.true, report.overall.false, report.overall.unlabelled) == (1, 2, 1)
    assert report.overall.precision == 1 / 3
    assert report.severity["HIGH"].precision == 0.5
    assert report.severity["CRITICAL"].precision is None
    assert report.rule["r2"].text() == "0% (0/1)"
    assert report.per_kloc == 2.0
    assert [f.fingerprint for f in report.unlabelled] == ["fd"]
    assert report.stale == [bench.identity("p 1..2", "r9", "gone.py", "fz")]
    assert "**33% (1/3, 1 unlabelled)**" in bench.render(report)


def test_a_release_unpacks_without_its_top_directory_or_metadata(tmp_path: Path) -> None:
    bench = _bench()
    archive = tmp_path / "x-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("x-1.0/PKG-INFO", "x-1.0/x.egg-info/SOURCES.txt", "x-1.0/src/x.py",
                     "x-1.0/setup.py"):
            data = name.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    assert bench.unpack(archive) == {"src/x.py": b"x-1.0/src/x.py",
                                     "setup.py": b"x-1.0/setup.py"}
