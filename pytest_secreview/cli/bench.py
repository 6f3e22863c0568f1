"""``secreview bench [CORPUS]``: run the rules over a labelled corpus of pull-request fixtures
and print precision, recall and F1 per rule and overall, how many findings each problem got
(duplication), and the cost in model calls, tokens and dollars.

Without a model each case is reviewed by the deterministic layer (patterns and taint); with
``--model`` (or ``SECREVIEW_MODEL``) by the product's full pytest review, so model findings
count too. With no CORPUS it runs the corpus shipped with the package. The corpus format is
documented in ``benchmarks/corpus/README.md``.

Exit status: 0 normally, 1 when ``--min-f1`` is given and the overall F1 is below it (or
undefined), or any item could not be reviewed; 2 for bad input (a message says what to fix).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import sys
import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ..bench import SHIPPED_CORPUS, Case, CorpusError, load_corpus
from ..bench.metrics import CaseOutcome, Cost, RuleScore, match_case, score_rules
from ..bench.run import build_repo, run_deterministic, run_with_model
from ..errors import SecreviewError
from ..options import BY_NAME
from ..severity import one_line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="secreview bench",
        description="Measure the rules on a labelled corpus of pull requests: precision, "
                    "recall and F1 per rule and overall, and the model cost.")
    parser.add_argument("corpus", nargs="?", type=Path, metavar="CORPUS",
                        help="corpus directory (default: the corpus shipped with "
                             "pytest-secreview); format: benchmarks/corpus/README.md")
    parser.add_argument("--rules", action="append", default=[], metavar="PATH",
                        help="a rule file or a directory of rule .md files, used in addition "
                             "to the bundled rules; repeatable")
    parser.add_argument("--no-bundled", action="store_true",
                        help="use only the --rules given, not the bundled rule pack")
    parser.add_argument("--model", default=os.environ.get(BY_NAME["model"].env) or None,
                        help="model for the full review, e.g. openai:gpt-4.1 (default: "
                             "SECREVIEW_MODEL; none: deterministic rules only)")
    parser.add_argument("--api-base", default=os.environ.get(BY_NAME["api-base"].env) or None,
                        metavar="URL", help="provider base URL (default: SECREVIEW_API_BASE)")
    parser.add_argument("--rule", action="append", metavar="ID",
                        help="score only this rule; repeatable")
    parser.add_argument("--case", action="append", metavar="GLOB",
                        help="run only the cases whose id matches this glob; repeatable")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--details", action="store_true",
                        help="also list every miss and false positive per case")
    parser.add_argument("--min-f1", type=float, metavar="X",
                        help="exit 1 when the overall F1 is below X (0 to 1)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each case's repository (with a model also its artifacts "
                             "and summary.json) under DIR/<case-id>/ (DIR must not exist) "
                             "instead of a temporary directory")
    return parser


def _bad(message: str) -> int:
    print(f"secreview bench: {message}", file=sys.stderr)
    return 2


def _rule_entries(args: argparse.Namespace) -> list[str] | str:
    """What ``--secreview-rules`` gets (absolute paths), or an error message."""
    entries = [] if args.no_bundled else [":bundled"]
    for raw in args.rules:
        path = Path(raw).resolve()
        if not path.exists():
            return (f"--rules {raw}: no such file or directory; pass a rule .md file or a "
                    "directory of them")
        entries.append(str(path))
    if not entries:
        return "--no-bundled leaves no rules; add --rules PATH"
    return entries


def _rule_ids(rules: Sequence[str]) -> set[str]:
    """Ids of the rules ``rules`` load (bundled pack and paths outside any case repository,
    so no repository is needed: an empty directory stands in)."""
    from ..evaluation.offline import load_rules

    with tempfile.TemporaryDirectory(prefix="secreview-bench-rules-") as tmp:
        parsed, _errors = load_rules(Path(tmp), "HEAD", rules)
    return {rule.id for rule in parsed}


def _select(cases: Sequence[Case], globs: Sequence[str] | None) -> list[Case]:
    if not globs:
        return list(cases)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, g) for g in globs)]


def run_bench(cases: Sequence[Case], rules: Sequence[str], model: str | None,
              api_base: str | None, only: Collection[str] | None, keep: Path | None = None
              ) -> list[CaseOutcome]:
    """Review every case in its own repository (under ``keep`` when given, else a temporary
    directory) and match the findings."""
    outcomes: list[CaseOutcome] = []
    with contextlib.ExitStack() as stack:
        root = keep if keep is not None else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="secreview-bench-")))
        for case in cases:
            work = root / case.id
            repo = work / "repo"
            build_repo(repo, case)
            if model:
                result = run_with_model(repo, work, rules, model, api_base, only)
            else:
                result = run_deterministic(repo, rules, only)
            outcomes.append(match_case(case, result.findings, only, result.cost_by_rule,
                                       result.cost, result.errors))
    return outcomes


def unreviewed(outcomes: Sequence[CaseOutcome]) -> int:
    """Items of the run that could not be reviewed (their findings are not in the figures)."""
    return sum(len(o.errors) for o in outcomes)


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _f1(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _dollars(cost: Cost) -> str:
    return "unknown" if cost.cost_usd is None else f"${cost.cost_usd:.4f}"


def _per(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _row(score: RuleScore, with_cost: bool) -> str:
    row = (f"{one_line(score.rule)[:32]:<32} {score.expected:>8} {score.tp:>4} {score.fp:>4} "
           f"{score.fn:>4} {_ratio(score.precision):>9} {_ratio(score.recall):>7} "
           f"{_f1(score.f1):>6} {score.reported:>8} {_per(score.reports_per_hit):>7} "
           f"{_per(score.findings_per_problem):>8}")
    if with_cost:
        c = score.cost
        row += (f" {c.model_calls:>6} {c.input_tokens:>10} {c.output_tokens:>10} "
                f"{_dollars(c):>10}")
    return row


def render_text(corpus: Path, cases: int, model: str | None, rules: list[RuleScore],
                overall: RuleScore, outcomes: Sequence[CaseOutcome], details: bool) -> str:
    """The human-readable report."""
    how = f"model {one_line(model)} and deterministic rules" if model else \
        "deterministic rules only (no model)"
    header = (f"{'rule':<32} {'expected':>8} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} "
              f"{'recall':>7} {'F1':>6} {'reported':>8} {'per hit':>7} {'per prob':>8}")
    with_cost = model is not None
    if with_cost:
        header += f" {'calls':>6} {'in tokens':>10} {'out tokens':>10} {'cost':>10}"
    errors = [e for o in outcomes for e in o.errors]
    if errors:  # said first: these figures leave findings out
        how += (f" (INCOMPLETE: {len(errors)} item(s) could not be reviewed; the figures "
                "leave their findings out)")
    lines = [f"secreview bench: {cases} case(s) from {one_line(str(corpus))}, {how}", "",
             header, *(_row(r, with_cost) for r in rules), "-" * len(header),
             _row(overall, with_cost), ""]
    lines.append("reported: findings as the review listed them; per hit: reported findings per "
                 "problem found (1.00 = no duplicates); per prob: reported findings per "
                 "labelled problem")
    c = overall.cost
    failed = f" ({c.failed_calls} failed before reaching the model)" if c.failed_calls else ""
    lines.append(f"cost: {c.model_calls} model call(s){failed}, {c.input_tokens} input tokens, "
                 f"{c.output_tokens} output tokens, {_dollars(c)}")
    if errors:
        lines.append(f"{len(errors)} item(s) could not be reviewed (their findings are "
                     "missing from the figures):")
        lines.extend(f"  {one_line(e)}" for e in errors)
    if details:
        for o in outcomes:
            for e, n in zip(o.tp, o.reports, strict=True):
                if n > 1:
                    lines.append(f"  {n} times  {o.case_id}: {e.rule} {e.path}:{e.lines[0]}-"
                                 f"{e.lines[1]}")
            for e in o.fn:
                lines.append(f"  missed   {o.case_id}: {one_line(e.rule)} {one_line(e.path)}:"
                             f"{e.lines[0]}-{e.lines[1]}")
            for f in o.fp:
                lines.append(f"  false +  {o.case_id}: {one_line(f.rule)} "
                             f"{one_line(f.path)}:{f.line}")
    return "\n".join(lines)


def _cost_json(cost: Cost) -> dict[str, Any]:
    return {"model_calls": cost.model_calls, "failed_calls": cost.failed_calls,
            "input_tokens": cost.input_tokens, "output_tokens": cost.output_tokens,
            "cost_usd": cost.cost_usd}


def _score_json(score: RuleScore) -> dict[str, Any]:
    return {"rule": score.rule, "expected": score.expected, "tp": score.tp, "fp": score.fp,
            "fn": score.fn, "precision": score.precision, "recall": score.recall,
            "f1": score.f1, "reported": score.reported, "matched": score.matched,
            "reports_per_hit": score.reports_per_hit,
            "findings_per_problem": score.findings_per_problem,
            "cost": _cost_json(score.cost)}


def render_json(corpus: Path, cases: int, model: str | None, rules: list[RuleScore],
                overall: RuleScore, outcomes: Sequence[CaseOutcome],
                min_f1: float | None, passed: bool | None) -> str:
    """The machine-readable report (keys documented in benchmarks/corpus/README.md)."""
    return json.dumps({
        "corpus": str(corpus), "cases": cases, "model": model,
        "rules": [_score_json(r) for r in rules], "overall": _score_json(overall),
        "cost": _cost_json(overall.cost),
        "results": [{
            "id": o.case_id,
            "tp": [{"rule": e.rule, "path": e.path, "lines": list(e.lines), "cwe": e.cwe,
                    "reports": n} for e, n in zip(o.tp, o.reports, strict=True)],
            "fn": [{"rule": e.rule, "path": e.path, "lines": list(e.lines), "cwe": e.cwe}
                   for e in o.fn],
            "fp": [{"rule": f.rule, "cwe": f.cwe, "path": f.path, "line": f.line}
                   for f in o.fp],
            "errors": list(o.errors), "reported": o.reported,
            "findings_per_problem": (o.reported / (len(o.tp) + len(o.fn))
                                     if o.tp or o.fn else None),
        } for o in outcomes],
        "complete": not unreviewed(outcomes), "min_f1": min_f1, "passed": passed,
    }, indent=2)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``secreview bench``; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.min_f1 is not None and not 0.0 <= args.min_f1 <= 1.0:
        return _bad(f"--min-f1 {args.min_f1}: must be between 0 and 1, e.g. --min-f1 0.8")
    if args.model is not None and args.model.strip().lower() in {"", "none"}:
        args.model = None  # as --secreview-model none: deterministic rules only
    rules = _rule_entries(args)
    if isinstance(rules, str):
        return _bad(rules)
    corpus = args.corpus if args.corpus is not None else SHIPPED_CORPUS
    try:
        cases = _select(load_corpus(corpus), args.case)
    except CorpusError as exc:
        return _bad(str(exc))
    if not cases:
        return _bad(f"no case id in {corpus} matches --case {' '.join(args.case)}; the "
                    "globs match case ids (case.yaml 'id' or the directory name)")
    if args.keep is not None and args.keep.exists():
        return _bad(f"--keep {args.keep}: already exists; name a new directory")
    only = frozenset(args.rule) if args.rule else None
    try:
        if only is not None:
            # Checked before any review runs: a typo must not cost a model bill first.
            known = _rule_ids(rules) | {e.rule for c in cases for e in c.expect}
            unknown = sorted(only - known)
            if unknown:
                return _bad(f"--rule {', '.join(unknown)}: no loaded rule nor expected "
                            f"finding has this id; known ids: {', '.join(sorted(known))}")
        outcomes = run_bench(cases, rules, args.model, args.api_base, only,
                             args.keep)
    except SecreviewError as exc:
        return _bad(str(exc))
    scores, overall = score_rules(outcomes)
    passed = None
    if args.min_f1 is not None:
        # Items that could not be reviewed make the figures a partial measurement: a bar
        # cannot be cleared with findings missing (an unreachable model scores nothing).
        passed = (not unreviewed(outcomes) and overall.f1 is not None
                  and overall.f1 >= args.min_f1)
    if args.json:
        print(render_json(corpus, len(cases), args.model, scores, overall, outcomes,
                          args.min_f1, passed))
    else:
        print(render_text(corpus, len(cases), args.model, scores, overall, outcomes,
                          args.details))
        if passed is False and unreviewed(outcomes):
            print(f"--min-f1 {args.min_f1} fails: {unreviewed(outcomes)} item(s) could not be "
                  "reviewed, so the figures are not a measurement of the whole review; fix "
                  "the cause listed above and run again")
        elif passed is False:
            print(f"overall F1 {_f1(overall.f1)} is below --min-f1 {args.min_f1}")
    return 1 if passed is False else 0



if __name__ == "__main__":
    raise SystemExit(main())
