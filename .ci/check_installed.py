"""Run the product as users get it: from the built wheel, installed (not editable) in a fresh
virtual environment, outside the checkout.

Called by ``.ci/run`` with the interpreter of that environment, from a directory outside the
checkout. Each check runs a console script of the installed package on real input:

- ``secreview-demo``: the quick start's review (red: the demo's pull request has critical flaws);
- ``secreview`` on a real git pull request, with ``--junitxml`` and ``--secreview-sarif``;
- ``secreview init`` in a fresh repository, then ``secreview test-rules``;
- ``secreview-mcp`` over stdio answering one ``tools/list`` request (the official MCP client).

Exit status 0 when every check holds; otherwise each failure is printed with the command's
output, and the status is 1.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

BIN = Path(sys.executable).parent
FAILURES: list[str] = []


def run(args: Sequence[str], cwd: Path, expect: int) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=600)
    print(f"$ {' '.join(map(str, args))}  -> exit {done.returncode}")
    if done.returncode != expect:
        FAILURES.append(f"{' '.join(map(str, args))}: exit {done.returncode}, expected {expect}"
                        f"\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")
    return done


def check(condition: bool, what: str) -> None:
    if not condition:
        FAILURES.append(what)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=repo, check=True,
                   capture_output=True, timeout=60)


def pull_request(root: Path) -> Path:
    """A repository whose branch ``pr`` adds command injection and unsafe deserialization."""
    repo = root / "service"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("from flask import Flask\n\napp = Flask(__name__)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "app.py").write_text(
        "import os\nimport pickle\n\nfrom flask import Flask, request\n\napp = Flask(__name__)\n"
        "\n\n@app.post('/run')\ndef run():\n    os.system('convert ' + request.form['name'])\n"
        "    return pickle.loads(request.data)\n")
    git(repo, "commit", "-q", "-am", "add the run endpoint")
    return repo


def review(root: Path) -> None:
    repo = pull_request(root)
    junit, sarif = root / "review.xml", root / "review.sarif"
    run([BIN / "secreview", "--base", "main", "-n", "2", f"--junitxml={junit}",
         f"--secreview-sarif={sarif}", f"--secreview-artifacts={root / 'artifacts'}"],
        cwd=repo, expect=1)
    check(junit.is_file() and "<failure" in junit.read_text(),
          f"{junit}: the JUnit file holds no failed item")
    if sarif.is_file():
        results = [r for run_ in json.loads(sarif.read_text())["runs"] for r in run_["results"]]
        check(any(r.get("level") == "error" for r in results),
              f"{sarif}: no error-level result for the critical flaws")
    else:
        check(False, f"{sarif} was not written")


def init_and_test_rules(root: Path) -> None:
    repo = root / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    run([BIN / "secreview", "init", "--rule", "no-eval"], cwd=repo, expect=0)
    check((repo / ".github/workflows/secreview.yml").is_file(), "init wrote no workflow")
    run([BIN / "secreview", "test-rules"], cwd=repo, expect=0)
    run([BIN / "secreview", "test-rules", "secreview/rules"], cwd=repo, expect=0)


async def _list_tools(repo: Path) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(command=str(BIN / "secreview-mcp"),
                                   args=["--repo", str(repo), "--base", "main"],
                                   env={"PATH": os.environ.get("PATH", "")})
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]


def mcp(root: Path) -> None:
    tools = asyncio.run(asyncio.wait_for(_list_tools(root / "service"), timeout=120))
    print(f"$ secreview-mcp (stdio): tools/list -> {len(tools)} tools")
    check({"read_file", "git_diff"} <= set(tools), f"secreview-mcp listed {tools}")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="secreview-installed-") as tmp:
        root = Path(tmp)
        demo = run([BIN / "secreview-demo", "--dir", root / "demo"], cwd=root, expect=1)
        check("CRITICAL" in demo.stdout, "secreview-demo showed no critical finding")
        review(root)
        init_and_test_rules(root)
        mcp(root)
    for failure in FAILURES:
        print(f"\nFAILED: {failure}", file=sys.stderr)
    print(f"installed product: {'ok' if not FAILURES else f'{len(FAILURES)} failure(s)'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
