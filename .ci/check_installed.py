"""Run the product as users get it: from the built wheel, installed (not editable) in a fresh
virtual environment, outside the checkout.

Called by ``.ci/run`` with the interpreter of that environment, from a directory outside the
checkout. Each check runs a console script of the installed package on real input:

- ``secreview-demo``: the quick start's review (red: the demo's pull request has critical flaws);
- ``secreview`` on a real git pull request, with ``--junitxml`` and ``--secreview-sarif``;
- ``secreview init`` in a fresh repository, then ``secreview test-rules``;
- ``secreview-mcp`` over stdio answering one ``tools/list`` request (the official MCP client);
- ``secreview`` on a pull request that pins a version an advisory affects and adds a typosquat,
  with ``--secreview-advisories`` on a directory of OSV records written here (the dependency
  rules, their built-in scanners and the shipped popular-package lists, as installed).

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


#: An OSV record (PyYAML's arbitrary code execution, CVE-2020-14343), as the OSV schema has it.
ADVISORY = {
    "id": "GHSA-8q59-q68h-6hv4", "modified": "2024-01-01T00:00:00Z",
    "summary": "Improper Input Validation in PyYAML",
    "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
    "affected": [{"package": {"ecosystem": "PyPI", "name": "pyyaml"},
                  "ranges": [{"type": "ECOSYSTEM",
                              "events": [{"introduced": "0"}, {"fixed": "5.4"}]}]}],
}


def dependencies(root: Path) -> None:
    repo = root / "deps"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "requirements.txt").write_text("pyyaml==5.4.1\nrequests==2.32.3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "requirements.txt").write_text("pyyaml==5.3.1\nrequests==2.32.3\nreqeusts==2.32.3\n")
    git(repo, "commit", "-q", "-am", "pin pyyaml")
    advisories = root / "osv"
    advisories.mkdir()
    (advisories / f"{ADVISORY['id']}.json").write_text(json.dumps(ADVISORY))
    report = root / "deps.json"
    run([BIN / "secreview", "--base", "main", f"--secreview-advisories={advisories}",
         "--json-report", f"--json-report-file={report}"], cwd=repo, expect=1)
    text = report.read_text() if report.is_file() else ""
    check("GHSA-8q59-q68h-6hv4" in text and "5.4" in text,
          f"{report}: no finding names the advisory and its fixed version")
    check("reqeusts" in text, f"{report}: the typosquat reqeusts was not reported")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="secreview-installed-") as tmp:
        root = Path(tmp)
        demo = run([BIN / "secreview-demo", "--dir", root / "demo"], cwd=root, expect=1)
        check("CRITICAL" in demo.stdout, "secreview-demo showed no critical finding")
        review(root)
        init_and_test_rules(root)
        mcp(root)
        dependencies(root)
    for failure in FAILURES:
        print(f"\nFAILED: {failure}", file=sys.stderr)
    print(f"installed product: {'ok' if not FAILURES else f'{len(FAILURES)} failure(s)'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
