"""Detection on the labelled corpus: the deterministic layer against Bandit, in one run.

For every case of ``benchmarks/corpus/taint`` (format: ``benchmarks/corpus/README.md``) this
builds a real git repository (a base commit from ``base/`` or an empty one, a head commit from
``head/``), runs the product's deterministic review of the range
(``pytest_secreview.evaluation.offline.review_range``, bundled rules, no model) and Bandit on
the same head files, and scores both per case. It prints per category the cases, TPR, FPR and
TPR - FPR of each, and the means over categories; then the time of both on one pull request
holding every case's head files (the same files for both), as a ratio.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/bench_detection.py [--category sql] [--json] [--misses] [--record]
    .venv/bin/python benchmarks/bench_detection.py --breadth [--json] [--misses] [--record]

``--record`` writes the figures into BENCHMARKS.md. Bandit findings count for a category only
through the test ids of ``BANDIT_CATEGORY`` below.

``--breadth`` measures the breadth corpus (``benchmarks/corpus/breadth/<class>/``: unsafe YAML
loaders, weak hashes, ``random`` for secrets, cookie flags, XML entities, Jinja autoescape,
tar extraction, SSH host keys, ``mktemp``, world-writable modes, ECB, ``assert`` for
authorisation) instead: per class, recall and false-positive rate of ours and of Bandit (its
tests mapped by ``BANDIT_CLASS``). A class is scored against the rule and CWE its vulnerable
cases expect; a safe twin is a false positive when that rule (or CWE) reports anywhere in it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_section

from pytest_secreview.bench import (
    CATEGORIES,
    Case,
    CaseResult,
    CategoryScore,
    Reported,
    load_corpus,
    score_case,
    summarise,
)
from pytest_secreview.evaluation.offline import review_range

CORPUS = Path(__file__).resolve().parent / "corpus" / "taint"

# Bandit test id -> corpus category, only where the test is about that class of flaw (its
# message names it). Generous on purpose, as a reference should be: sink-only checks count
# (B113 flags any requests call without a timeout, B310 any urlopen), and so do import-level
# checks the category implies (B403 pickle, B405-B410 XML parsers), which can only add false
# positives on safe twins since the import line is never a sink. Categories Bandit has no test
# for (redirect, ldap, xpath, trust-boundary) score 0 / 0.
BANDIT_CATEGORY: dict[str, str] = {
    "B608": "sql", "B610": "sql", "B611": "sql",
    "B602": "command", "B604": "command", "B605": "command", "B606": "command",
    "B607": "command", "B609": "command",
    "B102": "code", "B307": "code",
    "B202": "path",
    "B113": "ssrf", "B310": "ssrf",
    "B308": "xss", "B701": "xss", "B702": "xss", "B703": "xss", "B704": "xss",
    "B301": "deserialization", "B302": "deserialization", "B403": "deserialization",
    "B506": "deserialization",
    **{f"B3{n}": "xxe" for n in range(13, 21)},
    **{f"B4{n:02d}": "xxe" for n in range(5, 11)},
}

# Bandit test id -> breadth class (benchmarks/corpus/breadth/<class>), on the same generous
# terms: import-level checks (B406 xml.sax, B410 lxml) count. Bandit has no cookie test.
BANDIT_CLASS: dict[str, str] = {
    "B506": "unsafe-yaml",
    "B303": "weak-hash", "B324": "weak-hash",
    "B311": "insecure-random",
    "B317": "xml-entities", "B320": "xml-entities", "B406": "xml-entities", "B410": "xml-entities",
    "B701": "jinja-autoescape",
    "B202": "tar-extract",
    "B507": "ssh-host-key",
    "B306": "temp-file",
    "B103": "world-writable",
    "B304": "ecb-mode", "B305": "ecb-mode",
    "B101": "assert-authz",
}

BREADTH = Path(__file__).resolve().parent / "corpus" / "breadth"

#: What a finding must carry to count for a category or class: (rule, CWE).
Target = tuple[str, str]

_GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
            "GIT_CONFIG_NOSYSTEM": "1"}


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, **_GIT_ENV, "HOME": str(repo.parent)}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _write_tree(repo: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def build_repo(repo: Path, trees: Iterable[tuple[str, Case]]) -> None:
    """A repository on ``main`` with each case's base files (under its prefix) and a ``pr``
    branch whose head commit holds exactly each case's head files."""
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "commit.gpgsign", "false")
    trees = list(trees)
    for prefix, case in trees:
        _write_tree(repo, {prefix + p: d for p, d in case.files("base").items()})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    _git(repo, "rm", "-rq", "--ignore-unmatch", ".")
    for prefix, case in trees:
        _write_tree(repo, {prefix + p: d for p, d in case.files("head").items()})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "pull request")


def ours(repo: Path) -> list[Reported]:
    """The deterministic layer's findings on main..pr (bundled rules: no rule path given),
    without the bundled scanner rules: they run Bandit itself, which would then count (and
    be timed) on both sides."""
    review = review_range(repo, "main", "pr", use_scanners=False)
    return [Reported(f.rule, f.cwe, f.path, f.line) for f in review.findings]


def bandit(paths: Sequence[Path], root: Path,
           targets: Mapping[str, Target] | None = None) -> tuple[list[Reported], int]:
    """Bandit's findings on ``paths``, mapped to a rule and CWE through ``targets`` (test id
    -> target; default: :data:`BANDIT_CATEGORY`; others drop), and how many files it skipped
    (it parses with this interpreter's ``ast``)."""
    if targets is None:
        targets = {test: (CATEGORIES[name].rule, CATEGORIES[name].cwe)
                   for test, name in BANDIT_CATEGORY.items()}
    from bandit.core import config as bandit_config
    from bandit.core import manager as bandit_manager

    manager = bandit_manager.BanditManager(bandit_config.BanditConfig(), "file", quiet=True)
    manager.discover_files([str(p) for p in paths], recursive=False)
    manager.run_tests()
    found = []
    for issue in manager.get_issue_list():
        target = targets.get(issue.test_id)
        if target is None:
            continue
        rel = Path(issue.fname).resolve().relative_to(root.resolve()).as_posix()
        found.append(Reported(target[0], target[1], rel, issue.lineno))
    return found, len(manager.skipped)


@dataclass(frozen=True)
class Outcome:
    """Both reviewers' verdicts on every case, and their total time."""

    ours: list[CaseResult]
    bandit: list[CaseResult]
    ours_seconds: float
    bandit_seconds: float


def _py_files(repo: Path, case: Case, prefix: str = "") -> list[Path]:
    return [repo / (prefix + p) for p in case.files("head") if p.endswith(".py")]


Scorer = Callable[[Case, list[Reported]], CaseResult]


def run_cases(cases: Sequence[Case], work: Path, score: Scorer = score_case,
              bandit_targets: Mapping[str, Target] | None = None) -> Outcome:
    """One repository per case; both reviewers on it; per-case verdicts by ``score``."""
    mine: list[CaseResult] = []
    theirs: list[CaseResult] = []
    ours_total = bandit_total = 0.0
    for index, case in enumerate(cases):
        repo = work / f"case{index}"
        build_repo(repo, [("", case)])
        start = time.perf_counter()
        mine.append(score(case, ours(repo)))
        ours_total += time.perf_counter() - start
        start = time.perf_counter()
        found = bandit(_py_files(repo, case), repo, bandit_targets)[0]
        theirs.append(score(case, found))
        bandit_total += time.perf_counter() - start
    return Outcome(mine, theirs, ours_total, bandit_total)


def breadth_class(case: Case) -> str:
    """A breadth case's class: the directory it sits in (``breadth/<class>/<case>``)."""
    return case.directory.parent.name


def class_targets(cases: Sequence[Case]) -> dict[str, Target]:
    """Each class's rule and CWE, from what its vulnerable cases expect (one per class: a
    class whose cases disagree is an error naming them)."""
    targets: dict[str, Target] = {}
    for case in cases:
        for expected in case.expect:
            name = breadth_class(case)
            target = (expected.rule, expected.cwe)
            if targets.setdefault(name, target) != target:
                raise SystemExit(f"{case.directory}: class {name!r} expects {target}, other "
                                 f"cases of it {targets[name]}: one rule and CWE per class")
    return targets


def breadth_scorer(targets: Mapping[str, Target]) -> Scorer:
    """Case-level scoring by class: a vulnerable case as :func:`score_case`; a safe twin is a
    false positive when its class's rule (or CWE) reports anywhere in it."""
    def score(case: Case, found: list[Reported]) -> CaseResult:
        name = breadth_class(case)
        if case.vulnerable:
            return dataclasses.replace(score_case(case, found), category=name)
        rule, cwe = targets[name]
        hit = any(f.rule == rule or (f.cwe or "").upper() == cwe for f in found)
        return CaseResult(case.id, name, False, hit)
    return score


def summarise_classes(results: Sequence[CaseResult]) -> tuple[list[CategoryScore],
                                                                CategoryScore]:
    """Per class (sorted) recall (TPR) and false-positive rate, and their means."""
    scores = []
    for name in sorted({r.category or "" for r in results}):
        mine = [r for r in results if r.category == name]
        vuln = [r for r in mine if r.vulnerable]
        safe = [r for r in mine if not r.vulnerable]
        scores.append(CategoryScore(name, len(mine),
                                    sum(r.hit for r in vuln) / len(vuln) if vuln else None,
                                    sum(r.hit for r in safe) / len(safe) if safe else None))
    tprs = [s.tpr for s in scores if s.tpr is not None]
    fprs = [s.fpr for s in scores if s.fpr is not None]
    return scores, CategoryScore("mean", len(results),
                                 sum(tprs) / len(tprs) if tprs else None,
                                 sum(fprs) / len(fprs) if fprs else None)


@dataclass(frozen=True)
class Timing:
    """Median seconds of both reviewers on one pull request, and what each could not read."""

    ours_seconds: float
    bandit_seconds: float
    files: int
    ours_not_reviewed: int
    bandit_skipped: int


def time_one_pr(cases: Sequence[Case], work: Path, repeat: int) -> Timing:
    """Both reviewers on ONE pull request holding every case's head files (each under its
    case id): median seconds of ``repeat`` runs each, interleaved."""
    repo = work / "all"
    trees = [(f"{c.category}/{c.id}/", c) for c in cases]
    build_repo(repo, trees)
    files = [f for prefix, c in trees for f in _py_files(repo, c, prefix)]
    ours_runs, bandit_runs = [], []
    skipped = not_reviewed = 0
    for _ in range(repeat):
        start = time.perf_counter()
        not_reviewed = len(review_range(repo, "main", "pr", use_scanners=False).not_reviewed)
        ours_runs.append(time.perf_counter() - start)
        start = time.perf_counter()
        skipped = bandit(files, repo)[1]
        bandit_runs.append(time.perf_counter() - start)
    return Timing(sorted(ours_runs)[repeat // 2], sorted(bandit_runs)[repeat // 2], len(files),
                  not_reviewed, skipped)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _pts(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f}"


def table(ours_scores: list[CategoryScore], bandit_scores: list[CategoryScore]) -> str:
    """A markdown table: one row per category and the mean row."""
    rows = ["| category | cases | ours TPR | ours FPR | ours TPR-FPR | Bandit TPR | Bandit FPR "
            "| Bandit TPR-FPR |", "|---|---|---|---|---|---|---|---|"]
    for a, b in zip(ours_scores, bandit_scores, strict=True):
        name = f"**{a.category}**" if a.category == "mean" else a.category
        rows.append(f"| {name} | {a.cases} | {_pct(a.tpr)} | {_pct(a.fpr)} | {_pts(a.score)} "
                    f"| {_pct(b.tpr)} | {_pct(b.fpr)} | {_pts(b.score)} |")
    return "\n".join(rows)


def misses(results: Sequence[CaseResult]) -> str:
    """The vulnerable cases not found and the safe cases flagged, one id per line."""
    missed = [r.case_id for r in results if r.vulnerable and not r.hit]
    flagged = [r.case_id for r in results if not r.vulnerable and r.hit]
    return "\n".join([f"missed ({len(missed)}):", *(f"  {i}" for i in missed),
                      f"false positives ({len(flagged)}):", *(f"  {i}" for i in flagged)])


def _score_json(score: CategoryScore) -> dict[str, Any]:
    return {"category": score.category, "cases": score.cases, "tpr": score.tpr,
            "fpr": score.fpr, "tpr_minus_fpr": score.score}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--category", choices=sorted(CATEGORIES), help="only this category")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--repeat", type=int, default=3, help="timing runs (median)")
    parser.add_argument("--record", action="store_true", help="write BENCHMARKS.md")
    parser.add_argument("--misses", action="store_true",
                        help="also list the cases ours got wrong (missed or falsely flagged)")
    parser.add_argument("--breadth", action="store_true",
                        help="measure the breadth corpus per class (default corpus: "
                             "benchmarks/corpus/breadth)")
    args = parser.parse_args(argv)
    logging.getLogger("bandit").setLevel(logging.ERROR)
    if args.breadth:
        return run_breadth(args.corpus if args.corpus != CORPUS else BREADTH, args.json,
                           args.misses, args.record)
    cases = [c for c in load_corpus(args.corpus)
             if args.category is None or c.category == args.category]
    if not cases:
        parser.error(f"no case of category {args.category!r} in {args.corpus}")
    with tempfile.TemporaryDirectory(prefix="secreview-bench-") as tmp:
        outcome = run_cases(cases, Path(tmp))
        timed = time_one_pr(cases, Path(tmp), args.repeat)
    ours_scores, ours_mean = summarise(outcome.ours)
    bandit_scores, bandit_mean = summarise(outcome.bandit)
    ratio = timed.ours_seconds / timed.bandit_seconds if timed.bandit_seconds else float("inf")
    if args.json:
        print(json.dumps({
            "corpus": str(args.corpus), "cases": len(cases),
            "ours": {"categories": [_score_json(s) for s in ours_scores],
                     "mean": _score_json(ours_mean)},
            "bandit": {"categories": [_score_json(s) for s in bandit_scores],
                       "mean": _score_json(bandit_mean)},
            "timing": {"one_pr_files": timed.files, "ours_seconds": timed.ours_seconds,
                       "bandit_seconds": timed.bandit_seconds, "ratio": ratio,
                       "ours_not_reviewed": timed.ours_not_reviewed,
                       "bandit_skipped": timed.bandit_skipped,
                       "per_case_ours_seconds": outcome.ours_seconds,
                       "per_case_bandit_seconds": outcome.bandit_seconds},
            "results": [{"id": a.case_id, "category": a.category, "vulnerable": a.vulnerable,
                         "ours_hit": a.hit, "bandit_hit": b.hit}
                        for a, b in zip(outcome.ours, outcome.bandit, strict=True)],
        }, indent=2))
    body = table([*ours_scores, ours_mean], [*bandit_scores, bandit_mean])
    timing = (f"One pull request holding every case's head files ({timed.files} Python files), "
              f"median of {args.repeat}: ours {timed.ours_seconds:.3f} s (git diff, rules, "
              f"deterministic layer), Bandit {timed.bandit_seconds:.3f} s (in-process API) - "
              f"ratio ours/Bandit **{ratio:.2f}x**. Files not analysed: ours "
              f"{timed.ours_not_reviewed}, Bandit {timed.bandit_skipped} (Bandit parses with "
              f"Python {sys.version_info.major}.{sys.version_info.minor}'s `ast`). Summed over "
              f"the per-case runs (a repository, a diff and the rule pack loaded per case): ours "
              f"{outcome.ours_seconds:.2f} s, Bandit {outcome.bandit_seconds:.2f} s.")
    if not args.json:
        print(body + "\n\n" + timing)
        if args.misses:
            print("\n" + misses(outcome.ours))
    if args.record:
        command = "`.venv/bin/python benchmarks/bench_detection.py" + (
            f" --category {args.category}" if args.category else "") + " --record`"
        write_section("detection", (
            "## Detection on the labelled corpus (ours vs Bandit)\n\n"
            f"{command} - {len(cases)} cases of `benchmarks/corpus/taint` (format and scoring: "
            "`benchmarks/corpus/README.md`), each a real git repository, reviewed by "
            "`review_range` with the bundled rules and no model; Bandit "
            f"{_bandit_version()} on the same head files, its test ids mapped to categories by "
            "`BANDIT_CATEGORY` in the script. TPR-FPR in points; means over categories.\n\n"
            f"{body}\n\n{timing}\n\n"
            "Reading it: every vulnerable case has a safe twin that differs by one sanitizer, "
            "guard or constant, so a check that flags a sink whatever flows into it scores TPR "
            "about equal to FPR (TPR-FPR near 0); only following the data earns points. A "
            "finding counts for a vulnerable case only at its sink lines: Bandit's B608 points "
            "where the SQL string is built, a line or two before the sink in some cases, and "
            "those score as misses. Categories Bandit has no test for score 0 for it.\n"))
    return 0


def class_table(ours_scores: list[CategoryScore], bandit_scores: list[CategoryScore],
                targets: Mapping[str, Target]) -> str:
    """A markdown table: one row per class (its rule, case count, recall and FPR of both)."""
    rows = ["| class | rule | cases | ours recall | ours FPR | Bandit recall | Bandit FPR |",
            "|---|---|---|---|---|---|---|"]
    for a, b in zip(ours_scores, bandit_scores, strict=True):
        name = f"**{a.category}**" if a.category == "mean" else a.category
        rule = f"`{targets[a.category][0]}`" if a.category in targets else ""
        rows.append(f"| {name} | {rule} | {a.cases} | {_pct(a.tpr)} | {_pct(a.fpr)} "
                    f"| {_pct(b.tpr)} | {_pct(b.fpr)} |")
    return "\n".join(rows)


def run_breadth(corpus: Path, as_json: bool, show_misses: bool, record: bool) -> int:
    """The ``--breadth`` run: every case of ``corpus`` reviewed by both, scored per class."""
    cases = load_corpus(corpus)
    targets = class_targets(cases)
    bandit_targets = {test: targets[name] for test, name in BANDIT_CLASS.items()
                      if name in targets}
    with tempfile.TemporaryDirectory(prefix="secreview-bench-") as tmp:
        outcome = run_cases(cases, Path(tmp), breadth_scorer(targets), bandit_targets)
    ours_scores, ours_mean = summarise_classes(outcome.ours)
    bandit_scores, bandit_mean = summarise_classes(outcome.bandit)
    if as_json:
        print(json.dumps({
            "corpus": str(corpus), "cases": len(cases),
            "ours": {"classes": [_score_json(s) for s in ours_scores],
                     "mean": _score_json(ours_mean)},
            "bandit": {"classes": [_score_json(s) for s in bandit_scores],
                       "mean": _score_json(bandit_mean)},
            "results": [{"id": a.case_id, "class": a.category, "vulnerable": a.vulnerable,
                         "ours_hit": a.hit, "bandit_hit": b.hit}
                        for a, b in zip(outcome.ours, outcome.bandit, strict=True)],
        }, indent=2))
    body = class_table([*ours_scores, ours_mean], [*bandit_scores, bandit_mean], targets)
    if not as_json:
        print(body)
        if show_misses:
            print("\n" + misses(outcome.ours))
    if record:
        write_section("detection-breadth", (
            "## Detection by class, no model (ours vs Bandit)\n\n"
            "`.venv/bin/python benchmarks/bench_detection.py --breadth --record` - "
            f"{len(cases)} cases of `benchmarks/corpus/breadth` (one directory per class, each "
            "vulnerable case with a safe twin that differs by the safe loader, the CSPRNG, the "
            "flag, the filter or the mode; written for this project), each a real git "
            "repository reviewed by `review_range` with the bundled rules and no model; Bandit "
            f"{_bandit_version()} on the same files, its tests mapped to classes by "
            "`BANDIT_CLASS`. Recall: vulnerable cases found at the labelled line by the "
            "class's rule (or CWE); FPR: safe twins on which that rule reports anything.\n\n"
            f"{body}\n\n"
            "Bandit has no test for cookie flags, and its import checks (B406 `xml.sax`, "
            "B410 `lxml`) fire on the safe twins too. Ours flags "
            "`tar-open-extractall-chain-safe` through the path-traversal flow from `sys.argv` "
            "into `tarfile.open` (a command-line tool opening the archive its user names), "
            "not through the extraction pattern.\n"))
    return 0


def _bandit_version() -> str:
    import bandit as bandit_package
    return str(getattr(bandit_package, "__version__", "?"))


if __name__ == "__main__":
    raise SystemExit(main())
