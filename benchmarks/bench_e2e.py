"""End to end: a 200-item review against a fake model server (issue 6).

Builds a repository whose pull request changes ITEMS Python files, each matching exactly one
rule (a copy of the bundled ``sql-injection`` rule committed in the base revision under
``secreview/rules/``), and runs ``pytest --secreview`` against a scripted OpenAI-compatible
server (``benchmarks/fake_model_server.py``: three turns per item, ``read_file``,
``search_files``, ``report_findings``, each answered after LATENCY seconds). Four measures,
each with its reference taken in the same run:

1. wall time at ``-n 0`` and each ``--workers`` count against the ideal
   ``ITEMS * 3 * LATENCY / workers``: parallel efficiency = ideal / measured
   (target at least 80% at ``-n 8``);
2. the plugin's own CPU per item with the model answering at once: user+sys CPU of the
   serial pytest process and its children (``os.wait4``) minus that of ``pytest`` running
   ITEMS trivial test functions in the same repository, divided by ITEMS (target under 20 ms);
3. input tokens per item (characters / 4) of this design, all turns, against a naive
   single request per (rule, item) carrying the whole ``git diff main...HEAD``;
4. a warm-cache re-run: model calls (target 0) and wall time against ``pytest --version``
   (target under 3 s plus pytest's start-up);
5. ``--only workers`` (opt-in, :mod:`e2e_workers`): 12 and 200 items at 0.4 s per turn, the
   speed-up at ``-n 2/4/8`` and the workers' start-up (target at least 2x at ``-n 4`` on 12).

    .venv/bin/python benchmarks/bench_e2e.py [--items 200] [--latency 0.5] [--workers 0,4,8,16]
        [--repeat 3] [--quick] [--only parallel,cpu,tokens,cache] [--loose] [--no-write]

``--quick`` is 40 items at 0.2 s per turn and does not touch BENCHMARKS.md unless ``--write``.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, median_run, write_section
from fake_model_server import SCRIPT, TURNS, FakeModelServer, Request

MEASURES = ("parallel", "cpu", "tokens", "cache", "workers")
#: Measures run only when ``--only`` names them (``workers`` builds its own repositories).
OPT_IN = ("workers",)
_GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
            "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
            "GIT_CONFIG_NOSYSTEM": "1"}


# --- the repository ------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **_GIT_ENV}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout


def _base_module(i: int) -> str:
    return f'''"""Records service, shard {i}."""

import logging
import sqlite3

log = logging.getLogger(__name__)

TABLE = "t{i}"


def m{i}_connect(path):
    """Open the shard's database."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def m{i}_close(conn):
    log.debug("closing shard {i}")
    conn.close()
'''


def _pr_addition(i: int) -> str:
    # Synthetic source text for the pull request (a parameterised query), not SQL we run.
    return f'''

def m{i}_lookup(conn, record_id):
    """Fetch one record of the shard by id."""
    cur = conn.cursor()
    query = "SELECT id, name, owner FROM t{i} WHERE id = ?"
    cur.execute(query, (int(record_id),))
    row = cur.fetchone()
    log.debug("shard {i}: lookup %s -> %s", record_id, row is not None)
    return row


def m{i}_describe(conn, record_id):
    row = m{i}_lookup(conn, record_id)
    return "missing" if row is None else f"{{row['name']}} ({{row['owner']}})"
'''  # noqa: S608


def build(repo: Path, items: int, pack: bool = True) -> None:
    """``main``: the rule and ITEMS modules; ``pr`` (checked out): a lookup added to each.
    ``pack``: repack the objects, as a CI clone has them (fresh commits are loose objects)."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("records service\n")
    (repo / ".gitignore").write_text("secreview-artifacts/\nreview-cache/\nbench_ref/\n")
    rules = repo / "secreview" / "rules"
    rules.mkdir(parents=True)
    (rules / "sql-injection.md").write_text((ROOT / "rules" / "sql-injection.md").read_text())
    for i in range(items):
        path = repo / f"svc{i % 10}" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_base_module(i))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    for i in range(items):
        path = repo / f"svc{i % 10}" / f"m{i}.py"
        path.write_text(_base_module(i) + _pr_addition(i))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "add lookups")
    if pack:
        _git(repo, "repack", "-a", "-d", "-q")  # a CI clone holds one pack, not loose objects
    # The reference of measure 2: ITEMS trivial tests, untracked (invisible to the review).
    ref = repo / "bench_ref"
    ref.mkdir()
    (ref / "test_trivial.py").write_text(
        "".join(f"def test_{i}():\n    assert True\n\n\n" for i in range(items))
    )


# --- running pytest ------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """One child process: wall seconds, user+sys CPU seconds of it and its children, peak
    RSS (MiB), exit status and its output."""

    seconds: float
    cpu: float
    peak_mib: float
    returncode: int
    output: str

    def outcomes(self) -> dict[str, int]:
        """pytest's final counts, e.g. ``{"passed": 200}``."""
        last = self.output.strip().splitlines()[-1] if self.output.strip() else ""
        return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last)}


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> Proc:
    """Like ``_common.measure``, plus CPU time from the same ``wait4`` rusage and the output
    (to a file, so a full pipe never stalls the child)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return Proc(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                proc.returncode, text)


def child_env() -> dict[str, str]:
    """The environment without anything that would point the review elsewhere (a real
    model, a pull request to comment on, extra pytest options)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SECREVIEW_", "GITHUB_", "PYTEST_")) and k != "CI"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# The dev venv's test extras install hypothesis, whose pytest plugin imports hypothesis in
# every process's terminal summary (about 1 s of CPU per xdist worker); a CI install of
# pytest-secreview does not have it, so every run here (references included) blocks it.
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:hypothesispytest"]


def review_cmd(url: str, workers: int, *extra: str) -> list[str]:
    return [*PYTEST, "--secreview", "--base", "main", "-p", "no:cacheprovider", "-q",
            "--secreview-rules", "secreview/rules", "--secreview-model", "openai:test-model",
            "--secreview-api-base", url, "--secreview-prices", "test-model input=1 output=1",
            "-n", str(workers), *extra]


def check(proc: Proc, items: int, what: str) -> None:
    """Stop with pytest's output when a run did not pass exactly ``items`` items."""
    if proc.returncode != 0 or proc.outcomes().get("passed") != items:
        tail = "\n".join(proc.output.splitlines()[-30:])
        raise SystemExit(f"{what}: expected {items} passed, exit 0; got exit {proc.returncode}:"
                         f"\n{tail}")


# --- the measures --------------------------------------------------------------------------


@dataclass(frozen=True)
class ParallelRow:
    workers: int
    seconds: float
    ideal: float
    peak_in_flight: int
    calls: int
    to_first_call: float  # process start to the first model request
    model_phase: float  # first model request to the last answer
    after_last_call: float  # last answer to process exit
    reference: float  # the same -n on ITEMS trivial tests

    @property
    def efficiency(self) -> float:
        return self.ideal / self.seconds


def measure_parallel(repo: Path, server: FakeModelServer, env: dict[str, str], items: int,
                     latency: float, workers: list[int]) -> list[ParallelRow]:
    rows = []
    for n in workers:
        server.reset(latency)
        began = time.monotonic()
        proc = run(review_cmd(server.url, n, "--secreview-no-cache"), repo, env)
        ended = time.monotonic()
        check(proc, items, f"-n {n}")
        calls = server.calls
        if calls != items * TURNS or server.unexpected:
            raise SystemExit(f"-n {n}: {calls} model calls ({server.unexpected} unexpected), "
                             f"expected {items * TURNS}")
        first = min(r.started for r in server.requests)
        last = max(r.finished for r in server.requests)
        # pytest-xdist's own cost at this -n: the same number of trivial tests.
        ref = run([*PYTEST, "-p", "no:cacheprovider", "-q", "-n", str(n),
                   "bench_ref/test_trivial.py"], repo, env)
        check(ref, items, f"reference -n {n}")
        ideal = items * TURNS * latency / max(n, 1)
        row = ParallelRow(n, proc.seconds, ideal, server.peak_in_flight, calls, first - began,
                          last - first, ended - last, ref.seconds)
        rows.append(row)
        print(f"  -n {n:<2}: {proc.seconds:7.2f} s, ideal {ideal:7.2f} s, efficiency "
              f"{row.efficiency:6.1%}; start-up {row.to_first_call:5.2f} s, model phase "
              f"{row.model_phase:6.2f} s, wind-down {row.after_last_call:5.2f} s; peak "
              f"{row.peak_in_flight} in flight; trivial tests {ref.seconds:5.2f} s", flush=True)
    return rows


#: The CPU measure's scripts: the benchmark's own (``SCRIPT``) and shorter ones that split
#: the per-item CPU between its parts (the turn after the last tool is ``report_findings``).
CPU_VARIANTS: dict[str, tuple[str, ...]] = {
    "full": SCRIPT,
    "report_findings only": (),
    "read_file only": ("read_file",),
    "search_files only": ("search_files",),
}


@dataclass(frozen=True)
class CpuResult:
    runs: dict[str, list[Proc]]  # by variant; "full" is the measure
    reference: list[Proc]
    items: int

    def cpu(self, variant: str) -> float:
        return statistics.median(p.cpu for p in self.runs[variant])

    def wall(self, variant: str) -> float:
        return statistics.median(p.seconds for p in self.runs[variant])

    @property
    def reference_cpu(self) -> float:
        return statistics.median(p.cpu for p in self.reference)

    def net_ms(self, variant: str = "full") -> float:
        return 1000 * (self.cpu(variant) - self.reference_cpu) / self.items

    @property
    def raw_ms(self) -> float:
        return 1000 * self.cpu("full") / self.items


def measure_cpu(repo: Path, server: FakeModelServer, env: dict[str, str], items: int,
                repeat: int, variants: bool) -> tuple[CpuResult, list[Request]]:
    """Serial runs at latency 0, interleaved with the reference runs so drifting load hits
    all alike. Returns the result and the requests recorded by the last full run."""
    names = list(CPU_VARIANTS) if variants else ["full"]
    runs: dict[str, list[Proc]] = {name: [] for name in names}
    reference = []
    ref_cmd = [*PYTEST, "-p", "no:cacheprovider", "-q", "bench_ref/test_trivial.py"]
    requests: list[Request] = []
    for _ in range(repeat):
        for name in names:
            script = CPU_VARIANTS[name]
            server.reset(0.0, script)
            proc = run(review_cmd(server.url, 0, "--secreview-no-cache"), repo, env)
            check(proc, items, f"CPU run ({name})")
            if server.calls != items * (len(script) + 1) or server.unexpected:
                raise SystemExit(f"CPU run ({name}): {server.calls} model calls")
            runs[name].append(proc)
            if name == "full":
                requests = list(server.requests)
        ref = run(ref_cmd, repo, env)
        check(ref, items, "reference run")
        reference.append(ref)
        print("  " + ", ".join(f"{name} {runs[name][-1].cpu:.2f} s" for name in names)
              + f"; reference {ref.cpu:.2f} s CPU", flush=True)
    server.reset(script=SCRIPT)
    return CpuResult(runs, reference, items), requests


@dataclass(frozen=True)
class TokenResult:
    items: int
    ours_chars: float  # mean input characters per item, all turns
    ours_body_bytes: float  # mean request-body bytes per item, all turns
    turn_chars: list[float]  # mean input characters per turn
    naive_chars: float  # system prompt + whole diff, per item
    diff_chars: int
    system_chars: float

    @property
    def ratio(self) -> float:
        return self.naive_chars / self.ours_chars


def measure_tokens(repo: Path, requests: list[Request]) -> TokenResult:
    by_item: dict[tuple[str, str], list[Request]] = defaultdict(list)
    for request in requests:
        by_item[(request.rule, request.path)].append(request)
    diff = _git(repo, "diff", "main...HEAD")
    ours = [sum(r.input_chars for r in rs) for rs in by_item.values()]
    body = [sum(r.body_bytes for r in rs) for rs in by_item.values()]
    system = [next(r.system_chars for r in rs if r.turn == 1) for rs in by_item.values()]
    turns = [statistics.mean(r.input_chars for r in requests if r.turn == t)
             for t in range(1, TURNS + 1)]
    naive = [s + len(diff) for s in system]
    return TokenResult(len(by_item), statistics.mean(ours), statistics.mean(body), turns,
                       statistics.mean(naive), len(diff), statistics.mean(system))


@dataclass(frozen=True)
class CacheResult:
    cold: Proc
    cold_calls: int
    warm: list[Proc]
    warm_calls: int
    startup: float
    trivial: float  # pytest running ITEMS trivial tests

    @property
    def warm_seconds(self) -> float:
        return statistics.median(p.seconds for p in self.warm)


def measure_cache(repo: Path, server: FakeModelServer, env: dict[str, str], items: int,
                  repeat: int, trivial: float | None) -> CacheResult:
    cache = ["--secreview-cache-dir", "review-cache"]
    server.reset(0.0)  # filling the cache: the model's speed does not matter here
    cold = run(review_cmd(server.url, 0, *cache), repo, env)
    check(cold, items, "cold run")
    cold_calls = server.calls
    server.reset()
    warm = []
    for _ in range(repeat):
        proc = run(review_cmd(server.url, 0, *cache), repo, env)
        check(proc, items, "warm run")
        warm.append(proc)
    warm_calls = server.calls
    startup = median_run([*PYTEST, "--version"], repo, repeat, env).seconds
    print(f"  cold {cold.seconds:.2f} s ({cold_calls} calls), warm "
          f"{statistics.median(p.seconds for p in warm):.2f} s ({warm_calls} calls), "
          f"pytest --version {startup:.2f} s", flush=True)
    if trivial is None:
        ref = run([*PYTEST, "-p", "no:cacheprovider", "-q", "bench_ref/test_trivial.py"], repo,
                  env)
        check(ref, items, "reference run")
        trivial = ref.seconds
    return CacheResult(cold, cold_calls, warm, warm_calls, startup, trivial)


# --- the report ----------------------------------------------------------------------------


def _met(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


@dataclass(frozen=True)
class Context:
    """What every section states: the command, the machine, the set-up."""

    command: str
    machine: str
    items: int
    files: int  # tracked files at head
    packed: bool

    @property
    def setup(self) -> str:
        objects = "objects packed as in a CI clone" if self.packed else "objects loose"
        return (
            f"Set-up: {self.files} tracked files, {self.items} changed `.py` files each matching "
            "one rule (a copy of the bundled `sql-injection` under `secreview/rules/`), "
            f"{objects}; every pytest run, references included, has `-p no:cacheprovider -p "
            "no:hypothesispytest` (the dev venv's hypothesis plugin imports hypothesis in every "
            "process, about 1 s of CPU per xdist worker; a CI install has no hypothesis). "
            "Machine: " + self.machine + "."
        )


def machine_note(load: tuple[float, float, float]) -> str:
    return (f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
            f"{load[0]:.2f} at the start (other jobs share the machine: compare the ratios, not "
            "the absolute times)")


def parallel_section(rows: list[ParallelRow], ctx: Context, latency: float) -> str:
    lines = [
        "## End to end: parallel efficiency",
        "",
        f"`{ctx.command}` — {ctx.items} items, {TURNS} model turns each (`read_file` on the "
        "item's file, `search_files` over the repository, `report_findings` with no findings), "
        f"{latency:g} s per turn from a fake OpenAI-compatible server on 127.0.0.1 "
        "(`benchmarks/fake_model_server.py`, a thread per request), `--secreview-no-cache`, "
        "one run per worker count. " + ctx.setup,
        "",
        "Ideal = total model time / workers = "
        f"{ctx.items} × {TURNS} × {latency:g} s / n (n = 1 for `-n 0`); efficiency = ideal / "
        "measured. Start-up = process start to the first model request (imports, git diff, "
        "collection, xdist workers); model phase = first request to last answer; wind-down = "
        "last answer to exit (reports, artifacts, workers stopping). Reference = the same `-n` "
        f"running {ctx.items} trivial tests in the same repository (pytest and xdist alone).",
        "",
        "| workers | wall | ideal | efficiency | start-up | model phase | wind-down "
        "| peak requests in flight | reference |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| `-n {row.workers}` | {row.seconds:.2f} s | {row.ideal:.2f} s | "
                     f"**{row.efficiency:.1%}** | {row.to_first_call:.2f} s | "
                     f"{row.model_phase:.2f} s | {row.after_last_call:.2f} s | "
                     f"{row.peak_in_flight} | {row.reference:.2f} s |")
    eight = next((r for r in rows if r.workers == 8), None)
    lines.append("")
    if eight is None:
        lines.append("Target: at least 80% at `-n 8` (not run with these `--workers`).")
    else:
        lines.append(f"Target: at least 80% at `-n 8`: {eight.efficiency:.1%}, "
                     f"{_met(eight.efficiency >= 0.8)}.")
    return "\n".join(lines) + "\n"


def cpu_section(cpu: CpuResult, ctx: Context) -> str:
    body = f"""## End to end: the plugin's CPU per item

`{ctx.command}` — the same {cpu.items} items at `-n 0` with the model answering at once
(latency 0, so no model wait is in the figure), against `pytest bench_ref/test_trivial.py`
running {cpu.items} trivial test functions in the same repository; user+sys CPU of each pytest
process and the processes it waited for (git), from `os.wait4`; median of {len(cpu.reference)}
interleaved runs each. {ctx.setup}

| measure | value |
|---|---|
| review run, CPU (wall) | {cpu.cpu("full"):.2f} s ({cpu.wall("full"):.2f} s) |
| reference run, CPU (wall) | {cpu.reference_cpu:.2f} s ({statistics.median(p.seconds for p in cpu.reference):.2f} s) |
| raw CPU per item (review / {cpu.items}) | {cpu.raw_ms:.1f} ms |
| net CPU per item ((review − reference) / {cpu.items}) | **{cpu.net_ms():.1f} ms** |

Target: under 20 ms per item (net): {_met(cpu.net_ms() < 20)}.
"""  # noqa: E501
    if len(cpu.runs) == 1:
        return body
    base = cpu.net_ms("report_findings only")
    read, search, full = (cpu.net_ms("read_file only"), cpu.net_ms("search_files only"),
                          cpu.net_ms())
    tree = read + search - full - base
    rows = "\n".join(
        f"| {name} | {len(script) + 1} | {cpu.net_ms(name):.1f} ms |"
        for name, script in CPU_VARIANTS.items()
    )
    return body + f"""
Where it goes: the same runs with shorter model scripts (same median and reference).
With base = an item with one model turn and no tool, T = what an item's first repository tool
call costs before its own work (a new tree per item: `git rev-parse` and `git ls-tree -r -l` of
the head commit, parsed), R and S = a `read_file` and a `search_files` turn after that, each
with its model round trip: read = base + T + R, search = base + T + S, full = base + T + R + S.

| model script | turns | net CPU per item |
|---|---|---|
{rows}

| part | per item |
|---|---|
| base (collection, one model round trip, evaluation, reports, artifacts) | {base:.1f} ms |
| T, per-item tree load (= read + search − full − base) | {tree:.1f} ms |
| R, `read_file` turn (= full − search) | {full - search:.1f} ms |
| S, `search_files` turn over {ctx.files} files (= full − read) | {full - read:.1f} ms |
"""


def tokens_section(tok: TokenResult, ctx: Context) -> str:
    per_turn = ", ".join(f"turn {i}: {c / 4:,.0f}" for i, c in enumerate(tok.turn_chars, 1))
    return f"""## End to end: input tokens per item against the whole-diff design

`{ctx.command}` — from the requests the fake server recorded in a CPU run ({tok.items} items).
Tokens are **estimated as characters / 4** (no tokenizer). This design: every message's text
(system prompt, task with the matched hunks, tool calls and tool results) plus the tool
declarations, summed over the {TURNS} turns of an item (each turn re-sends the history). Naive
design: one request per (rule, item) holding the same system prompt and the entire
`git diff main...HEAD` ({tok.diff_chars:,} characters), no tools. Provider prompt caching of
the static prefix would lower both and is not counted. {ctx.setup}

| measure | value |
|---|---|
| this design, input tokens per item (all turns) | **{tok.ours_chars / 4:,.0f}** ({per_turn}) |
| this design, request bytes per item (JSON bodies) | {tok.ours_body_bytes:,.0f} |
| naive design, input tokens per item | **{tok.naive_chars / 4:,.0f}** (system prompt {tok.system_chars / 4:,.0f} + diff {tok.diff_chars / 4:,.0f}) |
| ratio naive / this design | **{tok.ratio:.1f}x** |
| whole pull request, this design / naive | {tok.items * tok.ours_chars / 4 / 1e6:.2f}M / {tok.items * tok.naive_chars / 4 / 1e6:.2f}M tokens |

The naive cost per item grows with the size of the whole pull request; this design's does not
(it grows with the item's own hunks and what the model chooses to read).
"""  # noqa: E501


def cache_section(c: CacheResult, ctx: Context) -> str:
    limit = 3.0 + c.startup
    ok = c.warm_calls == 0 and c.warm_seconds < limit
    warm_cpu = statistics.median(p.cpu for p in c.warm)
    return f"""## End to end: warm-cache re-run

`{ctx.command}` — the same {ctx.items} items at `-n 0` with `--secreview-cache-dir
review-cache`: one cold run (model latency 0: it only fills the cache), then {len(c.warm)}
identical warm runs (median), `pytest --version` as pytest's start-up (median of
{len(c.warm)}), and for scale the {ctx.items} trivial tests of the CPU measure. {ctx.setup}

| measure | value |
|---|---|
| cold run | {c.cold.seconds:.2f} s, {c.cold_calls} model calls |
| warm run | **{c.warm_seconds:.2f} s** ({warm_cpu:.2f} s CPU), **{c.warm_calls} model calls** (all warm runs) |
| pytest start-up (`pytest --version`) | {c.startup:.2f} s |
| warm run − start-up | {c.warm_seconds - c.startup:.2f} s |
| {ctx.items} trivial tests (`pytest bench_ref/test_trivial.py`) | {c.trivial:.2f} s |

Target: no model call and under 3 s + start-up ({limit:.2f} s): {_met(ok)}.
"""  # noqa: E501


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=None,
                        help="items (default 200; the workers measure: 12 and 200)")
    parser.add_argument("--latency", type=float, default=None,
                        help="seconds per model turn (default 0.5)")
    parser.add_argument("--workers", default=None, help="comma-separated -n values "
                        "(default 0,4,8,16)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs of the CPU and cache measures (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="40 items, 0.2 s per turn, -n 0,4,8, 1 repeat")
    parser.add_argument("--only", default=",".join(m for m in MEASURES if m not in OPT_IN),
                        help=f"comma-separated subset of {','.join(MEASURES)}")
    parser.add_argument("--no-breakdown", action="store_true",
                        help="skip the CPU measure's shorter-script runs")
    parser.add_argument("--loose", action="store_true",
                        help="keep the repository's objects loose (default: one pack, as in CI)")
    parser.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                        help="write BENCHMARKS.md (default: yes, except with --quick)")
    args = parser.parse_args()
    quick = args.quick
    items = args.items or (40 if quick else 200)
    latency = args.latency if args.latency is not None else (0.2 if quick else 0.5)
    workers = [int(w) for w in (args.workers or ("0,4,8" if quick else "0,4,8,16")).split(",")]
    repeat = args.repeat or (1 if quick else 3)
    only = [m.strip() for m in args.only.split(",") if m.strip()]
    unknown = set(only) - set(MEASURES)
    if unknown:
        parser.error(f"unknown measure(s) {sorted(unknown)}; choose from {MEASURES}")
    if "tokens" in only and "cpu" not in only:
        only.append("cpu")  # the token estimate reads the CPU run's requests
    write = args.write if args.write is not None else not quick
    command = shlex.join([".venv/bin/python", "benchmarks/bench_e2e.py", *sys.argv[1:]])
    env = child_env()
    sections: list[tuple[str, str]] = []
    failed: list[str] = []
    if "workers" in only:
        from e2e_workers import LATENCY, SIZES, measure_workers, target_row, workers_section

        print("small pull requests and -n:", flush=True)
        lat = args.latency if args.latency is not None else LATENCY
        machine = machine_note(os.getloadavg())
        sizes = (args.items,) if args.items else SIZES  # --items: that size only
        worker_rows = measure_workers(env, sizes, latency=lat, repeat=repeat)
        sections.append(("e2e-workers", workers_section(worker_rows, command, machine, lat,
                                                        repeat)))
        if any((row := target_row(worker_rows, name)) is not None and row.speedup < 2
               for name in ("pytest", "secreview")):
            failed.append("workers")
        only.remove("workers")
    if only:  # the measures on the 200-item repository
        with tempfile.TemporaryDirectory(prefix="secreview-bench-e2e-") as tmp, \
                FakeModelServer(latency) as server:
            repo = Path(tmp) / "repo"
            build(repo, items, pack=not args.loose)
            files = len(_git(repo, "ls-files").splitlines())
            ctx = Context(command, machine_note(os.getloadavg()), items, files, not args.loose)
            print(f"{items} items, {latency:g} s per turn, workers {workers}, repeat {repeat}; "
                  f"{ctx.machine}", flush=True)
            if "parallel" in only:
                print("parallel efficiency:", flush=True)
                rows = measure_parallel(repo, server, env, items, latency, workers)
                sections.append(("e2e-parallel", parallel_section(rows, ctx, latency)))
                eight = next((r for r in rows if r.workers == 8), None)
                if eight is not None and eight.efficiency < 0.8:
                    failed.append("parallel")
            trivial = None
            if "cpu" in only:
                print("CPU per item:", flush=True)
                cpu, requests = measure_cpu(repo, server, env, items, repeat,
                                            variants=not args.no_breakdown)
                trivial = statistics.median(p.seconds for p in cpu.reference)
                sections.append(("e2e-cpu", cpu_section(cpu, ctx)))
                if cpu.net_ms() >= 20:
                    failed.append("cpu")
                if "tokens" in only:
                    tok = measure_tokens(repo, requests)
                    print(f"  tokens per item: {tok.ours_chars / 4:,.0f} against "
                          f"{tok.naive_chars / 4:,.0f} naive ({tok.ratio:.1f}x)", flush=True)
                    sections.append(("e2e-tokens", tokens_section(tok, ctx)))
            if "cache" in only:
                print("warm cache:", flush=True)
                cache = measure_cache(repo, server, env, items, repeat, trivial)
                sections.append(("e2e-cache", cache_section(cache, ctx)))
                if cache.warm_calls != 0 or cache.warm_seconds >= 3.0 + cache.startup:
                    failed.append("cache")
    for name, body in sections:
        print()
        print(body)
        if write:
            write_section(name, body)
    if not write:
        print("(BENCHMARKS.md not written: --quick or --no-write)")
    if failed:
        print(f"targets not met: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
