"""The dependency review on a labelled corpus of dependency changes (``benchmarks/deps/``):
recall and false positives of the advisory check and of each supply-chain signal, with no
model, no network and no git (the checks read the base and head texts, as the plugin's
built-in scanners do).

``cases.json``: each case a file's path, its base text (null: added) and head text, and the
checks it must report (an advisory id, or a signal such as ``typosquat``); anything else
reported is a false positive. ``osv/``: the advisory records the corpus is checked against,
GitHub Advisory Database records kept as published (``benchmarks/deps/README.md``).

Usage: python benchmarks/bench_deps.py [--details]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from pytest_secreview.deps.osv import AdvisoryDirectory
from pytest_secreview.deps.review import supply_chain, vulnerabilities

HERE = Path(__file__).resolve().parent / "deps"


def found_checks(case: dict[str, object], source: AdvisoryDirectory) -> list[str]:
    texts = {str(case["path"]): (case["base"], str(case["head"]))}
    checks = []
    for result in (supply_chain(texts), vulnerabilities(texts, source)):  # type: ignore[arg-type]
        assert not result.problems, result.problems
        checks += [s.check for found in result.signals.values() for s in found]
    return checks


def main(argv: list[str]) -> int:
    cases = json.loads((HERE / "cases.json").read_text())
    source = AdvisoryDirectory([HERE / "osv"])
    hits: Counter[str] = Counter()
    misses: Counter[str] = Counter()
    false: Counter[str] = Counter()
    details = []
    for case in cases:
        expected = Counter(case["expect"])
        found = Counter(found_checks(case, source))
        for check, count in expected.items():
            hits[_kind(check)] += min(count, found[check])
            misses[_kind(check)] += max(0, count - found[check])
            if count > found[check]:
                details.append(f"  miss    {case['id']}: {check}")
        for check, count in found.items():
            if count > expected[check]:
                false[_kind(check)] += count - expected[check]
                details.append(f"  false + {case['id']}: {check}")
    quiet = sum(1 for c in cases if not c["expect"])
    print(f"{len(cases)} cases ({quiet} that must stay quiet), "
          f"{len(list((HERE / 'osv').glob('*.json')))} advisory records")
    print(f"{'check':<18} {'expected':>8} {'found':>6} {'recall':>7} {'false +':>8}")
    for kind in sorted(set(hits) | set(misses) | set(false)):
        expected_n = hits[kind] + misses[kind]
        recall = f"{hits[kind] / expected_n:.2f}" if expected_n else "-"
        print(f"{kind:<18} {expected_n:>8} {hits[kind]:>6} {recall:>7} {false[kind]:>8}")
    total = sum(hits.values()) + sum(misses.values())
    print(f"{'all':<18} {total:>8} {sum(hits.values()):>6} "
          f"{sum(hits.values()) / total:>7.2f} {sum(false.values()):>8}")
    if "--details" in argv:
        print("\n".join(details))
    return 0


def _kind(check: str) -> str:
    return "advisory" if check.startswith(("GHSA-", "PYSEC-", "CVE-")) else check


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
