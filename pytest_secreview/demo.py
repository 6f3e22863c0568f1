"""``secreview-demo``: a real review with no model and no token.

Creates a throw-away git repository holding a small payments service on ``main`` and a pull
request branch that introduces realistic vulnerabilities, then runs exactly what a CI job
runs, the hardened ``secreview --base main`` (``pytest --secreview`` with nothing from the
pull request in pytest), with JUnit and JSON results, and says where they are. Exits with
pytest's status: 1 (red), because the pull request has critical findings.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

_BASE_FILES = {
    "app/__init__.py": "",
    "app/settings.py": """\
        import os

        DEBUG = False
        DATABASE_URL = os.environ["DATABASE_URL"]
        AWS_REGION = "eu-west-1"
        """,
    "app/views.py": """\
        import sqlite3

        from flask import Flask, abort, request
        from flask_login import login_required

        app = Flask(__name__)


        def db():
            return sqlite3.connect("billing.db")


        @app.route("/invoices/<int:invoice_id>")
        @login_required
        def invoice(invoice_id):
            row = db().execute("SELECT * FROM invoices WHERE id = ?", (invoice_id,)).fetchone()
            return {"invoice": row} if row else abort(404)


        @app.route("/admin/refunds", methods=["POST"])
        @login_required
        def refund():
            return {"queued": request.json["invoice_id"]}
        """,
    "app/fetch.py": """\
        import requests


        def fetch_rates(url):
            return requests.get(url, timeout=5, verify=True).json()
        """,
    ".github/workflows/ci.yml": """\
        name: ci
        on: pull_request
        jobs:
          test:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - run: pytest
        """,
}


def _edited(path: str, *edits: tuple[str, str], added: str = "") -> str:
    """The base version of ``path`` with each (old, new) edit applied, then ``added`` appended.

    Only what the pull request changes is written here, so base and head cannot drift apart.
    """
    text = textwrap.dedent(_BASE_FILES[path])
    for old, new in edits:
        if text.count(old) != 1:
            raise RuntimeError(f"demo edit of {path}: {old!r} is not in the base exactly once")
        text = text.replace(old, new)
    return text + textwrap.dedent(added)


def _pr_files() -> dict[str, str]:
    # Secrets are assembled at run time so none is ever written literally in this repository.
    key_id = "AKI" + "A" + "J7XQ" + "2M4P" + "9R8T" + "6WYZ"
    secret = "wJalr" + "XUtnFEMI" + "K7MDENG" + "bPxRfiCY" + "zK9Q3mP1" + "sA7bLx"
    return {
        "app/settings.py": _edited("app/settings.py", added=f"""\
            AWS_ACCESS_KEY_ID = "{key_id}"
            AWS_SECRET_ACCESS_KEY = "{secret}"
            """),
        "app/views.py": _edited(
            "app/views.py",
            ("import sqlite3\n", "import sqlite3\nimport subprocess\n"),
            ("@login_required\ndef refund", "def refund"),
            added="""\


            @app.route("/invoices/search")
            def search():
                customer = request.args["customer"]
                query = f"SELECT * FROM invoices WHERE customer = '{customer}'"
                return {"rows": db().execute(query).fetchall()}


            @app.route("/invoices/export")
            def export():
                name = request.args.get("name", "invoices")
                subprocess.run(f"tar czf /tmp/{name}.tgz exports/", shell=True, check=True)
                return {"file": f"/tmp/{name}.tgz"}
            """,
        ),
        "app/fetch.py": _edited("app/fetch.py", ("verify=True", "verify=False")),
        ".github/workflows/ci.yml": _edited(
            ".github/workflows/ci.yml",
            ("on: pull_request\n", "on: pull_request_target\n"),
            ("      - uses: actions/checkout@v4\n", """\
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "Testing ${{ github.event.pull_request.title }}"
"""),
        ),
    }


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Demo Author", "GIT_AUTHOR_EMAIL": "demo@example.com",
        "GIT_COMMITTER_NAME": "Demo Author", "GIT_COMMITTER_EMAIL": "demo@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def build_demo_repo(repo: Path) -> None:
    """Create the demo repository: ``main`` with the service, branch ``pr`` with the change."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "commit.gpgsign", "false")
    _write(repo, _BASE_FILES)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "billing service")
    _git(repo, "checkout", "-q", "-b", "pr")
    _write(repo, _pr_files())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Add invoice search and export")


def main(argv: list[str] | None = None) -> int:
    """Build the demo repository and review its pull request like a CI job would."""
    parser = argparse.ArgumentParser(prog="secreview-demo", description=__doc__)
    parser.add_argument("--dir", type=Path, help="where to create the demo repository "
                        "(default: a new temporary directory)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments, e.g. -n 2")
    args = parser.parse_args(argv)
    repo = args.dir or Path(tempfile.mkdtemp(prefix="secreview-demo-"))
    build_demo_repo(repo)
    results = repo / "secreview-results"
    results.mkdir(exist_ok=True)
    # -P: the repository under review is the working directory and never on sys.path.
    command = [
        sys.executable, "-P", "-c", "import sys; from pytest_secreview.cli import main; "
        "sys.exit(main())", "--base", "main", "-rfEs",
        f"--junitxml={results / 'junit.xml'}", "--json-report",
        f"--json-report-file={results / 'report.json'}", *args.pytest_args,
    ]
    print(f"demo pull request: {repo} (branch pr against main)")
    print("running: " + " ".join(["secreview", *command[4:]]), flush=True)
    status = subprocess.run(command, cwd=repo, check=False).returncode
    print()
    print(f"JUnit results:  {results / 'junit.xml'}")
    print(f"JSON report:    {results / 'report.json'}")
    verdict = {0: "green: nothing at or above the threshold",
               1: "red: the pull request has findings at or above the threshold"}
    print(f"exit status {status}: {verdict.get(status, 'the review could not complete')}")
    return status


if __name__ == "__main__":
    sys.exit(main())
