"""Coverage of the removed-safeguard and logic-flaw corpus (``tests/coverage_cases``).

For each case (a base/head pull request, built in a temporary git repository), reviews the
range with the bundled rule pack exactly as the plugin plans it, and checks that every
vulnerable diff line the case names is in a hunk that an item needing a model puts in front
of the model. Reports which rule delivered it, and the same with the specific rules alone
(without the general ``security-review`` rule). No model is called: what reaches the model is
decided before any call, and ``tests/test_coverage.py`` checks that the hunks are in the
requests a scripted model server receives.

    .venv/bin/python benchmarks/bench_coverage.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import write_section

from pytest_secreview.bench.coverage_cases import CoverageCase, load_cases, model_view, reached
from pytest_secreview.evaluation.offline import review_range
from pytest_secreview.rules.loader import bundled_rules_dir

ROOT = Path(__file__).resolve().parent.parent
_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com", "PATH": "/usr/bin:/bin"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=_ENV, check=True, capture_output=True)


def _build(repo: Path, case: CoverageCase) -> None:
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for rel, text in case.base.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    for rel in set(case.base) - set(case.head):
        (repo / rel).unlink()
    for rel, text in case.head.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pull request")


def main() -> int:
    cases = load_cases(ROOT / "tests" / "coverage_cases")
    specific = [str(p) for p in sorted(bundled_rules_dir().glob("*.md"))
                if p.name != "security-review.md"]
    rows = []
    full = alone = 0
    with tempfile.TemporaryDirectory(prefix="secreview-coverage-") as tmp:
        for case in cases:
            repo = Path(tmp) / case.name
            _build(repo, case)
            view = model_view(review_range(repo, "main", "pr"))
            rules = sorted({r for line in case.must_reach for r in reached(view, line)})
            ok = all(reached(view, line) for line in case.must_reach)
            narrow = model_view(review_range(repo, "main", "pr", rules=specific))
            ok_alone = all(reached(narrow, line) for line in case.must_reach)
            full += ok
            alone += ok_alone
            rows.append(f"| {case.name} | {'yes' if ok else '**no**'} | "
                        f"{', '.join(rules) or '-'} | {'yes' if ok_alone else 'no'} |")
    n = len(cases)
    body = f"""## Coverage of removed safeguards and logic flaws

`.venv/bin/python benchmarks/bench_coverage.py` — {n} pull requests of our own
(`tests/coverage_cases/`, {len({c.name.split('-')[0] for c in cases})} languages and formats),
each removing a safeguard or slipping in a logic flaw with no keyword a grep would catch.
A case counts when every vulnerable diff line it names is in a hunk that an item needing a
model sends to the model (bundled rule pack, as the plugin plans it).

| case | reaches the model | through | specific rules alone |
|---|---|---|---|
{chr(10).join(rows)}

Bundled pack: **{full}/{n} ({full / n:.0%})** of the cases put the vulnerable hunk in front of
the model (target 100%); the specific rules without `security-review`: {alone}/{n}
({alone / n:.0%}).
"""
    print(body)
    write_section("coverage", body)
    return 0 if full == n else 1


if __name__ == "__main__":
    sys.exit(main())
