"""``secreview report``: the report phase. It renders the evaluate phase's ``summary.json``
(``<artifacts>/phases/evaluate.json`` names it) into ``summary.md``, SARIF, GitHub Actions
annotations and the step summary, and JUnit from the evaluation's own JUnit file, exactly as
a whole review would have. It posts nothing (that is ``secreview comment``).

``secreview report --merge DIR...`` is its multi-shard form: fold the shards of a review
spread over several CI jobs into one JUnit file, one SARIF log, one
``summary.json``/``summary.md`` and exactly one PR comment, as a single run would have made
them. It counts only what it can check (:func:`..reporting.merge.bind_shards`): with
``SECREVIEW_RUN_KEY`` the reports of this run; without it none (each is an unreviewed item)
unless ``--trust-unbound-shards`` merges them unchecked, which every summary then says.

Exit status: 0 when every item passed or was skipped, 1 when any item failed or errored (so the
merge job can be the required check), 2 for bad input (a message says what to pass instead).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..diff.git import load_diff
from ..diff.model import Diff
from ..errors import ConfigError, SecreviewError
from ..github.context import pull_request_from_env
from ..options import Settings
from ..publish.outputs import deliver_rich, write_summary_json
from ..reporting.merge import (
    DURATIONS_NAME,
    TRUST_FLAG,
    bind_shards,
    find_shard_files,
    load_report,
    merge_junit,
    merge_reports,
    write_durations,
    write_junit,
)
from ..reporting.run_binding import run_key
from ..severity import one_line
from .flags import add_setting
from .phases import error_line


def parser() -> argparse.ArgumentParser:
    """The command's arguments; the settings it shares with the pytest run come from the
    option table (:mod:`.flags`)."""
    parser = argparse.ArgumentParser(
        prog="secreview report",
        description="Render the evaluate phase's results: summary.md, SARIF, JUnit, GitHub "
                    "Actions annotations. With --merge: merge the results of a review sharded "
                    "across CI jobs and publish them once, PR comment included.",
    )
    parser.add_argument("--merge", nargs="+", type=Path, metavar="DIR",
                        help="directories holding the shards' --secreview-report output and "
                             "JUnit files (searched recursively)")
    parser.add_argument("--shards", type=int, metavar="N",
                        help="with --merge: the number of shards the review was split into; "
                             "a shard without a report of this run is unreviewed (default: "
                             "the number the shards' bindings record)")
    # Merge-only, and not a setting of the pytest run: no option-table entry, no environment
    # variable (trusting unchecked reports is said on the command line, where it is seen).
    parser.add_argument(TRUST_FLAG, action="store_true",
                        help="with --merge and without SECREVIEW_RUN_KEY: merge the shard "
                             "reports unchecked, as if this run produced them (any report in "
                             "the directories counts, a forged one too; every summary says "
                             "so). Without it and without the key, each report is unreviewed. "
                             "No effect with the key: set SECREVIEW_RUN_KEY to the key the "
                             "shards ran with instead")
    # The review's --secreview-unreviewed (default warn) is about items it could not
    # evaluate; here it is about a whole shard that sent no report, which fails by default.
    add_setting(parser, "unreviewed", default="fail",
                help="with --merge: what a shard without a report of this run becomes "
                     "(default: fail; warn and skip make it skipped, never passed)")
    add_setting(parser, "artifacts",
                help="without --merge: the artifacts directory of the earlier phases "
                     "(default: SECREVIEW_ARTIFACTS or secreview-artifacts)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="where summary.md (and with --merge summary.json and "
                             "durations.json) are written (default: with --merge "
                             "secreview-report, else the evaluate phase's report directory)")
    parser.add_argument("--junitxml", type=Path, metavar="PATH",
                        help="write the merged JUnit file here")
    add_setting(parser, "sarif", help="write the merged SARIF 2.1.0 log here")
    parser.add_argument("--durations", type=Path, metavar="PATH",
                        help="also update this pytest-split durations file (history kept for "
                             "items this review did not run)")
    add_setting(parser, "comment", help="with --merge: what to post on the pull request "
                "(default: summary when a token and a PR are known)")
    add_setting(parser, "pr", help="pull request number (default: from the GitHub Actions "
                "event)")
    add_setting(parser, "repo", help="repository (default: GITHUB_REPOSITORY)")
    add_setting(parser, "dry-run", help="write the GitHub requests under --out instead of "
                "sending them")
    return parser


def _local_diff(base_sha: str, head_sha: str) -> Diff | None:
    """The reviewed range, when the merge job runs in a checkout that has it: inline comments
    are only placed on lines of the diff."""
    try:
        return load_diff(Path.cwd(), base_sha, head_sha)
    except SecreviewError:
        return None


def merge(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[int, list[str]]:
    """Do the merge; return the exit status and the lines to print."""
    if args.shards is not None and not 1 <= args.shards <= 1000:
        raise ConfigError(f"--shards {args.shards}: pass the number of shards the review was "
                          "split into (1 or more)")
    try:
        key = run_key(env)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    found = find_shard_files(args.merge)
    files = bind_shards(found, key, env, shards=args.shards,
                        trust_unbound=args.trust_unbound_shards)
    report = merge_reports([load_report(p) for p in files.summaries],
                           [*files.summaries, *files.unchecked], files.unreviewed,
                           unreviewed_policy=args.unreviewed,
                           unchecked=[load_report(p) for p in files.unchecked],
                           kind=files.kind)
    out: Path = args.out or Path("secreview-report")
    write_summary_json(report, out)
    lines = [*files.lines,
             f"merged {len(files.summaries)} shard report(s): {len(report.items)} item(s), "
             + ", ".join(f"{n} {k}" for k, n in report.outcomes.items())]
    if args.durations is not None:
        write_durations(report, args.durations, args.durations)
    if args.junitxml is not None:
        if not files.junit:
            lines.append("no JUnit files found in the shard directories; --junitxml not written")
        else:
            write_junit(merge_junit(files.junit), args.junitxml)
            lines.append(f"JUnit: {args.junitxml} ({len(files.junit)} file(s) merged)")
    settings = Settings(enabled=True, sarif=args.sarif, comment=args.comment, pr=args.pr,
                        repo=args.repo, dry_run=args.dry_run, artifacts=out)
    pr = pull_request_from_env(env, number=args.pr, repository=args.repo)
    # Nothing merged, nothing to place on a line: the range then comes from unchecked files.
    diff = _local_diff(report.base_sha, report.head_sha) if files.summaries else None
    deliver_rich(report, settings=settings, invocation=Path.cwd(), diff=diff, pr=pr,
                 report_dir=out, env=env, lines=lines)
    lines.append(f"report: {out / 'summary.json'} (durations: {out / DURATIONS_NAME})")
    broken = report.outcomes.get("failed", 0) + report.outcomes.get("error", 0)
    return (1 if broken else 0), lines


def render(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[int, list[str]]:
    """The report phase on ``--artifacts``; return the exit status and the lines to print."""
    from ..phases.publish import publish_stored
    from ..phases.store import JUNIT, PhaseError, phase_dir
    from .phases import artifacts_dir, stored_settings

    if args.comment is not None or args.dry_run or args.durations is not None:
        raise PhaseError("--comment, --dry-run and --durations go with --merge; the report "
                         "phase posts nothing: run `secreview comment` to post")
    if args.shards is not None or args.trust_unbound_shards:
        raise PhaseError(f"--shards and {TRUST_FLAG} go with --merge DIR...: the report phase "
                         "renders one review's stored results")
    root: Path = args.artifacts or artifacts_dir([], env)
    junit = phase_dir(root) / JUNIT
    if args.junitxml is not None and not junit.is_file():
        raise PhaseError(f"--junitxml needs {junit}, which `secreview evaluate` writes when "
                         "given no --junitxml of its own: run `secreview evaluate` first")
    settings = stored_settings(env, root=root, pr=args.pr, repo=args.repo, sarif=args.sarif)
    lines: list[str] = []
    status = publish_stored(root, settings=settings, invocation=Path.cwd(), stages=("report",),
                            lines=lines, needed_by="secreview report", env=env,
                            report_dir=args.out)
    if args.junitxml is not None:
        write_junit(merge_junit([junit]), args.junitxml)
        lines.append(f"JUnit: {args.junitxml}")
    return status, lines


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Entry point of ``secreview report``."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        run = merge if args.merge else render
        status, lines = run(args, os.environ if env is None else env)
    except (SecreviewError, OSError) as exc:
        print(error_line("secreview report", exc), file=sys.stderr)
        return 2
    for line in lines:
        print(one_line(line))
    return status
