"""Precision of the deterministic layer on real code: consecutive releases of real projects.

Every pull request of ``benchmarks/real_code/prs.toml`` is two consecutive releases of one
project, as source distributions from PyPI. This downloads both (once: they are cached under
``--cache``), builds a real git repository (release N committed on ``main``, release N+1 on
the branch ``pr``; the top-level ``name-version/`` directory stripped, ``PKG-INFO`` and
``*.egg-info/`` left out), runs the no-model review of the range
(``pytest_secreview.evaluation.offline.review_range``: bundled rules, taint engine, scanner
rules) and compares every finding with its hand-made verdict in
``benchmarks/real_code/labels.json``.

    .venv/bin/python benchmarks/bench_real_code.py [--offline] [--cache DIR] [--only flask]
        [--context 3] [--json] [--record] [--no-scanners]

It prints the findings of each pull request, precision overall, per severity and per rule,
findings per 1,000 added lines, and every UNLABELLED finding with a few lines of the head
release around it, to be judged. ``--offline`` never downloads: a release missing from the
cache is an error. The exit status is 1 only on errors (a download, an unpack, a review), not
on the figures. ``--record`` writes the figures into BENCHMARKS.md.

A label is keyed by :func:`identity`: project, versions, rule, path and the finding's
``fingerprint`` (rule, path and the whitespace-normalised text of the flagged line, with an
occurrence number for identical lines): it survives re-runs and does not hold the line's text.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_section

HERE = Path(__file__).resolve().parent / "real_code"
MANIFEST = HERE / "prs.toml"
LABELS = HERE / "labels.json"
DEFAULT_CACHE = Path.home() / ".cache" / "secreview-real-code"
KINDS = ("web app", "framework", "library", "CLI", "async service")
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO")
# A pull request adding more lines than this is not reviewed (and says so): nobody reads it.
MAX_ADDED = 30_000


@dataclass(frozen=True)
class PullRequest:
    """Two consecutive releases of one project."""

    project: str
    base: str
    head: str
    kind: str

    @property
    def name(self) -> str:
        return f"{self.project} {self.base}..{self.head}"


@dataclass(frozen=True)
class Seen:
    """One finding as the benchmark keeps it."""

    pr: str
    rule: str
    severity: str
    path: str
    line: int
    fingerprint: str
    title: str

    @property
    def key(self) -> str:
        return identity(self.pr, self.rule, self.path, self.fingerprint)


@dataclass
class Score:
    """Judged findings of one group: true, false and unlabelled counts."""

    true: int = 0
    false: int = 0
    unlabelled: int = 0

    @property
    def judged(self) -> int:
        return self.true + self.false

    @property
    def precision(self) -> float | None:
        return self.true / self.judged if self.judged else None

    def text(self) -> str:
        p = self.precision
        share = "n/a" if p is None else f"{100 * p:.0f}%"
        extra = f", {self.unlabelled} unlabelled" if self.unlabelled else ""
        return f"{share} ({self.true}/{self.judged}{extra})"


@dataclass
class Report:
    """The figures of one run."""

    prs: int = 0
    added: int = 0
    overall: Score = field(default_factory=Score)
    severity: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    rule: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    per_pr: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    unlabelled: list[Seen] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # labels no finding matched

    @property
    def per_kloc(self) -> float:
        return 1000 * (self.overall.judged + self.overall.unlabelled) / self.added \
            if self.added else 0.0


def identity(pr: str, rule: str, path: str, fingerprint: str) -> str:
    """The label key of a finding: stable across re-runs and line shifts."""
    return f"{pr}|{rule}|{path}|{fingerprint}"


def load_manifest(path: Path = MANIFEST) -> list[PullRequest]:
    """The pull requests of the corpus."""
    data = tomllib.loads(path.read_text())
    prs = [PullRequest(p["project"], p["base"], p["head"], p["kind"]) for p in data["pr"]]
    for pr in prs:
        if pr.kind not in KINDS:
            raise ValueError(f"{pr.name}: kind {pr.kind!r} is not one of {KINDS}")
    return prs


def load_labels(path: Path = LABELS) -> dict[str, dict[str, str]]:
    """Identity -> {"verdict": "true"|"false", "why": ...}."""
    if not path.exists():
        return {}
    labels: dict[str, dict[str, str]] = json.loads(path.read_text())
    for key, label in labels.items():
        if label.get("verdict") not in ("true", "false") or not label.get("why"):
            raise ValueError(f"label {key}: needs verdict true|false and a why")
    return labels


def score(findings: Sequence[Seen], labels: Mapping[str, Mapping[str, str]],
          added: int, prs: Iterable[str]) -> Report:
    """Every finding against its label: the report's arithmetic."""
    report = Report(added=added)
    names = set(prs)
    report.prs = len(names)
    keys = set()
    for f in findings:
        keys.add(f.key)
        label = labels.get(f.key)
        for group in (report.overall, report.severity[f.severity], report.rule[f.rule],
                      report.per_pr[f.pr]):
            if label is None:
                group.unlabelled += 1
            elif label["verdict"] == "true":
                group.true += 1
            else:
                group.false += 1
        if label is None:
            report.unlabelled.append(f)
    report.stale = sorted(k for k in labels if k not in keys and k.split("|")[0] in names)
    return report


# -- building a pull request -------------------------------------------------------------

def sdist(pr: PullRequest, version: str, cache: Path, offline: bool) -> Path:
    """The cached source distribution of ``pr.project`` ``version`` (downloaded unless
    ``offline``)."""
    folder = cache / pr.project / version
    found = sorted(p for p in folder.glob("*") if p.suffix in (".gz", ".zip", ".bz2"))
    if found:
        return found[0]
    if offline:
        raise RuntimeError(f"{pr.project} {version} is not in {folder} and --offline is set")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         f"{pr.project}=={version}", "-d", str(folder)],
        capture_output=True, text=True, check=False)
    found = sorted(p for p in folder.glob("*") if p.suffix in (".gz", ".zip", ".bz2"))
    if done.returncode or not found:
        raise RuntimeError(f"pip download {pr.project}=={version}: "
                           f"{(done.stderr or done.stdout).strip()[-400:]}")
    return found[0]


def _noise(parts: Sequence[str]) -> bool:
    return (not parts or parts == ["PKG-INFO"]
            or any(p.endswith(".egg-info") or p == ".git" for p in parts))


def unpack(archive: Path) -> dict[str, bytes]:
    """Relative path -> content of the regular files of ``archive``, its top directory
    stripped, packaging metadata left out."""
    files: dict[str, bytes] = {}
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                parts = info.filename.split("/")[1:]
                if not info.is_dir() and not _noise(parts):
                    files["/".join(parts)] = z.read(info)
        return files
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")[1:]
            if member.isfile() and not _noise(parts) and ".." not in parts:
                handle = tar.extractfile(member)
                if handle is not None:
                    files["/".join(parts)] = handle.read()
    return files


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


def _commit(repo: Path, files: Mapping[str, bytes], message: str) -> None:
    for rel, data in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)


def build(pr: PullRequest, repo: Path, cache: Path, offline: bool) -> int:
    """The repository of ``pr`` under ``repo``; returns the number of added lines."""
    base = unpack(sdist(pr, pr.base, cache, offline))
    head = unpack(sdist(pr, pr.head, cache, offline))
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for key, value in (("commit.gpgsign", "false"), ("user.name", "bench"),
                       ("user.email", "bench@example.invalid"), ("core.autocrlf", "false")):
        _git(repo, "config", key, value)
    _commit(repo, base, f"{pr.project} {pr.base}")
    _git(repo, "checkout", "-q", "-b", "pr")
    _git(repo, "rm", "-rq", "--ignore-unmatch", ".")
    _commit(repo, head, f"{pr.project} {pr.head}")
    stat = _git(repo, "diff", "--numstat", "main", "pr")
    return sum(int(a) for a, _, _ in (row.split("\t", 2) for row in stat.splitlines())
               if a.isdigit())


def review(pr: PullRequest, repo: Path, scanners: bool) -> list[Seen]:
    """The no-model findings of ``main..pr`` (suppressed ones left out)."""
    from pytest_secreview.evaluation.offline import review_range

    result = review_range(repo, "main", "pr", use_scanners=scanners)
    return [Seen(pr.name, f.rule, f.severity.value.upper(), f.path, f.line, f.fingerprint,
                 f.title)
            for f in result.findings if f.suppression is None]


def context(repo: Path, seen: Seen, lines: int) -> str:
    """``lines`` lines of the head release either side of the finding."""
    try:
        text = _git(repo, "show", f"pr:{seen.path}").splitlines()
    except subprocess.CalledProcessError:
        return ""
    low, high = max(seen.line - 1 - lines, 0), min(seen.line + lines, len(text))
    return "\n".join(f"    {'>' if n + 1 == seen.line else ' '}{n + 1:5} {text[n][:160]}"
                     for n in range(low, high))


# -- output ------------------------------------------------------------------------------

def render(report: Report, worst: int = 12) -> str:
    """The figures as markdown."""
    out = [f"- pull requests: {report.prs}; added lines: {report.added:,}; findings: "
           f"{report.overall.judged + report.overall.unlabelled} "
           f"(**{report.per_kloc:.2f} per 1,000 added lines**)",
           f"- precision overall: **{report.overall.text()}**"]
    for sev in SEVERITIES:
        if sev in report.severity:
            out.append(f"- {sev}: {report.severity[sev].text()}")
    out += ["", "| rule | findings | true | false | precision |", "|---|---|---|---|---|"]
    rows = sorted(report.rule.items(), key=lambda kv: (-kv[1].false, kv[0]))
    for rule, s in rows[:worst]:
        total = s.judged + s.unlabelled
        out.append(f"| `{rule}` | {total} | {s.true} | {s.false} | {s.text().split(' ')[0]} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Build, review and score every pull request of the manifest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--offline", action="store_true", help="never download")
    parser.add_argument("--only", action="append", default=[], help="project (repeatable)")
    parser.add_argument("--context", type=int, default=3, help="lines around unlabelled")
    parser.add_argument("--no-scanners", action="store_true", help="leave out scanner rules")
    parser.add_argument("--json", type=Path, help="write every finding here (for labelling)")
    parser.add_argument("--record", action="store_true", help="write BENCHMARKS.md")
    args = parser.parse_args(argv)
    prs = [p for p in load_manifest() if not args.only or p.project in args.only]
    labels = load_labels()
    errors: list[str] = []
    findings: list[Seen] = []
    contexts: dict[str, str] = {}
    added = 0
    reviewed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="secreview-real-") as tmp:
        for number, pr in enumerate(prs):
            repo = Path(tmp) / f"pr{number}"
            try:
                lines = build(pr, repo, args.cache, args.offline)
                if lines > MAX_ADDED:
                    print(f"{pr.name}: SKIPPED, {lines} added lines (cap {MAX_ADDED})")
                    continue
                found = review(pr, repo, not args.no_scanners)
            except (RuntimeError, OSError, subprocess.CalledProcessError,
                    tarfile.TarError, zipfile.BadZipFile) as exc:
                errors.append(f"{pr.name}: {exc}")
                print(f"{pr.name}: ERROR {exc}")
                continue
            except Exception as exc:  # a review that fails is reported, not fatal
                errors.append(f"{pr.name}: {type(exc).__name__}: {exc}")
                print(f"{pr.name}: ERROR {type(exc).__name__}: {exc}")
                continue
            added += lines
            reviewed.append(pr.name)
            findings += found
            sev = Counter(f.severity for f in found)
            print(f"{pr.name} [{pr.kind}]: {lines} added lines, {len(found)} findings "
                  + " ".join(f"{s}={sev[s]}" for s in SEVERITIES if sev[s]))
            for f in found:
                if f.key not in labels or args.json:
                    contexts[f.key] = context(repo, f, args.context)
    report = score(findings, labels, added, reviewed)
    print()
    print(render(report, worst=40))
    if report.unlabelled:
        print(f"\nUNLABELLED ({len(report.unlabelled)}): judge them in {LABELS}")
        for f in report.unlabelled:
            print(f"\n  {f.key}\n  {f.severity} {f.rule} {f.path}:{f.line} {f.title}")
            print(contexts.get(f.key, ""))
    if report.stale:
        print(f"\nlabels no finding matched ({len(report.stale)}):")
        for key in report.stale:
            print(f"  {key}")
    if args.json:
        args.json.write_text(json.dumps(
            [{"key": f.key, "severity": f.severity, "rule": f.rule, "where": f"{f.path}:{f.line}",
              "title": f.title, "context": contexts.get(f.key, ""),
              "label": labels.get(f.key)} for f in findings], indent=1))
    if args.record and not args.only:
        date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        write_section("real-code", _section(date, report, errors))
    if errors:
        print("\nERRORS:\n  " + "\n  ".join(errors))
    return 1 if errors else 0


def _section(date: str, report: Report, errors: Sequence[str]) -> str:
    head = ("## Real code: precision of the no-model layer\n\n"
            f"`.venv/bin/python benchmarks/bench_real_code.py --record` — {date}; the pull "
            "requests of `benchmarks/real_code/prs.toml` (consecutive PyPI releases), every "
            "finding judged by hand in `benchmarks/real_code/labels.json`.\n")
    tail = f"\nErrors: {'; '.join(errors)}\n" if errors else ""
    return head + "\n" + render(report) + "\n" + tail


if __name__ == "__main__":
    raise SystemExit(main())
