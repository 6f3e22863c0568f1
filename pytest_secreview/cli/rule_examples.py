"""``secreview test-rules [PATH ...]``: check that each rule's deterministic part finds every
``bad`` example of its frontmatter and none of the ``good`` ones (like ``semgrep --test``).

PATH is a rule file or a directory of rule ``.md`` files, or ``:bundled`` (the default).
Exit status: 0 when every checked rule passed, 1 when a rule failed or does not parse, 2 on
bad usage. A rule with no deterministic part is listed as skipped, never as passed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..bench.examples import RuleOutcome, check_rules
from ..errors import RuleError, SecreviewError
from ..rules.loader import BUNDLED, find_rule_files
from ..rules.model import Rule
from ..rules.parse import parse_rules
from ..severity import one_line

#: Characters of an example's code shown when it fails.
_SHOWN = 100


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="secreview test-rules",
        description="Check each rule's examples: its detect patterns, taint section or "
                    "scanner must find every bad example and none of the good ones.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help=f"a rule file or a directory of rule .md files, or {BUNDLED} "
                             f"(default: {BUNDLED}, the bundled rule pack)")
    parser.add_argument("--rule", action="append", metavar="ID",
                        help="check only the rule with this id; repeatable")
    return parser


def _code(text: str) -> str:
    line = one_line(text.strip())
    return line if len(line) <= _SHOWN else line[: _SHOWN - 1] + "…"


def render(outcome: RuleOutcome) -> list[str]:
    """The report lines of one rule: its status, then each problem or wrong example."""
    rule = outcome.rule
    head = f"{outcome.status.upper():7}  {rule.id}  ({one_line(rule.source)})"
    if outcome.skipped is not None:
        return [f"{head}: {one_line(outcome.skipped)}"]
    if outcome.status == "passed":
        bad = sum(1 for o in outcome.outcomes if o.example.bad)
        good = len(outcome.outcomes) - bad
        return [f"{head}: {bad} bad example(s) found, {good} good example(s) clean"]
    lines = [head]
    lines += [f"    {one_line(problem)}" for problem in outcome.problems]
    for result in outcome.outcomes:
        if result.ok:
            continue
        where = f"{result.label} ({one_line(result.example.path)})"
        if result.example.bad:
            lines.append(f"    {where} not found: {_code(result.example.code)}")
        else:
            lines.append(f"    {where} reported, it should not be: "
                         + "; ".join(result.found) + f"  <- {_code(result.example.code)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``secreview test-rules``; returns the exit status."""
    args = _parser().parse_args(argv)
    cwd = Path.cwd()
    try:
        # Read from disk as given (rules_from "head"): the files under test are the author's.
        files = find_rule_files(args.paths or [BUNDLED], cwd, "head", "", cwd)
    except SecreviewError as exc:
        print(f"secreview test-rules: {exc}", file=sys.stderr)
        return 2
    parsed = parse_rules(files.sources)
    broken = [error for _, error in parsed if isinstance(error, RuleError)]
    rules = [rule for _, rule in parsed if isinstance(rule, Rule)]
    if args.rule:
        unknown = sorted(set(args.rule) - {rule.id for rule in rules})
        if unknown:
            print(f"secreview test-rules: --rule {', '.join(unknown)}: no rule has this id; "
                  f"known ids: {', '.join(sorted(r.id for r in rules))}", file=sys.stderr)
            return 2
        rules = [rule for rule in rules if rule.id in args.rule]
    for error in broken:
        print(f"INVALID  {one_line(error.path)}: {error}")

    def report(outcome: RuleOutcome) -> None:
        print("\n".join(render(outcome)), flush=True)

    outcomes = check_rules(rules, progress=report)
    counts = {status: sum(1 for o in outcomes if o.status == status)
              for status in ("passed", "failed", "skipped")}
    print(f"{len(outcomes) + len(broken)} rule(s): {counts['passed']} passed, "
          f"{counts['failed']} failed, {counts['skipped']} skipped (not checked)"
          + (f", {len(broken)} invalid" if broken else ""))
    return 1 if counts["failed"] or broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
