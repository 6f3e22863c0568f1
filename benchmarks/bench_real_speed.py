"""As fast as Bandit on a real application: the no-model review of a real 1,000+ file
application added as one pull request, side by side with ``bandit -r`` on the same files.

The application is a release of a real project from its PyPI source distribution (cached
with ``bench_real_code.py``'s under ``~/.cache/secreview-real-code``; ``--offline`` never
downloads): by default wagtail 6.3.1, a Django CMS (4,013 files, 1,170 of them Python, plus
templates, static assets and 1,061 compiled translation catalogues). A real git repository
holds an empty base on ``main`` and the whole tree on ``pr`` (checked out): the pull request
that adds the application. Each reviewer runs as its own process there, as the CI recipe
runs it (``docs/ci.md``: no model, JUnit and SARIF written), in interleaved rounds (a load
spike on this shared machine hits all of them alike):

- ``secreview --base main --junitxml ... --secreview-sarif ...``: every bundled rule, the
  Bandit scanner rule included;
- the same without the two scanner rules (``--secreview-rules`` a copy of the bundled pack
  without them);
- ``secreview --collect-only``: start-up, the diff and collection, no item run;
- ``bandit -r`` (all its default tests) on the application's top-level entries.

Wall and CPU time are medians over ``--repeat`` rounds, peak RSS the largest (``wait4``: the
largest process; sampled: the whole process tree). The items a run made are counted from its
JUnit file, so the **cost per item** is the run's time over its items, and the items' own
share is the full run minus ``--collect-only``.

``--baseline DIR`` adds the same secreview rows for another copy of the package (``DIR``
holding ``pytest_secreview/`` and ``rules/``, for example ``git archive HEAD~3
pytest_secreview rules | tar -x -C DIR``), run through ``PYTHONPATH`` in the same rounds:
before and after in one table.

    .venv/bin/python benchmarks/bench_real_speed.py [--app wagtail==6.3.1] [--repeat 3]
        [--baseline DIR] [--xdist] [--offline] [--record]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Sample, measure_tree, write_section
from bench_real_code import DEFAULT_CACHE, PullRequest, _commit, _git, sdist, unpack
from bench_taint_speed import rule_packs

#: The default application: a Django CMS, web application code of every kind.
DEFAULT_APP = "wagtail==6.3.1"
BANDIT = "bandit -r"


def build_app(archive: Path, repo: Path) -> tuple[int, int]:
    """The pull request adding the application of ``archive``: an empty commit on ``main``,
    the whole tree on ``pr`` (checked out). Returns (files, Python files)."""
    files = unpack(archive)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for key, value in (("commit.gpgsign", "false"), ("user.name", "bench"),
                       ("user.email", "bench@example.invalid"), ("core.autocrlf", "false")):
        _git(repo, "config", key, value)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "empty base")
    _git(repo, "checkout", "-q", "-b", "pr")
    _commit(repo, files, "the application")
    return len(files), sum(1 for p in files if p.endswith(".py"))


@dataclass(frozen=True)
class Reviewer:
    """One command of the rounds; ``junit`` is where it writes its JUnit file (if any)."""

    name: str
    cmd: list[str]
    env: dict[str, str] | None = None
    junit: Path | None = None


def _secreview(name: str, work: Path, *extra: str, env: dict[str, str] | None = None,
               outputs: bool = True) -> Reviewer:
    # What the CI recipe runs (docs/ci.md), with no model; the outputs outside the checkout.
    slug = "".join(c if c.isalnum() else "-" for c in name)
    junit = work / f"{slug}.xml"
    cmd = [str(Path(sys.executable).parent / "secreview"), "--base", "main",
           f"--secreview-artifacts={work / slug}", *extra]
    if outputs:
        cmd += [f"--junitxml={junit}", f"--secreview-sarif={work / slug}.sarif"]
    return Reviewer(name, cmd, env, junit if outputs else None)


def reviewers(work: Path, repo: Path, baseline: Path | None, xdist: bool) -> list[Reviewer]:
    """Every command of a round."""
    full, _plain = rule_packs(work)
    versions: list[tuple[str, dict[str, str] | None]] = [("", None)]
    if baseline is not None:
        versions.insert(0, (" (baseline)", {**os.environ, "PYTHONPATH": str(baseline)}))
    out: list[Reviewer] = []
    for label, env in versions:
        out.append(_secreview(f"secreview{label}", work, env=env))
        out.append(_secreview(f"secreview, no scanner rules{label}", work,
                              f"--secreview-rules={full}", env=env))
        if xdist:
            out.append(_secreview(f"secreview -n 2{label}", work, "-n", "2", env=env))
        out.append(_secreview(f"secreview --collect-only{label}", work, "--collect-only",
                              env=env, outputs=False))
    bandit = shutil.which("bandit") or str(Path(sys.executable).parent / "bandit")
    tops = sorted({p.split("/", 1)[0] for p in
                   _git(repo, "ls-files").splitlines()})
    out.append(Reviewer(BANDIT, [bandit, "-r", *tops, "-q", "-f", "json",
                                 "-o", str(work / "bandit.json")]))
    return out


def count_items(junit: Path) -> Counter[str]:
    """The run's test cases by kind: each rule's per-file items, its batches (scanner,
    dataflow), and the session's own items (not code, unreviewed)."""
    kinds: Counter[str] = Counter()
    for case in ET.parse(junit).iter("testcase"):  # noqa: S314 - written by our own run
        name = case.get("name", "")
        label = name[name.find("[") + 1:-1] if "[" in name else ""
        if case.get("classname") == "secreview" or name.startswith("unreviewed["):
            kinds["session (not code, unreviewed)"] += 1
        elif label.startswith(("bandit:", "semgrep:")):
            kinds["scanner batches"] += 1
        elif label.startswith("dataflow:"):
            kinds["dataflow"] += 1
        else:
            kinds["rule x file"] += 1
    return kinds


@dataclass(frozen=True)
class Outcome:
    """The medians of every reviewer, its items, and the load around the rounds."""

    app: str
    files: int
    python: int
    runs: dict[str, Sample]
    items: dict[str, Counter[str]]
    load: tuple[float, float]


def _median(found: Sequence[Sample]) -> Sample:
    return Sample(statistics.median(r.seconds for r in found),
                  statistics.median(r.cpu for r in found), max(r.peak_mib for r in found),
                  max(r.returncode for r in found), max(r.tree_mib for r in found))


def run(app: str, cache: Path, offline: bool, repeat: int, baseline: Path | None,
        xdist: bool) -> Outcome:
    """Build the application's pull request and time every reviewer on it."""
    project, _, version = app.partition("==")
    archive = sdist(PullRequest(project, version, version, "web app"), version, cache, offline)
    with tempfile.TemporaryDirectory(prefix="secreview-real-speed-") as tmp:
        work = Path(tmp)
        repo = work / "app"
        files, python = build_app(archive, repo)
        commands = reviewers(work, repo, baseline, xdist)
        samples: dict[str, list[Sample]] = {r.name: [] for r in commands}
        load_before = os.getloadavg()[0]
        for _ in range(repeat):
            for reviewer in commands:
                samples[reviewer.name].append(measure_tree(reviewer.cmd, repo, reviewer.env))
        load_after = os.getloadavg()[0]
        items = {r.name: count_items(r.junit) for r in commands
                 if r.junit is not None and r.junit.exists()}
    runs = {name: _median(found) for name, found in samples.items()}
    for name, sample in runs.items():
        # secreview and bandit exit 1 on a finding: a review that ran.
        if sample.returncode not in (0, 1):
            raise SystemExit(f"{name} failed with exit status {sample.returncode}")
    return Outcome(app, files, python, runs, items, (load_before, load_after))


def render(outcome: Outcome, repeat: int) -> str:
    """The table: each reviewer against Bandit, and the cost per item."""
    bandit = outcome.runs[BANDIT]
    rows = []
    for name, run_ in outcome.runs.items():
        ratio = "-" if name == BANDIT else (
            f"**{run_.seconds / bandit.seconds:.2f}x** / **{run_.cpu / bandit.cpu:.2f}x** / "
            f"**{run_.peak_mib / bandit.peak_mib:.2f}x** / {run_.tree_mib / bandit.tree_mib:.2f}x")
        kinds = outcome.items.get(name)
        if kinds:
            total = sum(kinds.values())
            suffix = name.removeprefix("secreview").removeprefix(", no scanner rules")
            collect = outcome.runs.get(f"secreview --collect-only{suffix}")
            own = "" if collect is None else (
                f"; items' share {1000 * (run_.seconds - collect.seconds) / total:.1f} ms")
            items = (f"{total} ({', '.join(f'{n} {k}' for k, n in kinds.most_common())}); "
                     f"{1000 * run_.seconds / total:.1f} ms wall, "
                     f"{1000 * run_.cpu / total:.1f} ms CPU per item{own}")
        else:
            items = "-"
        rows.append(f"| {name} | {run_.seconds:.2f} s | {run_.cpu:.2f} s | "
                    f"{run_.peak_mib:.0f} MiB | {run_.tree_mib:.0f} MiB | {ratio} | {items} |")
    return (
        f"{outcome.app} ({outcome.files} files, {outcome.python} of them Python) added as one "
        f"pull request; median of {repeat} interleaved rounds; load average (1 min) "
        f"{outcome.load[0]:.1f} before the rounds, {outcome.load[1]:.1f} after.\n\n"
        "| reviewer | wall time | CPU time | peak RSS, largest process | peak RSS, process "
        "tree | ratio to Bandit (wall / CPU / RSS / tree RSS) | items; cost per item |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Build the pull request, time the reviewers, print (and optionally record)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", action="append", default=[],
                        help=f"PROJECT==VERSION from PyPI (repeatable; default {DEFAULT_APP})")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--offline", action="store_true", help="never download")
    parser.add_argument("--baseline", type=Path,
                        help="another copy of the package (pytest_secreview/ and rules/)")
    parser.add_argument("--xdist", action="store_true", help="also run secreview -n 2")
    parser.add_argument("--record", action="store_true", help="write BENCHMARKS.md")
    args = parser.parse_args(argv)
    if args.baseline is not None and not (args.baseline / "pytest_secreview").is_dir():
        parser.error(f"--baseline {args.baseline}: no pytest_secreview/ there")
    bodies = [render(run(app, args.cache, args.offline, args.repeat, args.baseline,
                         args.xdist), args.repeat)
              for app in (args.app or [DEFAULT_APP])]
    command = ("`.venv/bin/python benchmarks/bench_real_speed.py "
               + " ".join(f"--app {a}" for a in args.app)
               + f"{' ' if args.app else ''}--repeat {args.repeat}"
               + (" --baseline DIR" if args.baseline else "")
               + (" --xdist" if args.xdist else "") + " --record`")
    baseline = ("Rows marked (baseline) ran another copy of the package (`--baseline DIR`, "
                "through `PYTHONPATH`) in the same rounds. " if args.baseline else "")
    body = (
        "## A real application at scanner speed (ours vs `bandit -r`)\n\n"
        f"{command}: a real application from its PyPI source distribution added as one "
        "pull request (empty base), reviewed with no model as the CI recipe runs it "
        "(`secreview --base main`, JUnit and SARIF written) and by `bandit -r` on the same "
        "files, each a separate process; wall and CPU time (user + system) are medians, peak "
        "RSS the largest over the rounds (`wait4`: the largest single process; and the whole "
        "process tree's summed RSS sampled every 20 ms, secreview and the Bandit it runs side "
        "by side). The machine has 2 cores shared with other jobs: the CPU ratio is the "
        f"steadier one. {baseline}Items are counted from each run's JUnit file; the items' "
        "share is the run minus `--collect-only` (start-up, diff, collection) over its "
        "items.\n\n"
        + "\n".join(bodies))
    print(body)
    if args.record:
        write_section("real-speed", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
