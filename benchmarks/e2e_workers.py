"""The ``workers`` measure of ``bench_e2e.py`` (issue 16, item 2): do small pull requests gain
from ``-n`` too?

For each size (12 and 200 items by default) a repository as ``bench_e2e.build`` makes it, and
``pytest --secreview -n N`` for N in 0, 2, 4, 8 against the fake model server at LATENCY
seconds per turn (0.4 by default). Speed-up = wall at ``-n 0`` / wall at ``-n N``; start-up =
process start to the first model request; worker start-up = start-up at ``-n N`` minus at
``-n 0`` (starting the workers, each one's imports, collection and first item). Bytecode
caches are written and read as in a user's environment (``bench_e2e``'s other measures run
with ``PYTHONDONTWRITEBYTECODE=1``, which makes each worker recompile what pytest's assertion
rewriting rewrites). Target: at least 2x at ``-n 4`` on 12 items.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_e2e import build, check, review_cmd, run
from fake_model_server import TURNS, FakeModelServer

SIZES = (12, 200)
WORKERS = (0, 2, 4, 8)
LATENCY = 0.4


@dataclass(frozen=True)
class WorkerRow:
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


def _one(repo: Path, server: FakeModelServer, env: dict[str, str], items: int, n: int,
         latency: float) -> tuple[float, float]:
    server.reset(latency)
    began = time.monotonic()
    proc = run(review_cmd(server.url, n, "--secreview-no-cache"), repo, env)
    check(proc, items, f"{items} items, -n {n}")
    if server.calls != items * TURNS or server.unexpected:
        raise SystemExit(f"{items} items, -n {n}: {server.calls} model calls "
                         f"({server.unexpected} unexpected), expected {items * TURNS}")
    return proc.seconds, min(r.started for r in server.requests) - began


def measure_workers(env: dict[str, str], sizes: tuple[int, ...] = SIZES,
                    workers: tuple[int, ...] = WORKERS, latency: float = LATENCY,
                    repeat: int = 3) -> list[WorkerRow]:
    """Median of ``repeat`` runs per (size, -n) for sizes up to 50 items, one run for larger
    ones (200 items at ``-n 0`` are minutes of model time); runs of one size are interleaved
    across worker counts so that a change in the machine's load hits every count alike."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows: list[WorkerRow] = []
    with FakeModelServer(latency) as server:
        for size, items in enumerate(sizes):
            with tempfile.TemporaryDirectory(prefix="secreview-bench-workers-") as tmp:
                repo = Path(tmp) / "repo"
                build(repo, items)
                if size == 0:
                    _one(repo, server, env, items, 0, latency)  # warm-up: bytecode caches
                runs: dict[int, list[tuple[float, float]]] = {n: [] for n in workers}
                for _ in range(repeat if items <= 50 else 1):
                    for n in workers:
                        runs[n].append(_one(repo, server, env, items, n, latency))
            medians = {n: (statistics.median(s for s, _ in r), statistics.median(u for _, u in r))
                       for n, r in runs.items()}
            serial, serial_startup = medians[0]
            for n in workers:
                seconds, startup = medians[n]
                row = WorkerRow(items, n, seconds, startup, serial, serial_startup)
                rows.append(row)
                print(f"  {items:>3} items -n {n}: {seconds:6.2f} s, speed-up "
                      f"{row.speedup:4.2f}x, start-up {startup:5.2f} s (workers "
                      f"+{row.worker_startup:5.2f} s)", flush=True)
    return rows


def workers_section(rows: list[WorkerRow], command: str, machine: str, latency: float,
                    repeat: int) -> str:
    """The BENCHMARKS.md section."""
    lines = [
        "## End to end: small pull requests and `-n`",
        "",
        f"`{command}` — for each size, the repository of the parallel measure (each changed "
        f"`.py` file matches one rule), {TURNS} model turns per item at {latency:g} s each "
        "from the fake server, `--secreview-no-cache`, median of "
        f"{repeat} runs interleaved across worker counts (one run at 200 items), bytecode "
        "caches as in a user's "
        "environment. Speed-up = wall at `-n 0` / wall at `-n N`. Start-up = process start "
        "to the first model request; worker start-up = start-up at `-n N` minus at `-n 0` "
        "(starting the workers, their imports, collection, the first item). Workers take "
        "the controller's start-up (`handoff.Handoff`: range, parsed diff, trusted settings, "
        f"rule files) instead of running `git diff` again. Machine: {machine}.",
        "",
        "| items | workers | wall | speed-up | start-up | worker start-up |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        extra = "" if r.workers == 0 else f"+{r.worker_startup:.2f} s"
        lines.append(f"| {r.items} | `-n {r.workers}` | {r.seconds:.2f} s | "
                     f"**{r.speedup:.2f}x** | {r.startup:.2f} s | {extra} |")
    target = next((r for r in rows if r.items == 12 and r.workers == 4), None)
    lines.append("")
    if target is None:
        lines.append("Target: at least 2x at `-n 4` on 12 items (not run with these sizes).")
    else:
        met = "**met**" if target.speedup >= 2 else "**not met**"
        lines.append(f"Target: at least 2x at `-n 4` on 12 items: {target.speedup:.2f}x, {met}.")
    return "\n".join(lines) + "\n"
