"""The dependency review on two labelled corpora (``benchmarks/deps/``), with no model and no
git (the checks read the base and head texts, as the plugin's built-in scanners do):

- **real changes** (``real.toml``): consecutive releases of real applications whose source
  distributions carry pinned requirements, fetched from PyPI (cached; ``--offline`` never
  downloads). Every exact version a release introduces is listed with the advisories of
  ``osv/`` whose range holds it, labelled by hand. Printed: recall and false positives of the
  advisory check over (pin, advisory) pairs, the labelled pins the review did not look up
  (a file it does not read, a pin it does not see), and the supply-chain signals raised on
  the same changes against the ones labelled.
- **written cases** (``cases.json``, written for this corpus): each a file's path, its base text
  (null: added) and head text, and the checks it must report (an advisory id, or a signal such
  as ``typosquat``); anything else reported is a false positive.

``osv/``: GitHub Advisory Database records kept as published (``benchmarks/deps/README.md``).

Usage: python benchmarks/bench_deps.py [--details] [--offline] [--cache DIR] [--written-only]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pytest_secreview.deps.changes import compare
from pytest_secreview.deps.model import PYPI, normalise
from pytest_secreview.deps.osv import AdvisoryDirectory
from pytest_secreview.deps.review import supply_chain, vulnerabilities

HERE = Path(__file__).resolve().parent / "deps"
#: Source distributions other benchmarks already fetched: read, never written.
SHARED_CACHE = Path.home() / ".cache" / "secreview-real-code"
DEFAULT_CACHE = Path.home() / ".cache" / "secreview-deps"


# -- written cases --------------------------------------------------------------------------

def found_checks(case: dict[str, object], source: AdvisoryDirectory) -> list[str]:
    texts = {str(case["path"]): (case["base"], str(case["head"]))}
    checks = []
    for result in (supply_chain(texts), vulnerabilities(texts, source)):  # type: ignore[arg-type]
        assert not result.problems, result.problems
        checks += [s.check for found in result.signals.values() for s in found]
    return checks


def written(source: AdvisoryDirectory, details: bool) -> None:
    cases = json.loads((HERE / "cases.json").read_text())
    hits: Counter[str] = Counter()
    misses: Counter[str] = Counter()
    false: Counter[str] = Counter()
    lines = []
    for case in cases:
        expected = Counter(case["expect"])
        found = Counter(found_checks(case, source))
        for check, count in expected.items():
            hits[_kind(check)] += min(count, found[check])
            misses[_kind(check)] += max(0, count - found[check])
            if count > found[check]:
                lines.append(f"  miss    {case['id']}: {check}")
        for check, count in found.items():
            if count > expected[check]:
                false[_kind(check)] += count - expected[check]
                lines.append(f"  false + {case['id']}: {check}")
    quiet = sum(1 for c in cases if not c["expect"])
    print(f"written cases: {len(cases)} ({quiet} that must stay quiet), "
          f"{len(list((HERE / 'osv').glob('*.json')))} advisory records")
    print(f"{'check':<18} {'expected':>8} {'found':>6} {'recall':>7} {'false +':>8}")
    for kind in sorted(set(hits) | set(misses) | set(false)):
        expected_n = hits[kind] + misses[kind]
        recall = f"{hits[kind] / expected_n:.2f}" if expected_n else "-"
        print(f"{kind:<18} {expected_n:>8} {hits[kind]:>6} {recall:>7} {false[kind]:>8}")
    total = sum(hits.values()) + sum(misses.values())
    print(f"{'all':<18} {total:>8} {sum(hits.values()):>6} "
          f"{sum(hits.values()) / total:>7.2f} {sum(false.values()):>8}")
    if details:
        print("\n".join(lines))


def _kind(check: str) -> str:
    return "advisory" if check.startswith(("GHSA-", "PYSEC-", "CVE-")) else check


# -- real changes ---------------------------------------------------------------------------

@dataclass
class Tally:
    """One project's (or the corpus's) figures."""

    prs: int = 0
    pins: int = 0
    expected: int = 0
    found: int = 0
    false: int = 0
    unread: int = 0
    signals: int = 0  # supply-chain signals labelled
    signals_found: int = 0
    signals_false: int = 0
    lines: list[str] = field(default_factory=list)


def sdist(project: str, version: str, cache: Path, offline: bool) -> Path:
    """The source distribution of ``project`` ``version``: from the shared cache, else from
    ``cache``, else downloaded into ``cache`` (never when ``offline``)."""
    for root in (SHARED_CACHE, cache):
        found = sorted(p for p in (root / project / version).glob("*")
                       if p.suffix in (".gz", ".zip"))
        if found:
            return found[0]
    if offline:
        raise RuntimeError(f"{project} {version} is in neither {SHARED_CACHE} nor {cache} "
                           "and --offline is set")
    folder = cache / project / version
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         f"{project}=={version}", "-d", str(folder)], capture_output=True, text=True,
        check=False)
    found = sorted(p for p in folder.glob("*") if p.suffix in (".gz", ".zip"))
    if done.returncode or not found:
        raise RuntimeError(f"pip download {project}=={version}: "
                           f"{(done.stderr or done.stdout).strip()[-400:]}")
    return found[0]


def members(archive: Path, names: list[str]) -> dict[str, str]:
    """The text of each of ``names`` (paths below the archive's top folder) it holds."""
    out: dict[str, str] = {}
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                rel = info.filename.split("/", 1)[-1]
                if rel in names:
                    out[rel] = z.read(info).decode("utf-8")
        return out
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            rel = member.name.split("/", 1)[-1]
            handle = tar.extractfile(member) if rel in names and member.isfile() else None
            if handle is not None:
                out[rel] = handle.read().decode("utf-8")
    return out


def real(source: AdvisoryDirectory, cache: Path, offline: bool, details: bool) -> None:
    corpus = tomllib.loads((HERE / "real.toml").read_text())["pr"]
    tallies: dict[str, Tally] = defaultdict(Tally)
    for pr in corpus:
        project, files = pr["project"], list(pr["files"])
        name = f"{project} {pr['base']}..{pr['head']}"
        base = members(sdist(project, pr["base"], cache, offline), files)
        head = members(sdist(project, pr["head"], cache, offline), files)
        texts = {path: (base.get(path), text) for path, text in head.items()}
        expected: set[tuple[str, str, str, str]] = set()
        labelled: set[tuple[str, str, str]] = set()
        for pin in pr["pins"]:
            path, package, version, *advisories = pin.split()
            labelled.add((path, normalise(PYPI, package), version))
            expected |= {(path, normalise(PYPI, package), version, a) for a in advisories}
        result = vulnerabilities(texts, source)
        assert not result.problems, (name, result.problems)
        found = set()
        for path, signals in result.signals.items():
            for signal in signals:
                ident, key, version = signal.anchor.split()
                found.add((path, key, version, ident))
        looked_up = set()
        for path, (base_text, head_text) in texts.items():
            change = compare(path, base_text, head_text)
            for item in change.introduced if change is not None else ():
                requirement = item.requirement
                if requirement.version and not requirement.origin:
                    looked_up.add((path, requirement.key, requirement.version))
        unlabelled = looked_up - labelled
        if unlabelled:
            raise SystemExit(f"{name}: pins the review looks up that real.toml does not list "
                             f"(label them): {sorted(unlabelled)}")
        wanted = {tuple(label.split()) for label in pr.get("signals", ())}
        chain = supply_chain(texts)
        assert not chain.problems, (name, chain.problems)
        raised = {(path, s.check, [*s.anchor.split(), ""][1])
                  for path, signals in chain.signals.items() for s in signals}
        tally = tallies[project]
        tally.signals += len(wanted)
        tally.signals_found += len(raised & wanted)
        tally.signals_false += len(raised - wanted)
        tally.lines += [f"  miss    {name}: {' '.join(m)}" for m in sorted(wanted - raised)]
        tally.lines += [f"  false + {name}: {' '.join(f)}" for f in sorted(raised - wanted)]
        tally.prs += 1
        tally.pins += len(labelled)
        tally.expected += len(expected)
        tally.found += len(found & expected)
        tally.false += len(found - expected)
        tally.unread += len(labelled - looked_up)
        tally.lines += [f"  miss    {name}: {' '.join(m)}" for m in sorted(expected - found)]
        tally.lines += [f"  false + {name}: {' '.join(f)}" for f in sorted(found - expected)]
        tally.lines += [f"  unread  {name}: {' '.join(u)}"
                        for u in sorted(labelled - looked_up)]
    total = Tally()
    print(f"real changes: {len(corpus)} pull requests (consecutive releases), "
          f"{len(list((HERE / 'osv').glob('*.json')))} advisory records")
    print(f"{'project':<20} {'PRs':>4} {'pins':>5} {'affected':>9} {'found':>6} {'recall':>7} "
          f"{'false +':>8} {'unread':>7}")
    for project, tally in [*sorted(tallies.items()), ("all", total)]:
        if project != "all":
            for name in ("prs", "pins", "expected", "found", "false", "unread", "signals",
                         "signals_found", "signals_false"):
                setattr(total, name, getattr(total, name) + getattr(tally, name))
            total.lines += tally.lines
        recall = f"{tally.found / tally.expected:.2f}" if tally.expected else "-"
        print(f"{project:<20} {tally.prs:>4} {tally.pins:>5} {tally.expected:>9} "
              f"{tally.found:>6} {recall:>7} {tally.false:>8} {tally.unread:>7}")
    print("(pins: exact versions introduced; affected: (pin, advisory) pairs labelled; unread: "
          "labelled pins the review did not look up)")
    print(f"supply-chain signals on the same changes: {total.signals} labelled, "
          f"{total.signals_found} found, {total.signals_false} false +")
    if details:
        print("\n".join(total.lines))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--details", action="store_true", help="list every miss and false +")
    parser.add_argument("--offline", action="store_true", help="never download an sdist")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"where downloaded sdists are kept (default {DEFAULT_CACHE})")
    parser.add_argument("--written-only", action="store_true",
                        help="only the written cases (no sdist needed)")
    args = parser.parse_args(argv)
    source = AdvisoryDirectory([HERE / "osv"])
    if not args.written_only:
        real(source, args.cache, args.offline, args.details)
        print()
    written(source, args.details)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
