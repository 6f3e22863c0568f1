"""Collection on a synthetic large pull request.

Builds a repository whose pull request changes 2,000 files with 200,000 added lines in
Python, JavaScript, Go and Java (a few lines per file that the bundled rules match), then
times ``pytest --secreview --collect-only -q`` with the bundled pack against ``git diff`` of
the same range, in the same run; and the same through the ``secreview`` command (the hardened
pytest the README's CI example runs: it loads only the plugins it names, so none of the
environment's other pytest plugins start). Target: at most 5x git diff, peak memory under
300 MB.

    .venv/bin/python benchmarks/bench_collection.py [--files 2000] [--lines 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import median_run, write_section

_EXT = [".py", ".js", ".go", ".java"]
_SNIPPETS = {
    ".py": ['cursor.execute(f"SELECT * FROM t WHERE id = {uid}")',
            "requests.get(url, verify=False)", "value = compute(x)  # plain line"],
    ".js": ["el.innerHTML = req.query.name;", "const v = compute(x); // plain line",
            "exec(`ls ${req.query.dir}`)"],
    ".go": ["tls.Config{InsecureSkipVerify: true}", "v := compute(x) // plain line",
            'db.Query("SELECT * FROM t WHERE id = " + id)'],
    ".java": ["stmt.executeQuery(\"SELECT * FROM t WHERE id=\" + id);",
              "int v = compute(x); // plain line", "new ObjectInputStream(in).readObject();"],
}


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def build(repo: Path, files: int, lines: int) -> None:
    """A base commit with one line per file, and a head commit adding ``lines`` lines each."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    paths = []
    for i in range(files):
        ext = _EXT[i % len(_EXT)]
        path = repo / f"svc{i % 40}" / f"module_{i}{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("// header\n")
        paths.append((path, ext))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    for n, (path, ext) in enumerate(paths):
        body = [f"line_{n}_{k} = compute({k})  # filler" for k in range(lines - 1)]
        body.insert(lines // 2, _SNIPPETS[ext][n % 3])
        path.write_text("// header\n" + "\n".join(body) + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "large change")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="secreview-bench-") as tmp:
        repo = Path(tmp) / "repo"
        build(repo, args.files, args.lines)
        git_cmd = ["git", "-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff",
                   "--no-textconv", "--find-renames", "--find-copies", "main...pr"]
        # As a user's environment would be: bytecode caches written, and no test-only pytest
        # plugin of this project's own test suite (hypothesis) loaded.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        plugins = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
        pytest_cmd = [sys.executable, "-m", "pytest", "--secreview", "--base", "main",
                      "--collect-only", "-q", *plugins]
        out = subprocess.run(pytest_cmd, cwd=repo, capture_output=True, text=True, check=False,
                             env=env)  # also the warm-up
        items = sum(1 for line in out.stdout.splitlines() if "::" in line)
        # The command the README's CI example runs: the hardened pytest (named plugins only).
        secreview_cmd = [str(Path(sys.executable).parent / "secreview"), "--base", "main",
                         "--collect-only", "-q", "-p", "no:cacheprovider"]
        git = median_run(git_cmd, repo, args.repeat)
        collect = median_run(pytest_cmd, repo, args.repeat, env)
        hardened = median_run(secreview_cmd, repo, args.repeat, env)
        empty = Path(tmp) / "empty"
        empty.mkdir()
        baseline = median_run([sys.executable, "-m", "pytest", "--collect-only", "-q", *plugins],
                              empty, args.repeat, env)
    ratio = collect.seconds / git.seconds
    hardened_ratio = hardened.seconds / git.seconds
    net = (collect.seconds - baseline.seconds) / git.seconds
    load = os.getloadavg()[0]
    cpus = f"{git.cpu:.3f} s / {collect.cpu:.3f} s / {baseline.cpu:.3f} s"
    body = f"""## Collection on a large pull request

`.venv/bin/python benchmarks/bench_collection.py` — {args.files} changed files,
{args.files * args.lines:,} added lines, bundled rule pack, median of {args.repeat} runs on a
{os.cpu_count()}-core machine (load average {load:.2f} at the end: other jobs share it, so the
CPU rows, user+sys of the process and its children, are the steadier comparison); the
collection command also runs the same `git diff` itself.

| measure | value |
|---|---|
| `git diff` of the range | {git.seconds:.3f} s |
| `pytest --secreview --collect-only -q` | {collect.seconds:.3f} s ({items} items) |
| ratio collection / git diff | **{ratio:.2f}x** (target at most 5x) |
| `secreview --base main --collect-only -q` (the CI command) | {hardened.seconds:.3f} s |
| ratio `secreview` collection / git diff | **{hardened_ratio:.2f}x** (target at most 5x) |
| pytest start-up alone (empty directory, same plugins) | {baseline.seconds:.3f} s |
| collection net of pytest start-up / git diff | {net:.2f}x |
| CPU: git diff / collection / pytest start-up alone | {cpus} |
| CPU ratio collection / git diff | {collect.cpu / git.cpu:.2f}x |
| peak memory of the collection process | **{collect.peak_mib:.0f} MiB** (target under 300 MB) |
"""
    print(body)
    write_section("collection", body)
    return 0 if collect.returncode == 0 and hardened.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
