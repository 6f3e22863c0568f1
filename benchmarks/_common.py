"""Shared helpers for the benchmarks: timing child processes with their peak memory, and
writing a section of BENCHMARKS.md."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"


@dataclass(frozen=True)
class Run:
    """Wall time in seconds and peak resident memory in MiB of one child process (and its
    user+sys CPU seconds, its reaped children's included)."""

    seconds: float
    peak_mib: float
    returncode: int
    cpu: float = 0.0


def measure(cmd: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` with output discarded; its own peak RSS comes from wait4's rusage."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(elapsed, usage.ru_maxrss / 1024, proc.returncode,
               usage.ru_utime + usage.ru_stime)


def median_run(cmd: Sequence[str], cwd: Path, repeat: int,
               env: dict[str, str] | None = None) -> Run:
    """The median time and the largest peak memory over ``repeat`` runs."""
    runs = [measure(cmd, cwd, env) for _ in range(repeat)]
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mib for r in runs),
               runs[-1].returncode, statistics.median(r.cpu for r in runs))


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of BENCHMARKS.md."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = BENCHMARKS_MD.read_text() if BENCHMARKS_MD.exists() else (
        "# Benchmarks\n\nFigures written by the commands in `benchmarks/`; ratios are against a "
        "reference measured in the same run, because these machines are noisy.\n"
    )
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.DOTALL)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else (
        text.rstrip() + "\n\n" + block + "\n"
    )
    BENCHMARKS_MD.write_text(text)
