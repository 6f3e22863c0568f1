"""The repository tools against a real, hostile git repository.

The repository holds what a malicious pull request (or a CI checkout) can put in reach of the
model: symlinks out of the tree, credentials, a token in ``.git/config``, untracked and ignored
files, binary and enormous files. Each hostile input has a readable id and the refusal it must
get; and for every one, no canary secret may appear in the result and no side effect may happen.
"""

from __future__ import annotations

import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.errors import GitError
from pytest_secreview.tools import GitHubPRContext, ToolLimits, ToolRegistry, build_registry
from tests.gitutil import GitRepo


@dataclass
class Hostile:
    """The hostile repository and the values tests look for."""

    root: Path
    base: str
    head: str
    scratch: Path
    canaries: dict[str, str]
    env_blob: str
    token: str

    def registry(self, **limits: Any) -> ToolRegistry:
        return build_registry(
            self.root, base_sha=self.base, head_sha=self.head, limits=ToolLimits(**limits)
        )


def _canary(kind: str) -> str:
    # Plain words, not secret-shaped: if a gate failed, redaction would not hide the leak.
    return f"CANARY{kind}{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    top = tmp_path_factory.mktemp("hostile")
    root = top / "repo"
    scratch = top / "scratch"
    scratch.mkdir()
    (top / "outside").mkdir()
    (top / "outside" / "secret.txt").write_text(f"outside {_canary('OUT')}\n")
    canaries = {kind: _canary(kind) for kind in ("ENV", "KEY", "NPM", "GIT", "IGN", "UNT", "AWS")}
    token = "gh" + "p_" + uuid.uuid4().hex + "Ab12"

    repo = GitRepo(root)
    repo.write("README.md", "# service\n")
    repo.write(".gitignore", "build/\n*.log\n")
    repo.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 301)))
    repo.write("src/util/helpers.py", "def helper():\n    return 'Needle'\n")
    repo.write("docs/guide.md", "guide needle\n")
    repo.write("a" * 200 + ".txt", "long name\n")
    repo.write(".env", f"note {canaries['ENV']}\n")
    repo.write(".env.production", f"note {canaries['ENV']}\n")
    repo.write("config/.npmrc", f"note {canaries['NPM']}\n")
    repo.write("keys/id_rsa", f"note {canaries['KEY']}\n")
    repo.write("keys/id_rsa.pub", "ssh-ed25519 AAAA public\n")
    repo.write("certs/deploy.pem", f"note {canaries['KEY']}\n")
    repo.write(".aws/credentials", f"note {canaries['AWS']}\n")
    repo.write(".pypirc", f"note {canaries['NPM']}\n")
    repo.write("service-account-prod.json", f'{{"note": "{canaries["KEY"]}"}}\n')
    repo.write("infra/terraform.tfstate", f'{{"note": "{canaries["AWS"]}"}}\n')
    repo.write("img.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    repo.write("utf16.txt", "\ufeffhello utf16\n".encode("utf-16-le"))
    repo.write("empty.txt", "")
    repo.write("huge.txt", "".join(f"{n:06d} " + "x" * 93 + "\n" for n in range(30_000)))
    repo.write("minified.js", "var a=1;" * 40_000)
    repo.write("catastrophic.txt", "a" * 100_000 + "\n")
    links = {
        "etc_link": "/etc",
        "passwd_link": "/etc/passwd",
        "parent_link": "..",
        "sub/escape": "../../outside",
        "chain1": "chain2",
        "chain2": "chain3",
        "chain3": "/etc/passwd",
        "loop_a": "loop_b",
        "loop_b": "loop_a",
        "env_link": ".env",
        "git_link": ".git",
        "gitconfig_link": ".git/config",
        "keys_link": "keys",
        "docs_link": "docs",
    }
    for name, target in links.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / name)
    base = repo.commit("base")
    repo.branch("pr")
    repo.write("src/app.py", "import os\n" + "".join(f"line {n}\n" for n in range(1, 301)))
    repo.write("src/new.py", f"def f():\n    return eval(input())\nTOKEN = '{token}'\n")
    repo.write(".env", f"note changed {canaries['ENV']}\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", f"\x1b[31mfeature\x1b[0m\n\nuses {token}")
    head = repo.git("rev-parse", "HEAD").strip()
    env_blob = repo.git("rev-parse", "HEAD:.env").strip()

    # Outside the reviewed revision: CI credentials, ignored and untracked files, dirty edits.
    repo.git("config", "secreview.canary", canaries["GIT"])
    repo.git("config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {token}")
    repo.write("build/secret.txt", f"note {canaries['IGN']}\n")
    repo.write("debug.log", f"note {canaries['IGN']}\n")
    repo.write("notes_untracked.txt", f"note {canaries['UNT']}\n")
    repo.write("src/util/helpers.py", f"dirty {canaries['UNT']}\n")
    return Hostile(root, base, head, scratch, canaries, env_blob, token)


# (id, tool, arguments, outcome, fragment). Outcome: "denied" (refused by the sandbox or the
# gate), "error" (an error text), "ok" (a normal result). "{scratch}" and "{env_blob}" are
# filled in at run time.
HOSTILE: list[tuple[str, str, dict[str, Any], str, str]] = [
    # traversal
    ("read_dotdot", "read_file", {"path": "../etc/passwd"}, "denied", "'..'"),
    ("read_dotdot_deep", "read_file", {"path": "../../../../../../etc/passwd"}, "denied", "'..'"),
    ("read_backslash_dotdot", "read_file", {"path": "..\\..\\etc\\passwd"}, "denied", "backslash"),
    ("read_mixed_slashes", "read_file", {"path": "..\\/..\\/etc/passwd"}, "denied", "backslash"),
    ("read_inner_dotdot", "read_file", {"path": "src/../../etc/passwd"}, "denied", "'..'"),
    ("read_a_dotdot_dotdot", "read_file", {"path": "a/../../x"}, "denied", "'..'"),
    ("read_dot_dotdot", "read_file", {"path": "./../x"}, "denied", "'..'"),
    ("read_trailing_dotdot", "read_file", {"path": "src/.."}, "denied", "'..'"),
    ("read_percent_encoded", "read_file", {"path": "%2e%2e/%2e%2e/etc/passwd"}, "error",
     "not a tracked file"),
    ("read_double_encoded", "read_file", {"path": "%252e%252e%252fetc%252fpasswd"}, "error",
     "not a tracked file"),
    ("read_overlong_utf8", "read_file", {"path": "%c0%ae%c0%ae/etc/passwd"}, "error",
     "not a tracked file"),
    ("read_fullwidth_dots", "read_file", {"path": "\uff0e\uff0e/etc/passwd"}, "error",
     "not a tracked file"),
    # absolute and Windows-style
    ("read_absolute", "read_file", {"path": "/etc/passwd"}, "denied", "absolute"),
    ("read_proc_environ", "read_file", {"path": "/proc/self/environ"}, "denied", "absolute"),
    ("read_unc", "read_file", {"path": "\\\\server\\share\\secret"}, "denied", "backslash"),
    ("read_drive_backslash", "read_file", {"path": "C:\\Windows\\win.ini"}, "denied",
     "backslash"),
    ("read_drive_forward", "read_file", {"path": "C:/Windows/win.ini"}, "denied", "drive"),
    ("read_home", "read_file", {"path": "~/.ssh/id_rsa"}, "denied", "home"),
    # malformed
    ("read_nul", "read_file", {"path": "src/app.py\x00../../etc/passwd"}, "denied", "NUL"),
    ("read_newline", "read_file", {"path": "src/app.py\n.env"}, "denied", "control"),
    ("read_bidi", "read_file", {"path": "src/\u202eyp.ppa"}, "denied", "formatting"),
    ("read_overlong", "read_file", {"path": "a/" * 1000}, "denied", "longer than"),
    ("read_enormous_argument", "read_file", {"path": "a" * 10_000}, "error", "at most"),
    ("read_path_not_string", "read_file", {"path": ["src/app.py"]}, "error", "path:"),
    # symlinks
    ("read_symlink_etc_dir", "read_file", {"path": "etc_link/passwd"}, "denied", "leaves"),
    ("read_symlink_abs_file", "read_file", {"path": "passwd_link"}, "denied", "leaves"),
    ("read_symlink_parent", "read_file", {"path": "parent_link/outside/secret.txt"}, "denied",
     "leaves"),
    ("read_symlinked_dir_escape", "read_file", {"path": "sub/escape/secret.txt"}, "denied",
     "leaves"),
    ("read_symlink_chain", "read_file", {"path": "chain1"}, "denied", "leaves"),
    ("read_symlink_loop", "read_file", {"path": "loop_a"}, "denied", "too many"),
    ("read_symlink_to_env", "read_file", {"path": "env_link"}, "denied", "environment"),
    ("read_symlink_to_git_dir", "read_file", {"path": "git_link/config"}, "denied",
     "git internals"),
    ("read_symlink_to_git_config", "read_file", {"path": "gitconfig_link"}, "denied",
     "git internals"),
    ("read_symlinked_dir_to_key", "read_file", {"path": "keys_link/id_rsa"}, "denied",
     "private key"),
    # gate
    ("read_git_config", "read_file", {"path": ".git/config"}, "denied", "git internals"),
    ("read_git_config_upper", "read_file", {"path": ".GIT/config"}, "denied", "git internals"),
    ("read_git_head", "read_file", {"path": ".git/HEAD"}, "denied", "git internals"),
    ("read_git_ntfs_short", "read_file", {"path": "GIT~1/config"}, "denied", "git internals"),
    ("read_git_trailing_dot", "read_file", {"path": ".git./config"}, "denied", "git internals"),
    ("read_env", "read_file", {"path": ".env"}, "denied", "environment"),
    ("read_env_production", "read_file", {"path": ".env.production"}, "denied", "environment"),
    ("read_id_rsa", "read_file", {"path": "keys/id_rsa"}, "denied", "private key"),
    ("read_pem", "read_file", {"path": "certs/deploy.pem"}, "denied", "private key"),
    ("read_npmrc", "read_file", {"path": "config/.npmrc"}, "denied", "credential"),
    ("read_pypirc", "read_file", {"path": ".pypirc"}, "denied", "credential"),
    ("read_aws_credentials", "read_file", {"path": ".aws/credentials"}, "denied", "AWS"),
    ("read_service_account", "read_file", {"path": "service-account-prod.json"}, "denied",
     "credential"),
    ("read_tfstate", "read_file", {"path": "infra/terraform.tfstate"}, "denied", "Terraform"),
    # outside the reviewed revision
    ("read_untracked", "read_file", {"path": "notes_untracked.txt"}, "error",
     "not a tracked file"),
    ("read_ignored", "read_file", {"path": "build/secret.txt"}, "error", "not a tracked file"),
    ("read_ignored_log", "read_file", {"path": "debug.log"}, "error", "not a tracked file"),
    ("read_directory", "read_file", {"path": "src"}, "error", "is a directory"),
    # list_files
    ("list_option_pattern", "list_files", {"pattern": "--output={scratch}/pwned"}, "ok",
     "No tracked files"),
    ("list_dotdot_pattern", "list_files", {"pattern": "../*"}, "ok", "No tracked files"),
    ("list_absolute_pattern", "list_files", {"pattern": "/etc/*"}, "ok", "No tracked files"),
    ("list_env_pattern", "list_files", {"pattern": ".env*"}, "ok", "withheld by the security"),
    ("list_git_pattern", "list_files", {"pattern": ".git/**"}, "ok", "No tracked files"),
    ("list_negated_pattern", "list_files", {"pattern": "!*.py"}, "error", "negated"),
    ("list_catastrophic_glob", "list_files", {"pattern": "*a" * 14 + "*b"}, "ok",
     "No tracked files"),
    ("list_path_dotdot", "list_files", {"pattern": "*", "path": "../"}, "denied", "'..'"),
    ("list_path_git", "list_files", {"pattern": "*", "path": ".git"}, "denied", "git internals"),
    ("list_path_absolute", "list_files", {"pattern": "*", "path": "/etc"}, "denied", "absolute"),
    ("list_path_symlink_escape", "list_files", {"pattern": "*", "path": "etc_link"}, "denied",
     "leaves"),
    ("list_path_aws", "list_files", {"pattern": "*", "path": ".aws"}, "denied", "AWS"),
    # search_files
    ("search_catastrophic_regex", "search_files", {"pattern": "(a+)+$"}, "ok",
     "catastrophic.txt:1:"),
    ("search_nested_quantifiers", "search_files", {"pattern": "(x+x+)+y"}, "ok", "No matches"),
    ("search_lookbehind", "search_files", {"pattern": "(?<=a)b"}, "error", "not a valid RE2"),
    ("search_backreference", "search_files", {"pattern": "(a)\\1"}, "error", "not a valid RE2"),
    ("search_option_pattern", "search_files", {"pattern": "--output={scratch}/pwned"}, "ok",
     "No matches"),
    ("search_env_canary", "search_files", {"pattern": "CANARYENV[0-9a-f]+"}, "ok", "withheld"),
    ("search_key_canary", "search_files", {"pattern": "CANARYKEY[0-9a-f]+"}, "ok", "No matches"),
    ("search_git_config_canary", "search_files", {"pattern": "CANARYGIT[0-9a-f]+"}, "ok",
     "No matches"),
    ("search_ignored_canary", "search_files", {"pattern": "CANARYIGN[0-9a-f]+"}, "ok",
     "No matches"),
    ("search_untracked_canary", "search_files", {"pattern": "CANARYUNT[0-9a-f]+"}, "ok",
     "No matches"),
    ("search_env_glob", "search_files", {"pattern": ".", "glob": ".env*"}, "ok", "withheld"),
    ("search_glob_dotdot", "search_files", {"pattern": "root", "glob": "../../**"}, "ok",
     "No matches"),
    ("search_path_dotdot", "search_files", {"pattern": "x", "path": "../"}, "denied", "'..'"),
    ("search_path_git", "search_files", {"pattern": "x", "path": ".git"}, "denied",
     "git internals"),
    ("search_path_symlink_escape", "search_files", {"pattern": "root", "path": "etc_link"},
     "denied", "leaves"),
    ("search_path_env", "search_files", {"pattern": "x", "path": ".env"}, "denied",
     "environment"),
    # refs
    ("show_output_option", "git_show", {"ref": "--output={scratch}/pwned"}, "denied",
     "option-like"),
    ("show_config_pager", "git_show", {"ref": "-c core.pager=touch {scratch}/pwned"}, "denied",
     "option-like"),
    ("show_upload_pack", "git_show", {"ref": "--upload-pack=touch {scratch}/pwned"}, "denied",
     "option-like"),
    ("show_rev_path_env", "git_show", {"ref": "HEAD:.env"}, "denied", "option-like"),
    ("show_rev_path_source", "git_show", {"ref": "HEAD:src/app.py"}, "denied", "option-like"),
    ("show_index_path", "git_show", {"ref": ":.env"}, "denied", "option-like"),
    ("show_range", "git_show", {"ref": "HEAD~1..HEAD"}, "denied", "option-like"),
    ("show_newline_option", "git_show", {"ref": "HEAD\n--output={scratch}/pwned"}, "denied",
     "option-like"),
    ("show_space_option", "git_show", {"ref": "HEAD --stat"}, "denied", "option-like"),
    ("show_end_of_options", "git_show", {"ref": "--end-of-options"}, "denied", "option-like"),
    ("show_blob_of_env", "git_show", {"ref": "{env_blob}"}, "error", "does not name a commit"),
    ("show_tree", "git_show", {"ref": "HEAD^{{tree}}"}, "error", "does not name a commit"),
    ("show_unknown", "git_show", {"ref": "deadbeef"}, "error", "does not name a commit"),
    ("diff_output_option", "git_diff", {"base": "--output={scratch}/pwned"}, "denied",
     "option-like"),
    ("diff_ext_diff_option", "git_diff", {"base": "--ext-diff"}, "denied", "option-like"),
    ("diff_rev_path", "git_diff", {"base": "HEAD:.env"}, "denied", "option-like"),
    ("log_negative_count", "git_log", {"max_count": -1}, "error", "greater than or equal"),
    ("log_option_count", "git_log", {"max_count": "--all"}, "error", "max_count:"),
    ("fetch_pr_files_absent", "fetch_pr_files", {}, "error", "unknown tool"),
]


def _fill(value: Any, hostile: Hostile) -> Any:
    if isinstance(value, str):
        return value.format(scratch=hostile.scratch, env_blob=hostile.env_blob)
    return value


def _assert_nothing_leaked(text: str, hostile: Hostile) -> None:
    for kind, canary in hostile.canaries.items():
        assert canary not in text, f"{kind} canary leaked"
    assert hostile.token not in text
    assert "root:x:0:0" not in text
    assert "\x1b" not in text


@pytest.mark.parametrize(
    ("tool", "args", "outcome", "fragment"),
    [h[1:] for h in HOSTILE],
    ids=[h[0] for h in HOSTILE],
)
def test_hostile_input(
    hostile: Hostile, tool: str, args: dict[str, Any], outcome: str, fragment: str
) -> None:
    registry = hostile.registry()
    result = registry.call(tool, {key: _fill(value, hostile) for key, value in args.items()})
    assert fragment in result.text, result.text[:500]
    assert result.denied == (outcome == "denied")
    assert result.is_error == (outcome != "ok")
    _assert_nothing_leaked(result.text, hostile)
    assert list(hostile.scratch.iterdir()) == [], "a side effect happened"
    if outcome == "denied":
        assert registry.usage().denied == 1


def test_table_is_large_enough() -> None:
    assert len(HOSTILE) >= 40
    assert len({h[0] for h in HOSTILE}) == len(HOSTILE)


def _stat(path: Path) -> tuple[float, int] | None:
    return (path.stat().st_mtime, path.stat().st_size) if path.exists() else None


def test_no_side_effects_with_literal_tmp_paths(hostile: Hostile) -> None:
    targets = [Path("/tmp/pwned"), Path("/tmp/x")]
    before = [_stat(path) for path in targets]
    registry = hostile.registry()
    for ref in ("--output=/tmp/x", "-c core.pager=touch /tmp/pwned", "--upload-pack=touch "
                "/tmp/pwned", "--exec=touch /tmp/pwned", "-o/tmp/x"):
        assert registry.call("git_show", {"ref": ref}).denied
        assert registry.call("git_diff", {"base": ref}).denied
        assert not registry.call("list_files", {"pattern": ref}).is_error
        assert not registry.call("search_files", {"pattern": ref}).is_error
    for _, tool, args, _, _ in HOSTILE:
        registry.call(tool, {key: _fill(value, hostile) for key, value in args.items()})
    assert [_stat(path) for path in targets] == before
    assert list(hostile.scratch.iterdir()) == []


# -- read_file --------------------------------------------------------------------------


def test_read_file_numbers_lines_and_says_how_to_read_more(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "src/app.py", "offset": 2, "limit": 3})
    lines = result.text.splitlines()
    assert lines[0].startswith("src/app.py (lines 2-4 of 301")
    assert lines[1:4] == ["2\tline 1", "3\tline 2", "4\tline 3"]
    assert 'read_file(path="src/app.py", offset=5)' in lines[-1]


def test_read_file_reads_the_reviewed_revision_not_the_working_tree(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "src/util/helpers.py"})
    assert "return 'Needle'" in result.text
    assert "dirty" not in result.text


def test_read_file_huge_file_is_bounded(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "huge.txt", "limit": 2000})
    assert not result.is_error
    assert len(result.text) <= 50_000
    assert "[... truncated: lines" in result.text and "offset=" in result.text


def test_read_file_long_line_is_cut_with_marker(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "minified.js"})
    assert "[... line truncated: 318000 more characters ...]" in result.text
    assert len(result.text) < 5_000


def test_read_file_too_large_is_described(hostile: Hostile) -> None:
    result = hostile.registry(max_read_bytes=1000).call("read_file", {"path": "huge.txt"})
    assert "too large to read" in result.text and "search_files" in result.text


def test_output_limit_applies_with_marker(hostile: Hostile) -> None:
    result = hostile.registry(max_output_chars=300).call("git_diff", {})
    assert len(result.text) < 400
    assert "[... truncated:" in result.text


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("img.png", "binary file, 272 bytes, PNG image; contents not shown"),
        ("utf16.txt", "1\thello utf16"),
        ("empty.txt", "empty.txt: empty file"),
        ("docs_link/guide.md", "docs_link/guide.md (symlink to docs/guide.md)"),
        ("keys/id_rsa.pub", "ssh-ed25519"),
    ],
    ids=["binary", "utf16", "empty", "symlink_inside", "public_key"],
)
def test_read_file_kinds(hostile: Hostile, path: str, fragment: str) -> None:
    result = hostile.registry().call("read_file", {"path": path})
    assert not result.is_error, result.text
    assert fragment in result.text
    assert "\x00" not in result.text


def test_read_file_offset_past_end(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "README.md", "offset": 50})
    assert result.is_error and "past the end" in result.text


def test_secrets_in_reviewed_files_are_redacted(hostile: Hostile) -> None:
    result = hostile.registry().call("read_file", {"path": "src/new.py"})
    assert hostile.token not in result.text and "[REDACTED:github_token]" in result.text


# -- list_files / search_files -------------------------------------------------------------


def test_list_files_shows_only_tracked_and_allowed(hostile: Hostile) -> None:
    result = hostile.registry().call("list_files", {"pattern": "*"})
    listed = result.text.splitlines()
    assert "src/app.py" in listed and "src/new.py" in listed
    assert "etc_link (symlink)" in listed
    for hidden in (".env", "keys/id_rsa", "notes_untracked.txt", "build/secret.txt", "debug.log"):
        assert hidden not in listed
    assert not any(line.startswith(".git/") for line in listed)
    assert "paths withheld by the security gate (secret-bearing files" in result.text
    assert "  keys/id_rsa: private key or keystore" in listed


def test_list_files_relative_to_path_and_capped(hostile: Hostile) -> None:
    result = hostile.registry(max_list_entries=1).call(
        "list_files", {"pattern": "*.py", "path": "src"}
    )
    heading, first = result.text.splitlines()[:2]
    assert (heading, first) == ("3 tracked files match '*.py' under 'src':", "src/app.py")
    assert "2 more files not shown" in result.text


def test_search_files_reports_path_line_text(hostile: Hostile) -> None:
    result = hostile.registry().call("search_files", {"pattern": "needle", "ignore_case": True})
    assert "docs/guide.md:1: guide needle" in result.text
    assert "src/util/helpers.py:2:     return 'Needle'" in result.text
    assert "2 matching lines in 2 files" in result.text


def test_search_files_glob_and_path(hostile: Hostile) -> None:
    result = hostile.registry().call(
        "search_files", {"pattern": "^line 7$", "path": "src", "glob": "*.py"}
    )
    assert result.text.splitlines()[0] == "src/app.py:8: line 7"


def test_search_files_stops_at_match_limit(hostile: Hostile) -> None:
    result = hostile.registry(max_matches=5).call("search_files", {"pattern": "line"})
    assert result.text.count("src/app.py:") == 5
    assert "stopped early at 5 matching lines, in 'src/app.py'" in result.text


def test_search_files_stops_at_deadline(hostile: Hostile) -> None:
    result = hostile.registry(search_seconds=0).call("search_files", {"pattern": "zzz"})
    assert "stopped early at the 0s time limit" in result.text


def test_search_files_skips_binary_and_large(hostile: Hostile) -> None:
    result = hostile.registry(max_search_file_bytes=150_000).call(
        "search_files", {"pattern": "IHDR"}
    )
    assert "skipped 1 binary" in result.text
    assert "larger than 150,000 bytes" in result.text


# -- git tools ------------------------------------------------------------------------------


def test_git_diff_withholds_denied_files_but_names_them(hostile: Hostile) -> None:
    result = hostile.registry().call("git_diff", {})
    assert not result.is_error
    assert "diff --git a/src/new.py b/src/new.py" in result.text
    assert "diff --git a/.env" not in result.text
    assert ".env (environment file" in result.text
    assert "[REDACTED:github_token]" in result.text


def test_git_diff_against_explicit_base(hostile: Hostile) -> None:
    result = hostile.registry().call("git_diff", {"base": "main"})
    assert "merge base of main" in result.text


def test_git_log_is_clean(hostile: Hostile) -> None:
    result = hostile.registry().call("git_log", {"max_count": 1})
    assert "feature" in result.text and "src/new.py" in result.text
    assert "[REDACTED:github_token]" in result.text
    assert "\x1b" not in result.text and "commit " + hostile.head in result.text


def test_git_show_commit(hostile: Hostile) -> None:
    result = hostile.registry().call("git_show", {"ref": "HEAD"})
    assert "diff --git a/src/new.py" in result.text
    assert "withheld by the security gate" in result.text
    assert "diff --git a/.env" not in result.text


def test_denials_are_logged(hostile: Hostile, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pytest_secreview.tools"):
        registry = hostile.registry()
        registry.call("read_file", {"path": ".git/config"})
        registry.call("list_files", {"pattern": ".env*"})
    messages = [r.getMessage() for r in caplog.records if r.name == "pytest_secreview.tools"]
    assert any("denied '.git/config'" in m for m in messages)
    assert any("withheld '.env'" in m for m in messages)
    usage = registry.usage()
    assert (usage.calls, usage.denied, usage.withheld) == (2, 1, 2)


# -- construction ---------------------------------------------------------------------------


def test_build_registry_refuses_option_like_shas(hostile: Hostile) -> None:
    with pytest.raises(GitError):
        build_registry(hostile.root, base_sha="--output=/tmp/x", head_sha=hostile.head)
    with pytest.raises(GitError):
        build_registry(hostile.root, base_sha=hostile.base, head_sha="-c x=y")


def test_build_registry_tool_set(hostile: Hostile) -> None:
    names = hostile.registry().names()
    assert names == ("read_file", "list_files", "search_files", "git_diff", "git_log", "git_show")
    context = GitHubPRContext("octo/repo", 7, token="t" * 12, api_url="http://127.0.0.1:9")
    with_github = build_registry(
        hostile.root, base_sha=hostile.base, head_sha=hostile.head, github=context
    )
    assert with_github.names()[-1] == "fetch_pr_files"
    without_token = build_registry(
        hostile.root, base_sha=hostile.base, head_sha=hostile.head,
        github=GitHubPRContext("octo/repo", 7, token=""),
    )
    assert "fetch_pr_files" not in without_token


def test_names_that_are_not_utf8_cannot_smuggle_denied_files(tmp_path: Path) -> None:
    canary = _canary("BYTES")
    repo = GitRepo(tmp_path / "repo")
    repo.write("README.md", "x\n")
    base = repo.commit("base")
    odd_dir = os.fsdecode(b"odd\xff")
    repo.write(f"{odd_dir}/.env", f"note {canary}\n")
    repo.write(f"{odd_dir}/notes.txt", "visible\n")
    head = repo.commit("add")
    registry = build_registry(repo.path, base_sha=base, head_sha=head)
    results = [
        registry.call("git_diff", {}),
        registry.call("git_show", {"ref": head}),
        registry.call("list_files", {"pattern": "*"}),
        registry.call("search_files", {"pattern": "note"}),
    ]
    for result in results:
        assert canary not in result.text
        result.text.encode("utf-8")  # printable on any wire format
    assert "notes.txt" in results[0].text and "withheld by the security gate" in results[0].text
    assert "odd\ufffd/.env" in registry.usage().to_dict()["denials"][0]["path"]
