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


@dataclass(frozen=True)
class Sample:
    """One run of one reviewer: wall time, CPU time (user + system, its own and its
    children's), peak resident memory of its largest process, and the peak of the summed
    resident memory of its whole process tree (sampled)."""

    seconds: float
    cpu: float
    peak_mib: float
    returncode: int
    tree_mib: float = 0.0


#: How often the process tree's memory is sampled (seconds).
_SAMPLE_EVERY = 0.02


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass  # the process ended between two reads
    return 0


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return None


def _tree_rss_kib(pid: int) -> int:
    """The summed resident memory of ``pid`` and every process below it. A child
    whose command line is still its parent's has not run ``exec`` yet: it is the parent's
    image (after ``vfork``, the parent's very memory), already counted."""
    total = 0
    stack: list[tuple[int, bytes | None]] = [(pid, None)]
    while stack:
        current, parent_cmdline = stack.pop()
        cmdline = _cmdline(current)
        if cmdline is None or cmdline == parent_cmdline:
            continue
        total += _rss_kib(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    stack.extend((int(c), cmdline) for c in children.read().split())
        except (OSError, ValueError):
            continue
    return total


def measure_tree(cmd: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> Sample:
    """Run ``cmd`` with output discarded: wall time, CPU time, the largest process's peak RSS
    (``wait4``) and the process tree's summed RSS (sampled)."""
    # The CPU time is what this shared machine's load changes least: wall time waits for
    # other jobs' processes too.
    # Two memory figures. wait4's ru_maxrss is the peak of the largest single process of the
    # tree (the reviewer, or a child such as the Bandit that secreview's scanner rule starts,
    # whichever was larger; a child's figure also counts the parent's pages it was forked
    # from); it does not add up processes that ran at the same time. The tree's summed RSS,
    # read from /proc every 20 ms, does: what the machine holds while secreview and its
    # Bandit run side by side. It errs high (the interpreter's library pages both map are
    # counted twice) and can miss a spike shorter than the interval, so it is never taken
    # below the largest process's own peak.
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    tree = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        tree = max(tree, _tree_rss_kib(proc.pid))
        time.sleep(_SAMPLE_EVERY)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Sample(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                  proc.returncode, max(tree, usage.ru_maxrss) / 1024)


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
