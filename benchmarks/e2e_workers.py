"""The ``workers`` measure of ``bench_e2e.py`` (issue 16, item 2; issue 24, item 8): do small
pull requests gain from ``-n`` too, under plain ``pytest`` and under ``secreview review``?

For each size (12 and 200 items by default) a repository as ``bench_e2e.build`` makes it, and
``pytest --secreview -n N`` and ``secreview review -n N`` (the hardened run: autoload off, no
conftest) for N in 0, 2, 4, 8 against the fake model server at LATENCY seconds per turn (0.4
by default). Speed-up = wall at ``-n 0`` / wall at ``-n N``; start-up =
process start to the first model request; worker start-up = start-up at ``-n N`` minus at
``-n 0`` (starting the workers, each one's imports, collection and first item). Bytecode
caches are written and read as in a user's environment (``bench_e2e``'s other measures run
with ``PYTHONDONTWRITEBYTECODE=1``, which makes each worker recompile what pytest's assertion
rewriting rewrites). Target: at least 2x at ``-n 4`` on 12 items.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_e2e import PYTEST, build, check, review_cmd, run
from fake_model_server import TURNS, FakeModelServer

SIZES = (12, 200)
WORKERS = (0, 2, 4, 8)
LATENCY = 0.4
#: The commands compared: plain pytest with the plugin, and the hardened ``secreview review``.
COMMANDS = ("pytest", "secreview")


def command(name: str, url: str, workers: int, *extra: str) -> list[str]:
    """``pytest --secreview ...`` or ``secreview review ...`` with the same review options."""
    plain = review_cmd(url, workers, *extra)
    if name == "pytest":
        return plain
    secreview = str(Path(sys.executable).with_name("secreview"))
    return [secreview, "review", *plain[len(PYTEST) + 1:]]  # without PYTEST and --secreview


@dataclass(frozen=True)
class WorkerRow:
    command: str  # "pytest" or "secreview"
    items: int
    workers: int
    seconds: float  # median wall
    startup: float  # median: process start to the first model request
    serial: float  # median wall at -n 0, same size
    serial_startup: float

    @property
    def speedup(self) -> float:
        return self.serial / self.seconds

    @property
    def worker_startup(self) -> float:
        return self.startup - self.serial_startup


def _one(repo: Path, server: FakeModelServer, env: dict[str, str], name: str, items: int,
         n: int, latency: float) -> tuple[float, float]:
    server.reset(latency)
    began = time.monotonic()
    proc = run(command(name, server.url, n, "--secreview-no-cache"), repo, env)
    check(proc, items, f"{name}, {items} items, -n {n}")
    if server.calls != items * TURNS or server.unexpected:
        raise SystemExit(f"{name}, {items} items, -n {n}: {server.calls} model calls "
                         f"({server.unexpected} unexpected), expected {items * TURNS}")
    return proc.seconds, min(r.started for r in server.requests) - began


def measure_workers(env: dict[str, str], sizes: tuple[int, ...] = SIZES,
                    workers: tuple[int, ...] = WORKERS, latency: float = LATENCY,
                    repeat: int = 3, commands: tuple[str, ...] = COMMANDS) -> list[WorkerRow]:
    """Median of ``repeat`` runs per (command, size, -n) for sizes up to 50 items, one run for
    larger ones (200 items at ``-n 0`` are minutes of model time); runs of one size are
    interleaved across commands and worker counts so that a change in the machine's load hits
    every one alike."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows: list[WorkerRow] = []
    with FakeModelServer(latency) as server:
        for size, items in enumerate(sizes):
            with tempfile.TemporaryDirectory(prefix="secreview-bench-workers-") as tmp:
                repo = Path(tmp) / "repo"
                build(repo, items)
                if size == 0:
                    for name in commands:  # warm-up: bytecode caches
                        _one(repo, server, env, name, items, 0, latency)
                runs: dict[tuple[str, int], list[tuple[float, float]]] = {
                    (name, n): [] for name in commands for n in workers}
                for _ in range(repeat if items <= 50 else 1):
                    for n in workers:
                        for name in commands:
                            runs[name, n].append(_one(repo, server, env, name, items, n,
                                                      latency))
            medians = {key: (statistics.median(s for s, _ in r),
                             statistics.median(u for _, u in r)) for key, r in runs.items()}
            for name in commands:
                serial, serial_startup = medians[name, 0]
                for n in workers:
                    seconds, startup = medians[name, n]
                    row = WorkerRow(name, items, n, seconds, startup, serial, serial_startup)
                    rows.append(row)
                    print(f"  {name:>9} {items:>3} items -n {n}: {seconds:6.2f} s, speed-up "
                          f"{row.speedup:4.2f}x, start-up {startup:5.2f} s (workers "
                          f"+{row.worker_startup:5.2f} s)", flush=True)
    return rows


def workers_section(rows: list[WorkerRow], command_line: str, machine: str, latency: float,
                    repeat: int) -> str:
    """The BENCHMARKS.md section."""
    lines = [
        "## End to end: small pull requests and `-n`",
        "",
        f"`{command_line}` — for each size, the repository of the parallel measure (each "
        "changed `.py` file matches one rule), reviewed by `pytest --secreview` (the dev "
        "environment's hypothesis plugin blocked, as in every measure of `bench_e2e`) and by "
        f"`secreview review`; {TURNS} model turns per item at {latency:g} s each from the fake "
        f"server, `--secreview-no-cache`, median of {repeat} runs interleaved across commands "
        "and worker counts (one run at 200 items), bytecode caches as in a user's "
        "environment. Speed-up = wall at `-n 0` / wall at `-n N` of the same command. "
        "Start-up = process start to the first model request; worker start-up = start-up at "
        "`-n N` minus at `-n 0` (starting the workers, their imports, collection, the first "
        "item). Workers take the controller's start-up (`handoff.Handoff`: range, parsed "
        "diff, trusted settings, rule files, ignore file, team guidance) instead of running "
        "git again. "
        f"Machine: {machine}.",
        "",
        "| command | items | workers | wall | speed-up | start-up | worker start-up |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        extra = "" if r.workers == 0 else f"+{r.worker_startup:.2f} s"
        lines.append(f"| `{r.command}` | {r.items} | `-n {r.workers}` | {r.seconds:.2f} s | "
                     f"**{r.speedup:.2f}x** | {r.startup:.2f} s | {extra} |")
    lines.append("")
    for name in dict.fromkeys(r.command for r in rows):
        target = target_row(rows, name)
        if target is None:
            lines.append(f"Target (`{name}`): at least 2x at `-n 4` on 12 items (not run with "
                         "these sizes).")
        else:
            met = "**met**" if target.speedup >= 2 else "**not met**"
            lines.append(f"Target (`{name}`): at least 2x at `-n 4` on 12 items: "
                         f"{target.speedup:.2f}x, {met}.")
    return "\n".join(lines) + "\n"


def target_row(rows: list[WorkerRow], name: str) -> WorkerRow | None:
    """The row the target reads: ``name`` at ``-n 4`` on 12 items."""
    return next((r for r in rows if r.command == name and r.items == 12 and r.workers == 4),
                None)
