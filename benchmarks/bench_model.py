"""Measure the model path on ``benchmarks/model_corpus/``: runs

    secreview bench benchmarks/model_corpus --model openai:<name> --api-base URL --json

against any OpenAI-compatible server, one model request at a time, and writes precision,
recall, F1, findings per problem, model calls and tokens per rule and overall as a table into
the "With a model" section of BENCHMARKS.md, with the command that produced it.

    .venv/bin/python benchmarks/bench_model.py --model openai:NAME --api-base URL [--write]
    .venv/bin/python benchmarks/bench_model.py --fake [--write]    # plumbing check only

``--fake`` answers every model request with a scripted fake server on 127.0.0.1
(``tests/fake_providers.py``; it reports no finding and confirms any finding it is asked to
check): it proves the wiring end to end, not the quality of any model, and its table says so.
(``fake_model_server.py`` scripts per-file items only; the general review's batch items are
part of this run.) Extra ``--case GLOB`` and ``--rule ID`` are passed on to ``secreview bench``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks._common import ROOT, write_section
from tests.fake_providers import (
    FakeServers,
    Recorded,
    Reply,
    openai_completion,
    openai_tool_call,
)

CORPUS = ROOT / "benchmarks" / "model_corpus"
SECTION = "model-path"
# The rules whose items see this corpus's flawed hunks: the ones it labels, the general
# review, and the rules whose grep takes a flawed hunk away from the general review (the
# sign-in's hunks go to trust-boundary, the signature's to xss as well as code-injection).
RULES = ("missing-authorization", "code-injection", "xss", "path-traversal", "ssrf",
         "trust-boundary", "security-review")


def bench_command(model: str, api_base: str, cases: Sequence[str], rules: Sequence[str],
                  keep: Path | None) -> list[str]:
    """The ``secreview bench`` command line this script runs."""
    command = ["secreview", "bench", str(CORPUS.relative_to(ROOT)), "--model", model,
               "--api-base", api_base, "--json"]
    for glob in cases:
        command += ["--case", glob]
    for rule in rules:
        command += ["--rule", rule]
    if keep is not None:
        command += ["--keep", str(keep)]
    return command


def bench_env(timeout: float, max_turns: int) -> dict[str, str]:
    """The environment of the run: one model request at a time, the given per-call timeout
    and turn budget (``secreview bench`` never reads or writes the evaluation cache)."""
    env = dict(os.environ)
    env.update(SECREVIEW_MAX_CONCURRENCY="1", SECREVIEW_TIMEOUT=str(timeout),
               SECREVIEW_MAX_TURNS=str(max_turns))
    return env


def run_bench(command: Sequence[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``secreview bench`` (the one next to this interpreter) and parse its JSON."""
    exe = Path(sys.executable).parent / "secreview"
    done = subprocess.run([str(exe), *command[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"secreview bench exited {done.returncode}:\n{done.stderr}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _row(score: dict[str, Any]) -> str:
    cost = score["cost"]
    name = score["rule"] if score["rule"] != "overall" else "**overall**"
    return (f"| {name} | {score['expected']} | {score['tp']} | {score['fp']} | {score['fn']} "
            f"| {_pct(score['precision'])} | {_pct(score['recall'])} | {_num(score['f1'])} "
            f"| {_num(score['reports_per_hit'])} | {_num(score['findings_per_problem'])} "
            f"| {cost['model_calls']} | {cost['input_tokens']} | {cost['output_tokens']} |")


def render(data: dict[str, Any], command: Sequence[str], env_note: str, seconds: float,
           fake: bool) -> str:
    """The "With a model" section of BENCHMARKS.md."""
    what = ("a scripted fake server (it reports nothing and confirms what it is asked to "
            "check: these figures prove the wiring, they measure no model)" if fake
            else f"`{data['model']}`")
    lines = [
        "## With a model: the model path on its own corpus",
        "",
        f"{data['cases']} pull requests of `benchmarks/model_corpus/` (six flaws no "
        "deterministic rule catches on its own, each with a near-identical safe twin, and "
        f"ordinary changes), reviewed by the full pytest path with {what}. Produced by "
        "`python benchmarks/bench_model.py`, which ran:",
        "",
        f"    {env_note} {shlex.join(command)}",
        "",
        f"Wall time {seconds / 60:.1f} min; "
        + ("complete." if data["complete"] else
           "INCOMPLETE: some items could not be reviewed, their findings are missing."),
        "",
        "| rule | expected | TP | FP | FN | precision | recall | F1 | reports per hit | "
        "findings per problem | model calls | input tokens | output tokens |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(_row(r) for r in data["rules"]),
        _row(data["overall"]),
        "",
        "Reports per hit: findings reported on each labelled problem found (1.00 = one "
        "finding per problem). Findings per problem: every reported finding (false positives "
        "and duplicates included) per labelled problem. Scoring: `benchmarks/corpus/README.md`.",
    ]
    return "\n".join(lines)


_CHECKED = re.compile(r"^\s*(\d+)[.)]", re.MULTILINE)


def _scripted(request: Recorded) -> Reply:
    """The fake model: answers with the tool that ends the conversation at once."""
    tools = {t["function"]["name"] for t in request.json.get("tools", [])}
    if "triage_findings" in tools:
        task = "\n".join(str(m.get("content") or "") for m in request.json["messages"])
        indexes = sorted({int(n) for n in _CHECKED.findall(task)}) or [1]
        call = openai_tool_call("c1", "triage_findings", json.dumps({"verdicts": [
            {"index": i, "verdict": "confirm", "reason": "scripted"} for i in indexes]}))
    elif "report_findings" in tools:
        call = openai_tool_call("c1", "report_findings", json.dumps({"findings": []}))
    else:
        return Reply(400, {"error": {"message": f"scripted fake: no answer tool in {tools}"}})
    usage = {"prompt_tokens": len(request.raw) // 4, "completion_tokens": 20,
             "total_tokens": len(request.raw) // 4 + 20}
    return Reply(json=openai_completion(tool_calls=[call], finish_reason="tool_calls",
                                        usage=usage))


@contextlib.contextmanager
def _fake_server() -> Iterator[str]:
    with FakeServers() as servers:
        yield servers.start(_scripted).url


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurement; print the JSON's summary, and with ``--write`` the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="e.g. openai:my-model (OpenAI-compatible server)")
    parser.add_argument("--api-base", metavar="URL", help="the server's base URL")
    parser.add_argument("--fake", action="store_true",
                        help="use the scripted fake server (plumbing check)")
    parser.add_argument("--case", action="append", default=[], metavar="GLOB")
    parser.add_argument("--rule", action="append", default=None, metavar="ID",
                        help=f"rules to run (default: {' '.join(RULES)})")
    parser.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                        help="seconds allowed for one model call (default 1800)")
    parser.add_argument("--max-turns", type=int, default=20, metavar="N")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each case's repository, artifacts and summary.json")
    parser.add_argument("--json-out", type=Path, metavar="FILE",
                        help="also save secreview bench's JSON document here")
    parser.add_argument("--write", action="store_true", help="write BENCHMARKS.md")
    args = parser.parse_args(argv)
    if args.fake == bool(args.model or args.api_base):
        parser.error("give --model and --api-base, or --fake")
    if not args.fake and not (args.model and args.api_base):
        parser.error("--model and --api-base go together")
    rules = args.rule or list(RULES)
    env = bench_env(args.timeout, args.max_turns)
    env_note = (f"SECREVIEW_MAX_CONCURRENCY=1 SECREVIEW_TIMEOUT={args.timeout:g} "
                f"SECREVIEW_MAX_TURNS={args.max_turns}")
    with contextlib.ExitStack() as stack:
        if args.fake:
            api_base = stack.enter_context(_fake_server())
            model = "openai:scripted-fake"
        else:
            api_base, model = args.api_base, args.model
        command = bench_command(model, api_base, args.case, rules, args.keep)
        start = time.perf_counter()
        data = run_bench(command, env)
        seconds = time.perf_counter() - start
    if args.fake:  # the fake server's address changes every run: not part of the record
        command = bench_command(model, "http://127.0.0.1:PORT", args.case, rules,
                                args.keep)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(data, indent=2) + "\n")
    section = render(data, command, env_note, seconds, args.fake)
    print(section)
    if args.write:
        write_section(SECTION, section)
    return 0 if data["complete"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
