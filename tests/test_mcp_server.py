"""``secreview-mcp`` started as a real subprocess and driven by the MCP SDK's own client, over
stdio and streamable HTTP, against a real temporary git repository.

Threat model of the hostile calls: an MCP client (an editor's agent) that was prompt-injected
into asking for files outside the repository, secret files or git internals. Each gets an error
string and never the bytes of the file.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import aws_key_id
from tests.gitutil import GitRepo

pytest.importorskip("mcp", reason="the MCP tests need the extra: pip install -e '.[test,mcp]'")

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from pytest_secreview.mcp.cli import is_loopback, parse_http
from pytest_secreview.mcp.review_tools import ReviewScope
from pytest_secreview.mcp.service import ReviewService

T = TypeVar("T")

# Markers for content that must never come back; none looks like a real secret.
ENV_MARKER = "ENV-FILE-CONTENT-3f9a1c"
OUTSIDE_MARKER = "OUTSIDE-REPO-CONTENT-77b2e0"
GITCONFIG_MARKER = "GIT-CONFIG-CONTENT-a41d5e"

EXPECTED_TOOLS = [
    "read_file", "list_files", "search_files", "git_diff", "git_log", "git_show",
    "list_rules", "explain_rule", "review_diff",
]


@pytest.fixture
def pr_repo(tmp_path: Path) -> GitRepo:
    """``main``: an app, a tracked ``.env``, symlinks leaving the repository; ``pr`` (checked
    out): an AWS-key-shaped string committed at line 3 of ``app/config.py``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{OUTSIDE_MARKER}\n")
    git = GitRepo(tmp_path / "repo")
    git.git("config", "secreview.marker", GITCONFIG_MARKER)
    git.write("README.md", "service\n")
    git.write("app/__init__.py", "")
    git.write(".env", f"MARKER={ENV_MARKER}\n")
    os.symlink(str(outside / "secret.txt"), git.path / "abs_link")
    os.symlink("../../outside/secret.txt", git.path / "app" / "rel_link")
    os.symlink("../outside", git.path / "dir_link")
    git.commit("base")
    git.branch("pr")
    git.write("app/config.py", f'import os\n\nAWS_KEY = "{aws_key_id()}"\nT = os.getenv("T")\n')
    git.commit("add config")
    return git


@pytest.fixture
def repo(pr_repo: GitRepo) -> Path:
    """The path of :func:`pr_repo`."""
    return pr_repo.path


def _params(repo: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pytest_secreview.mcp", "--repo", str(repo), "--base", "main", *extra],
    )


def _with_client(repo: Path, body: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def run() -> T:
        with anyio.fail_after(120):
            async with (
                stdio_client(_params(repo)) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                return await body(client)

    return anyio.run(run)


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def test_lists_the_registry_tools_with_the_registry_schemas(repo: Path) -> None:
    async def body(client: ClientSession) -> Any:
        return (await client.list_tools()).tools

    tools = _with_client(repo, body)
    assert [tool.name for tool in tools] == EXPECTED_TOOLS
    specs = ReviewService(ReviewScope(repo=repo, base="main")).specs()
    # One source of truth: the schema a client sees is the registry's declaration itself.
    assert [(t.name, t.description, t.inputSchema) for t in tools] == [
        (s["name"], s["description"], s["parameters"]) for s in specs
    ]
    assert all(tool.annotations and tool.annotations.readOnlyHint for tool in tools)


CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("read_file", {"path": "app/config.py"}, "import os"),
    ("list_files", {"pattern": "*.py", "path": "app"}, "config.py"),
    ("search_files", {"pattern": "AWS_KEY"}, "app/config.py:3:"),
    ("git_diff", {}, "+AWS_KEY"),
    ("git_log", {}, "add config"),
    ("git_show", {"ref": "HEAD"}, "app/config.py"),
    ("list_rules", {}, "hardcoded-secrets (CRITICAL"),
    ("explain_rule", {"rule_id": "hardcoded-secrets"}, "cwe: CWE-798"),
    ("review_diff", {}, "app/config.py:3: CRITICAL [hardcoded-secrets] AWS access key id"),
    ("review_diff", {}, "app/config.py:4 [environment] environment variable read: T = os.g"),
]


def test_every_tool_answers_and_no_secret_leaves(repo: Path) -> None:
    async def body(client: ClientSession) -> list[tuple[bool, str]]:
        return [
            (result.isError, _text(result))
            for result in [await client.call_tool(name, args) for name, args, _ in CALLS]
        ]

    results = _with_client(repo, body)
    assert {name for name, _, _ in CALLS} == set(EXPECTED_TOOLS)
    assert "intent (HIGH, needs a model) [supply-chain, CWE-506]" in results[6][1]
    for (name, _, expected), (is_error, text) in zip(CALLS, results, strict=True):
        assert not is_error, (name, text)
        assert expected in text, (name, text)
        assert aws_key_id() not in text, name  # redacted on every path, as for the agent


HOSTILE: list[tuple[str, str, dict[str, Any], str]] = [
    ("traversal", "read_file", {"path": "../../etc/passwd"}, "root:"),
    ("absolute", "read_file", {"path": "/etc/passwd"}, "root:"),
    ("dotenv", "read_file", {"path": ".env"}, ENV_MARKER),
    ("dotenv_dotted", "read_file", {"path": "app/../.env"}, ENV_MARKER),
    ("git_config", "read_file", {"path": ".git/config"}, GITCONFIG_MARKER),
    ("symlink_absolute", "read_file", {"path": "abs_link"}, OUTSIDE_MARKER),
    ("symlink_relative", "read_file", {"path": "app/rel_link"}, OUTSIDE_MARKER),
    ("symlink_dir", "read_file", {"path": "dir_link/secret.txt"}, OUTSIDE_MARKER),
    ("list_git_dir", "list_files", {"pattern": "*", "path": ".git"}, "HEAD"),
    ("search_git_dir", "search_files", {"pattern": "marker", "path": ".git"}, GITCONFIG_MARKER),
    ("show_blob_path", "git_show", {"ref": "HEAD:.env"}, ENV_MARKER),
    ("option_injection", "git_show", {"ref": "--output=/tmp/x"}, ""),
    ("unknown_tool", "write_file", {"path": "x"}, ""),
    ("bad_arguments", "read_file", {"path": "README.md", "mode": "w"}, ""),
]


def test_hostile_calls_get_an_error_string_never_the_content(repo: Path) -> None:
    async def body(client: ClientSession) -> list[tuple[bool, str]]:
        out = []
        for _, name, args, _ in HOSTILE:
            result = await client.call_tool(name, args)
            out.append((result.isError, _text(result)))
        # search across the whole repository skips the secret file too
        found = await client.call_tool("search_files", {"pattern": "ENV-FILE-CONTENT-[0-9a-f]+"})
        out.append((found.isError, _text(found)))
        return out

    results = _with_client(repo, body)
    for (case, *_, secret), (is_error, text) in zip(HOSTILE, results, strict=False):
        assert is_error, (case, text)
        assert text.startswith("Error:"), (case, text)
        if secret:
            assert secret not in text, case
    assert ENV_MARKER not in results[-1][1]
    assert "1 withheld by the security gate" in results[-1][1]


def test_review_diff_follows_new_commits_on_head(pr_repo: GitRepo) -> None:
    git = pr_repo

    async def body(client: ClientSession) -> tuple[str, str]:
        before = _text(await client.call_tool("review_diff", {}))
        git.write("app/more.py", f'x = 1\nOTHER = "{aws_key_id()}"\n')
        git.commit("more")
        after = _text(await client.call_tool("review_diff", {}))
        return before, after

    before, after = _with_client(git.path, body)
    assert "app/more.py" not in before
    assert "app/more.py:2: CRITICAL [hardcoded-secrets]" in after


def test_bad_base_is_refused_at_start_with_a_message(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_secreview.mcp", "--repo", str(repo), "--base", "nope"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )
    assert proc.returncode == 2
    assert "--base 'nope' does not name a commit" in proc.stderr
    assert proc.stdout == ""  # stdout is the protocol channel


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_streamable_http_on_loopback(repo: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, *_params(repo, "--http", f"127.0.0.1:{port}").args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()[1]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server never listened"
                time.sleep(0.1)

        async def run() -> tuple[list[str], bool, str]:
            with anyio.fail_after(60):
                url = f"http://127.0.0.1:{port}/mcp"
                async with (
                    streamable_http_client(url) as (read, write, _),
                    ClientSession(read, write) as client,
                ):
                    await client.initialize()
                    names = [t.name for t in (await client.list_tools()).tools]
                    denied = await client.call_tool("read_file", {"path": ".env"})
                    return names, bool(denied.isError), _text(denied)

        names, is_error, text = anyio.run(run)
        # DNS rebinding: a web page whose name resolves to 127.0.0.1 sends its own Host and
        # Origin; both are refused before any tool runs.
        rebinding = [
            httpx.post(
                f"http://127.0.0.1:{port}/mcp", headers=headers, timeout=30,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            ).status_code
            for headers in (
                {"Host": "attacker.example"}, {"Origin": "http://attacker.example"},
            )
        ]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert names == EXPECTED_TOOLS
    assert is_error and ENV_MARKER not in text
    assert rebinding == [421, 403]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8765", ("127.0.0.1", 8765)),
        (":8765", ("127.0.0.1", 8765)),
        ("localhost:1", ("localhost", 1)),
        ("[::1]:9000", ("::1", 9000)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
    ],
    ids=["port_only", "colon_port", "named_host", "ipv6", "all_interfaces"],
)
def test_parse_http(value: str, expected: tuple[str, int]) -> None:
    assert parse_http(value) == expected


@pytest.mark.parametrize("value", ["abc", "127.0.0.1:99999", "host:"])
def test_parse_http_rejects(value: str) -> None:
    with pytest.raises(Exception, match="expected HOST:PORT"):
        parse_http(value)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False),
     ("192.168.1.2", False), ("example.com", False)],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_non_loopback_http_is_refused_without_allow_remote(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_secreview.mcp", "--repo", str(repo), "--base", "main",
         "--http", "0.0.0.0:0"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )
    assert proc.returncode == 2
    assert "not a loopback address" in proc.stderr


_NO_SDK = """
import sys
sys.modules["mcp"] = None  # as if the extra were not installed
import pytest_secreview.plugin, pytest_secreview.mcp
assert "mcp" not in {m for m in sys.modules if sys.modules[m] is not None}, "plugin imported mcp"
assert not any(m.startswith("pytest_secreview.mcp.") for m in sys.modules), "plugin imported mcp/"
from pytest_secreview.mcp.cli import main
sys.exit(main(["--repo", ".", "--base", "main"]))
"""


def test_package_imports_and_explains_without_the_extra(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _NO_SDK], cwd=repo, capture_output=True, text=True, timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'pytest-secreview[mcp]'" in proc.stderr
