"""Speed of the deterministic layer with and without the taint engine against Bandit, on
one large pull request, in one run.

The pull request holds every labelled corpus case's files (``benchmarks/corpus/taint``),
copied ``--copies`` times under distinct directories: base files in the base commit, head
files in the head commit, so the engine analyses both revisions as it does on a real change.
Each reviewer runs as its own process on the same repository (interpreter start included for
both):

- ours: ``review_range(repo, "main", "pr")`` - git diff, rule loading, the matcher, every
  rule's detect patterns and, with taint, the dataflow of every changed Python file at head
  and at base;
- ours without taint: the same with ``use_taint=False``;
- Bandit: ``bandit -r <head files> -q -f json`` (all its default tests).

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/bench_taint_speed.py [--copies 5] [--repeat 3] [--record]

``--tree DIR`` measures instead the engine alone (parse and dataflow of every file, one module
at a time, the bundled rules' taint sections) against ``bandit`` on the first ``--limit``
Python files under DIR: real code of every shape (data tables, 5,000-line modules).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Run, measure, median_run, write_section
from bench_detection import CORPUS, build_repo

from pytest_secreview.bench import load_corpus

_OURS = ("from pathlib import Path; from pytest_secreview.evaluation.offline import "
         "review_range; "
         "review_range(Path('.'), 'main', 'pr', use_taint={taint}, use_scanners=False)")


_ENGINE = """
import sys
from pathlib import Path
from pytest_secreview.analysis.catalogue import PRESETS
from pytest_secreview.analysis.parse import parse_module
from pytest_secreview.analysis.project import Project
from pytest_secreview.analysis.spec import merge
from pytest_secreview.rules.parse import parse_rule
from pytest_secreview.rules.loader import bundled_rules_dir
specs = [r.taint for r in (parse_rule(p.read_bytes(), p.name)
         for p in sorted(bundled_rules_dir().glob("*.md"))) if r.taint]
cat = merge(tuple(specs), tuple(s for p in PRESETS.values() for s in p))
for line in open(sys.argv[1]):
    path = line.rstrip("\\n")
    Project(cat, {path: parse_module(Path(path).read_bytes())}).analyse()
"""


def tree(root: Path, limit: int, repeat: int) -> str:
    """The engine alone vs Bandit on the first ``limit`` Python files under ``root``."""
    files = sorted(str(p) for p in root.rglob("*.py"))[:limit]
    bandit = shutil.which("bandit") or str(Path(sys.executable).parent / "bandit")
    with tempfile.TemporaryDirectory() as work:
        listing = Path(work) / "files.txt"
        listing.write_text("".join(f"{f}\n" for f in files))
        ours = median_run([sys.executable, "-c", _ENGINE, str(listing)], Path.cwd(), repeat)
        theirs = median_run([bandit, "-q", "-f", "json", "-o", str(Path(work) / "b.json"),
                             *files], Path.cwd(), repeat)
    if ours.returncode != 0:
        raise SystemExit(f"the engine failed with exit status {ours.returncode}")
    return (f"Engine alone on {len(files)} files under `{root}`: {ours.seconds:.1f} s, "
            f"Bandit {theirs.seconds:.1f} s - ratio **{ours.seconds / theirs.seconds:.2f}x** "
            f"(median of {repeat}).")


def main(argv: list[str] | None = None) -> int:
    """Build the pull request, time the three reviewers, print (and optionally record)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="write BENCHMARKS.md")
    parser.add_argument("--tree", type=Path, help="time the engine alone on real files here")
    parser.add_argument("--limit", type=int, default=3000)
    args = parser.parse_args(argv)
    if args.tree is not None:
        print(tree(args.tree, args.limit, args.repeat))
        return 0
    bandit = shutil.which("bandit") or str(Path(sys.executable).parent / "bandit")
    cases = load_corpus(CORPUS)
    with tempfile.TemporaryDirectory() as work:
        repo = Path(work) / "pr"
        build_repo(repo, [(f"copy{k}/{case.id}/", case) for k in range(args.copies)
                          for case in cases])
        files = sorted(p for p in repo.rglob("*.py") if ".git" not in p.parts)
        lines = sum(len(p.read_bytes().splitlines()) for p in files)
        commands = {
            "ours (patterns + taint)": [sys.executable, "-c", _OURS.format(taint=True)],
            "ours (patterns only)": [sys.executable, "-c", _OURS.format(taint=False)],
            "bandit -r": [bandit, "-r", "-q", "-f", "json", "-o", str(Path(work) / "b.json"),
                          *(str(p.relative_to(repo)) for p in files)],
        }
        # Interleaved rounds: a load spike on this shared machine hits every reviewer alike.
        samples: dict[str, list[Run]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                samples[name].append(measure(cmd, repo))
        runs = {name: Run(statistics.median(r.seconds for r in found),
                          max(r.peak_mib for r in found), found[-1].returncode)
                for name, found in samples.items()}
    for name, run in runs.items():
        if name.startswith("ours") and run.returncode != 0:
            print(f"{name} failed with exit status {run.returncode}", file=sys.stderr)
            return 1
    ratio = runs["ours (patterns + taint)"].seconds / runs["bandit -r"].seconds
    taint = runs["ours (patterns + taint)"].seconds - runs["ours (patterns only)"].seconds
    rows = "\n".join(f"| {name} | {run.seconds:.2f} s | {run.peak_mib:.0f} MiB |"
                     for name, run in runs.items())
    body = (
        "## Taint engine speed on a large pull request (ours vs `bandit -r`)\n\n"
        f"`.venv/bin/python benchmarks/bench_taint_speed.py --copies {args.copies} --repeat "
        f"{args.repeat} --record` - one pull request of {len(files)} Python files "
        f"({lines} lines; the corpus copied {args.copies} times, base and head revisions), "
        f"each reviewer a separate process, median of {args.repeat} interleaved rounds.\n\n"
        "| reviewer | wall time | peak memory |\n|---|---|---|\n"
        f"{rows}\n\n"
        f"Ratio ours (with taint) / `bandit -r`: **{ratio:.2f}x**; the dataflow itself "
        f"(both revisions) costs {taint:.2f} s of it."
    )
    print(body)
    if args.record:
        write_section("taint-speed", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
