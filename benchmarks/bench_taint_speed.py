"""The deterministic layer at scanner speed: the review with no model against Bandit on the
same files, with and without the taint engine, in one run (issue 16, item 3).

A realistic Python application of ``--files`` modules (``benchmarks/_app.py``: views,
services, models, clients, tasks, tests; about 105 lines each), generated deterministically,
is one pull request in a real git repository: 30% of the modules exist at the base in an
older revision (the pull request removes and changes lines there), the rest are new. Each
reviewer runs as its own process on that repository, interpreter start included, in
interleaved rounds (a load spike on this shared machine hits all of them alike):

- ``secreview --base main`` (what a user runs: every bundled rule, the Bandit scanner rule
  included);
- ``pytest --secreview``, with the bundled rules minus the two scanner
  rules (they run Bandit and Semgrep themselves), once as shipped and once with every rule's
  ``taint:`` section left out;
- ``review_range`` (``evaluation/offline.py``: the same deterministic review without pytest),
  with ``use_taint`` on and off;
- ``bandit -r app tests -f json`` (all its default tests) on the same head files.

Wall time is the median over ``--repeat`` rounds, peak RSS the largest (from ``wait4``).

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/bench_taint_speed.py [--files 1200] [--repeat 5] [--record]

``--tree DIR`` measures instead the engine alone (parse and dataflow of every file, one module
at a time, the bundled rules' taint sections) against ``bandit`` on the first ``--limit``
Python files under DIR: real code of every shape (data tables, 5,000-line modules).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _app import generate
from _common import Sample, median_run, write_section
from _common import measure_tree as _measure
from bench_detection import _GIT_ENV

from pytest_secreview.rules.loader import bundled_rules_dir

_OURS = ("from pathlib import Path; from pytest_secreview.evaluation.offline import "
         "review_range; "
         "review_range(Path('.'), 'main', 'pr', rules=[{rules!r}], use_taint={taint}, "
         "use_scanners=False)")


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


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, **_GIT_ENV, "HOME": str(repo.parent)}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def build_app_repo(repo: Path, modules: int) -> list[str]:
    """The application's pull request: ``main`` holds an older revision of 30% of the
    modules, ``pr`` (checked out) every module at head. Returns the head paths."""
    head = generate(modules, version=2)
    old = generate(modules, version=1)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "commit.gpgsign", "false")
    _write(repo, {"README.md": "An application.\n"})
    _write(repo, {p: t for i, (p, t) in enumerate(sorted(old.items())) if i % 10 < 3})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    _write(repo, head)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pull request")
    return sorted(head)


def rule_packs(work: Path) -> tuple[Path, Path]:
    """The bundled rules without the scanner rules, as shipped and without ``taint:``."""
    full, plain = work / "rules", work / "rules-no-taint"
    full.mkdir()
    plain.mkdir()
    for path in sorted(bundled_rules_dir().glob("*.md")):
        if path.name.startswith("scanner-"):
            continue
        text = path.read_text()
        (full / path.name).write_text(text)
        (plain / path.name).write_text(_without_taint(text))
    return full, plain


def _without_taint(text: str) -> str:
    """The rule with its frontmatter's top-level ``taint:`` block removed."""
    out: list[str] = []
    skipping = False
    for number, line in enumerate(text.splitlines(keepends=True)):
        if skipping and (line.startswith((" ", "\t", "#")) or not line.strip()):
            continue
        skipping = number > 0 and line.startswith("taint:")
        if not skipping:
            out.append(line)
    return "".join(out)


def _pytest(rules: Path) -> list[str]:
    # -p no:hypothesispytest: the dev venv's hypothesis plugin costs every pytest process
    # about a second; a CI install of the plugin has no hypothesis.
    return [sys.executable, "-m", "pytest", "--secreview", "--secreview-base", "main",
            "--secreview-rules", str(rules), "-q", "-p", "no:cacheprovider",
            "-p", "no:hypothesispytest"]


def _commands(work: Path, full: Path, plain: Path) -> dict[str, list[str]]:
    bandit = shutil.which("bandit") or str(Path(sys.executable).parent / "bandit")
    return {
        # What a user runs: every bundled rule, the Bandit scanner rule included.
        "secreview --base main": [str(Path(sys.executable).parent / "secreview"),
                                  "--base", "main"],
        "pytest --secreview, taint on": _pytest(full),
        "pytest --secreview, taint off": _pytest(plain),
        "review_range, taint on": [sys.executable, "-c",
                                   _OURS.format(rules=str(full), taint=True)],
        "review_range, taint off": [sys.executable, "-c",
                                    _OURS.format(rules=str(plain), taint=False)],
        "bandit -r": [bandit, "-r", "app", "tests", "-q", "-f", "json",
                      "-o", str(work / "bandit.json")],
    }


@dataclass(frozen=True)
class Outcome:
    """The reviewers' medians on the full application, their peak memory on a quarter of
    it, and the taint engine's split."""

    size: str
    runs: dict[str, Sample]
    quarter_mib: dict[str, float]
    quarter_files: int
    parse: float
    analyse: float
    load: tuple[float, float]  # the machine's 1-minute load average before and after


def app(modules: int, repeat: int) -> Outcome:
    """Build the application's pull request and time every reviewer on it."""
    with tempfile.TemporaryDirectory(prefix="secreview-speed-") as tmp:
        work = Path(tmp)
        full, plain = rule_packs(work)
        small = work / "quarter"
        quarter = build_app_repo(small, max(modules // 4, 1))
        commands = _commands(work, full, plain)
        quarter_mib = {name: _measure(cmd, small).peak_mib for name, cmd in commands.items()}
        repo = work / "app"
        paths = build_app_repo(repo, modules)
        lines = sum((repo / p).read_text().count("\n") for p in paths)
        samples: dict[str, list[Sample]] = {name: [] for name in commands}
        load_before = os.getloadavg()[0]
        for _ in range(repeat):
            for name, cmd in commands.items():
                samples[name].append(_measure(cmd, repo))
        load_after = os.getloadavg()[0]
        parse, analyse = engine_split(repo, paths, repeat)
    runs = {name: Sample(statistics.median(r.seconds for r in found),
                         statistics.median(r.cpu for r in found),
                         max(r.peak_mib for r in found), max(r.returncode for r in found),
                         max(r.tree_mib for r in found))
            for name, found in samples.items()}
    for name, run in runs.items():
        # pytest exits 1 when an item fails (a finding at the threshold): a review that ran.
        if run.returncode not in ((0, 1) if name.startswith(("pytest", "secreview", "bandit"))
                                  else (0,)):
            raise SystemExit(f"{name} failed with exit status {run.returncode}")
    return Outcome(f"{len(paths)} Python files, {lines} lines", runs, quarter_mib,
                   len(quarter), parse, analyse, (load_before, load_after))


def engine_split(repo: Path, paths: list[str], repeat: int) -> tuple[float, float]:
    """Where the taint engine's time goes on the head files, in this process (best of
    ``repeat``): tree-sitter parsing plus the IR, then the dataflow of every module."""
    from pytest_secreview.analysis.catalogue import PRESETS
    from pytest_secreview.analysis.parse import parse_module
    from pytest_secreview.analysis.project import Project
    from pytest_secreview.analysis.spec import merge
    from pytest_secreview.rules.parse import parse_rule

    specs = [r.taint for r in (parse_rule(p.read_bytes(), p.name)
             for p in sorted(bundled_rules_dir().glob("*.md"))) if r.taint]
    cat = merge(tuple(specs), tuple(s for p in PRESETS.values() for s in p))
    sources = {p: (repo / p).read_bytes() for p in paths}
    parse = analyse = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        modules = {p: parse_module(data) for p, data in sources.items()}
        middle = time.perf_counter()
        Project(cat, modules).analyse()
        end = time.perf_counter()
        parse, analyse = min(parse, middle - start), min(analyse, end - middle)
    return parse, analyse


def main(argv: list[str] | None = None) -> int:
    """Build the pull request, time the reviewers, print (and optionally record)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1200, help="application modules")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write BENCHMARKS.md")
    parser.add_argument("--tree", type=Path, help="time the engine alone on real files here")
    parser.add_argument("--limit", type=int, default=3000)
    args = parser.parse_args(argv)
    if args.tree is not None:
        print(tree(args.tree, args.limit, args.repeat))
        return 0
    outcome = app(args.files, args.repeat)
    runs = outcome.runs
    bandit = runs["bandit -r"]
    rows = "\n".join(
        f"| {name} | {run.seconds:.2f} s | {run.cpu:.2f} s | {run.peak_mib:.0f} MiB "
        f"({outcome.quarter_mib[name]:.0f} MiB) | {run.tree_mib:.0f} MiB | "
        + ("-" if name == "bandit -r" else f"**{run.seconds / bandit.seconds:.2f}x** / "
           f"**{run.cpu / bandit.cpu:.2f}x** / **{run.peak_mib / bandit.peak_mib:.2f}x** / "
           f"{run.tree_mib / bandit.tree_mib:.2f}x") + " |"
        for name, run in runs.items())
    body = (
        "## The deterministic layer at scanner speed (ours vs `bandit -r`)\n\n"
        f"`.venv/bin/python benchmarks/bench_taint_speed.py --files {args.files} --repeat "
        f"{args.repeat} --record` - one pull request of a generated application "
        f"(`benchmarks/_app.py`: {outcome.size} at head; 30% of the modules changed from an "
        "older revision, the rest new), no model; `secreview` with every bundled rule (its "
        "Bandit scanner rule runs Bandit on the changed files), the other rows without the "
        "two scanner rules; each reviewer a separate process on the same repository; median wall "
        "time "
        f"and median CPU time (user + system) of {args.repeat} interleaved rounds; peak "
        "memory: the largest over the rounds of the peak RSS of the reviewer's largest single "
        "process (`wait4`; in brackets: one run on "
        f"{outcome.quarter_files} files, a quarter of the application), and of its whole "
        "process tree's summed RSS, sampled every 20 ms (secreview and the Bandit it runs, "
        "side by side; library pages both map are counted twice; never below the first "
        "figure, which a sample can miss). Load average (1 min) "
        f"{outcome.load[0]:.1f} before the rounds, "
        f"{outcome.load[1]:.1f} after them (2 cores shared with other jobs: the CPU ratio is "
        "the steadier one).\n\n"
        "| reviewer | wall time | CPU time | peak RSS, largest process (quarter) | peak RSS, "
        "process tree | ratio to Bandit (wall / CPU / RSS / tree RSS) |\n"
        "|---|---|---|---|---|---|\n"
        f"{rows}\n\n"
        f"The taint engine alone on the same head files, in one process (best of "
        f"{args.repeat}): parsing (tree-sitter and the IR) {outcome.parse:.2f} s, the "
        f"dataflow of every module {outcome.analyse:.2f} s.\n"
    )
    print(body)
    if args.record:
        write_section("taint-speed", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
