"""The path sandbox: malformed and escaping paths are refused, on disk and in git trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_secreview.tools.errors import SandboxError
from pytest_secreview.tools.sandbox import (
    MAX_PATH_CHARS,
    clean_relative,
    resolve_in_root,
    resolve_in_tree,
)

CLEAN = [
    ("plain", "src/app.py", "src/app.py"),
    ("dot_prefix", "./src/app.py", "src/app.py"),
    ("double_slash", "src//app.py", "src/app.py"),
    ("trailing_slash", "src/", "src"),
    ("inner_dot", "src/./app.py", "src/app.py"),
    ("percent_is_literal", "%2e%2e/x", "%2e%2e/x"),
    ("unicode_name", "docs/résumé.md", "docs/résumé.md"),
    ("dotfile", ".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    ("colon_inside", "a/b:c.txt", "a/b:c.txt"),
]


@pytest.mark.parametrize(("raw", "expected"), [c[1:] for c in CLEAN], ids=[c[0] for c in CLEAN])
def test_clean_relative_normalises(raw: str, expected: str) -> None:
    assert clean_relative(raw) == expected


REFUSED = [
    ("dotdot", "../etc/passwd", "'..'"),
    ("dotdot_inner", "a/../../x", "'..'"),
    ("dotdot_harmless_still_refused", "a/../b", "'..'"),
    ("dot_dotdot", "./../x", "'..'"),
    ("dots_space", ".. /x", "'..'"),
    ("triple_dots", ".../x", "'..'"),
    ("backslash_dotdot", "..\\..\\etc\\passwd", "backslash"),
    ("backslash_mixed", "src\\..\\..\\x", "backslash"),
    ("absolute", "/etc/passwd", "absolute"),
    ("absolute_double", "//etc/passwd", "absolute"),
    ("unc", "\\\\server\\share\\x", "backslash"),
    ("unc_forward", "//server/share/x", "absolute"),
    ("drive_backslash", "C:\\Windows\\win.ini", "backslash"),
    ("drive_forward", "C:/Windows/win.ini", "drive"),
    ("drive_relative", "c:secret.txt", "drive"),
    ("home", "~/.ssh/id_rsa", "home"),
    ("home_user", "~root/.bashrc", "home"),
    ("nul", "src/app.py\x00.png", "NUL"),
    ("newline", "src/app.py\nx", "control"),
    ("carriage_return", "src\r/app.py", "control"),
    ("escape", "\x1b[31msrc", "control"),
    ("del", "src\x7f", "control"),
    ("c1_control", "src\x85x", "control"),
    ("bidi_override", "src/\u202eyp.ppa", "formatting"),
    ("zero_width", "src/\u200bapp.py", "formatting"),
    ("line_separator", "src\u2028app", "control"),
    ("overlong", "a/" * (MAX_PATH_CHARS // 2 + 1), "longer"),
    ("long_component", "a" * 300, "component longer"),
    ("empty", "", "empty"),
    ("only_dots", "./././", "empty"),
]


@pytest.mark.parametrize(
    ("raw", "fragment"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_clean_relative_refuses(raw: str, fragment: str) -> None:
    with pytest.raises(SandboxError) as info:
        clean_relative(raw)
    assert fragment in info.value.reason


def test_clean_relative_refuses_non_strings() -> None:
    with pytest.raises(SandboxError, match="string"):
        clean_relative(b"src/app.py")  # type: ignore[arg-type]


def test_root_only_when_allowed() -> None:
    assert clean_relative(".", allow_root=True) == ""
    assert clean_relative("", allow_root=True) == ""


@pytest.fixture
def disk(tmp_path: Path) -> Path:
    """A repository directory with symlinks that escape in every way, and one that does not."""
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("ok\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    os.symlink("/etc", root / "etc_link")
    os.symlink("/etc/passwd", root / "passwd_link")
    os.symlink("..", root / "parent_link")
    os.symlink(outside, root / "outside_dir")
    os.symlink("chain2", root / "chain1")
    os.symlink("chain3", root / "chain2")
    os.symlink("../outside/secret.txt", root / "chain3")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("src/app.py", root / "inside_link")
    os.symlink("../../outside", root / "src" / "deep_escape")
    os.symlink("missing/../../outside", root / "dangling")
    return root


DISK_REFUSED = [
    ("symlink_to_etc_dir", "etc_link/passwd", "leaves"),
    ("symlink_to_etc_dir_itself", "etc_link", "leaves"),
    ("symlink_to_file", "passwd_link", "leaves"),
    ("symlink_to_parent", "parent_link/outside/secret.txt", "leaves"),
    ("symlinked_directory", "outside_dir/secret.txt", "leaves"),
    ("symlink_chain", "chain1", "leaves"),
    ("symlink_loop", "loop_a", "loop"),
    ("nested_escape", "src/deep_escape/secret.txt", "leaves"),
    ("dangling_escape", "dangling", "leaves"),
    ("dotdot", "../outside/secret.txt", "'..'"),
    ("absolute", str(Path("/etc/passwd")), "absolute"),
]


@pytest.mark.parametrize(
    ("raw", "fragment"), [r[1:] for r in DISK_REFUSED], ids=[r[0] for r in DISK_REFUSED]
)
def test_resolve_in_root_refuses_escapes(disk: Path, raw: str, fragment: str) -> None:
    with pytest.raises(SandboxError) as info:
        resolve_in_root(disk, raw)
    assert fragment in info.value.reason


def test_resolve_in_root_allows_inside(disk: Path) -> None:
    real = Path(os.path.realpath(disk))
    assert resolve_in_root(disk, "inside_link") == real / "src" / "app.py"
    assert resolve_in_root(disk, "src/app.py") == real / "src" / "app.py"
    assert resolve_in_root(disk, "not/yet/there.txt") == real / "not" / "yet" / "there.txt"
    assert resolve_in_root(disk, ".") == real


TREE_LINKS = {
    "etc_link": "/etc",
    "parent_link": "..",
    "chain1": "chain2",
    "chain2": "chain3",
    "chain3": "/etc/passwd",
    "loop_a": "loop_b",
    "loop_b": "loop_a",
    "docs/readme": "../README.md",
    "docs/escape": "../../x",
    "win": "C:\\Windows",
    "unc": "\\\\server\\share",
    "nul": "a\x00b",
    "alias": "src",
}

TREE_CASES = [
    ("absolute_target", "etc_link/passwd", "leaves"),
    ("parent_target", "parent_link/x", "leaves"),
    ("chain_to_absolute", "chain1", "leaves"),
    ("loop", "loop_a", "too many"),
    ("relative_escape", "docs/escape", "leaves"),
    ("windows_target", "win/x", "leaves"),
    ("unc_target", "unc", "leaves"),
    ("nul_target", "nul", "NUL"),
]


@pytest.mark.parametrize(
    ("raw", "fragment"), [c[1:] for c in TREE_CASES], ids=[c[0] for c in TREE_CASES]
)
def test_resolve_in_tree_refuses(raw: str, fragment: str) -> None:
    with pytest.raises(SandboxError) as info:
        resolve_in_tree(raw, TREE_LINKS.get)
    assert fragment in info.value.reason


def test_resolve_in_tree_follows_links_inside() -> None:
    assert resolve_in_tree("docs/readme", TREE_LINKS.get) == "README.md"
    assert resolve_in_tree("alias/app.py", TREE_LINKS.get) == "src/app.py"
    assert resolve_in_tree("src/app.py", TREE_LINKS.get) == "src/app.py"


# -- properties -------------------------------------------------------------------------

_PIECES = st.sampled_from(
    ["a", "src", "..", ".", "", "etc_link", "parent_link", "outside_dir", "chain1", "loop_a",
     "inside_link", "passwd", "\\", "C:", "~", "\x00", "%2e%2e", "\u202e", "src/deep_escape"]
)
_PATHS = st.one_of(
    st.lists(_PIECES, max_size=8).map("/".join),
    st.text(max_size=200),
)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=_PATHS)
def test_property_resolve_in_root_never_leaves_root(disk: Path, raw: str) -> None:
    real = Path(os.path.realpath(disk))
    try:
        resolved = resolve_in_root(disk, raw)
    except SandboxError:
        return
    assert resolved == real or real in resolved.parents
    assert resolved == Path(os.path.realpath(resolved)) or not resolved.exists()


@settings(max_examples=400, deadline=None)
@given(raw=_PATHS)
def test_property_clean_relative_output_is_confined(raw: str) -> None:
    try:
        clean = clean_relative(raw, allow_root=True)
    except SandboxError:
        return
    parts = clean.split("/") if clean else []
    assert not clean.startswith("/")
    assert "\\" not in clean and "\x00" not in clean
    assert all(part not in ("", ".", "..") for part in parts)


_TARGETS = st.one_of(
    st.sampled_from(["..", "../..", "/etc", "a/../..", "x", "a", ".", "b/../../c", "C:\\x"]),
    st.text(max_size=30),
)


@settings(max_examples=400, deadline=None)
@given(
    links=st.dictionaries(st.sampled_from(["a", "b", "x", "a/b", "b/x"]), _TARGETS, max_size=5),
    raw=st.lists(st.sampled_from(["a", "b", "x", "y"]), min_size=1, max_size=6).map("/".join),
)
def test_property_resolve_in_tree_stays_in_tree(links: dict[str, str], raw: str) -> None:
    try:
        resolved = resolve_in_tree(raw, links.get)
    except SandboxError:
        return
    assert not resolved.startswith("/")
    assert ".." not in resolved.split("/")
    assert "\\" not in resolved and "\x00" not in resolved
