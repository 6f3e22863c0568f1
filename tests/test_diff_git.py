"""load_diff and resolve_base against real temporary git repositories."""

from __future__ import annotations

import os
import subprocess
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.diff import git as diff_git
from pytest_secreview.diff.git import load_diff, resolve_base
from pytest_secreview.diff.model import ChangeKind, Diff, FileDiff
from pytest_secreview.diff.parser import DiffParseError
from pytest_secreview.errors import GitError
from pytest_secreview.gitcmd import popen_git
from tests.gitutil import GitRepo
from tests.test_diff_parser import check

NUMSTAT_OPTIONS = (
    "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--find-copies",
    "--submodule=short", "--ignore-submodules=none",
)


def numstat(repo: GitRepo, diff: Diff) -> dict[str, tuple[int, int] | None]:
    """``git diff --numstat -z`` of the diff's range: path → (added, removed), None if binary."""
    # Run like load_diff does, from the git directory, so the head's .gitattributes is ignored.
    proc = subprocess.run(
        ["git", "--bare", "diff", "--numstat", "-z", *NUMSTAT_OPTIONS, diff.base_sha,
         diff.head_sha],
        cwd=repo.path / ".git", capture_output=True, check=True,
    )
    out = proc.stdout.decode()
    fields = out.split("\0")
    result: dict[str, tuple[int, int] | None] = {}
    i = 0
    while i < len(fields) and fields[i]:
        added, removed, path = fields[i].split("\t", 2)
        i += 1
        if not path:  # rename or copy: the old and new paths follow as their own fields
            path = fields[i + 1]
            i += 2
        result[path] = None if added == "-" else (int(added), int(removed))
    return result


def parsed_counts(diff: Diff) -> dict[str, tuple[int, int] | None]:
    return {
        f.path: None if f.binary else (len(f.added_lines), len(f.removed_lines))
        for f in diff.files
    }


def assert_counts_match_numstat(repo: GitRepo, diff: Diff) -> None:
    expected = numstat(repo, diff)
    got = parsed_counts(diff)
    for f in diff.files:
        # A pure rename or copy prints no content, so nothing says whether the file is
        # binary; numstat looks at the blobs and says "-".
        if f.similarity == 100 and not f.hunks and expected.get(f.path) is None:
            got[f.path] = None
    assert got == expected


def lines_of(data: bytes) -> list[str]:
    """A file's lines as the parser reports them: UTF-8 with replacement, no CR/LF."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [p.decode("utf-8", "replace").removesuffix("\r") for p in parts]


def assert_lines_match_files(repo: GitRepo, diff: Diff) -> None:
    """Added lines equal the head file at their numbers; removed lines the base file."""
    for f in diff.files:
        if f.binary or f.submodule or f.too_large:
            continue
        if f.added_lines:
            head = lines_of(show(repo, f"{diff.head_sha}:{f.path}"))
            assert [(ln.number, ln.text) for ln in f.added_lines] == [
                (ln.number, head[ln.number - 1]) for ln in f.added_lines
            ]
        if f.removed_lines:
            old = f.old_path or f.path
            base = lines_of(show(repo, f"{diff.base_sha}:{old}"))
            assert [ln.text for ln in f.removed_lines] == [
                base[ln.number - 1] for ln in f.removed_lines
            ]


def show(repo: GitRepo, spec: str) -> bytes:
    """The blob ``<rev>:<path>`` as bytes (``git show`` would read ``f..`` as a range)."""
    proc = subprocess.run(
        ["git", "cat-file", "blob", spec], cwd=repo.path, capture_output=True, check=True
    )
    return proc.stdout


# -- scenarios ----------------------------------------------------------------------------


@dataclass
class Scenario:
    """Files committed on main, then a change committed on a feature branch."""

    base: dict[str, str | bytes]
    change: Callable[[GitRepo], None]
    expected: list[dict[str, Any]]


def write_all(files: dict[str, str | bytes]) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        for rel, content in files.items():
            repo.write(rel, content)
    return apply


def remove(*paths: str) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        for rel in paths:
            (repo.path / rel).unlink()
    return apply


def both(*steps: Callable[[GitRepo], None]) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        for step in steps:
            step(repo)
    return apply


def chmod_x(rel: str) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        (repo.path / rel).chmod(0o755)
    return apply


def move(src: str, dst: str) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        (repo.path / dst).parent.mkdir(parents=True, exist_ok=True)
        (repo.path / src).rename(repo.path / dst)
    return apply


def symlink(rel: str, target: str) -> Callable[[GitRepo], None]:
    def apply(repo: GitRepo) -> None:
        os.symlink(target, repo.path / rel)
    return apply


def submodule_commit(repo: GitRepo, message: str) -> None:
    """Commit in the nested repository vendor/lib (``git add -A`` records it as a gitlink)."""
    inner = GitRepo(repo.path / "vendor" / "lib")
    inner.write("lib.c", message)
    inner.commit(message)


NUMBERS = "".join(f"line {i}\n" for i in range(1, 21))
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
SPACED = "dir with space/file name.py"
ODD_NAMES = ["café/naïve.py", "tab\there.py", 'quote"d.py', "back\\slash.py", "new\nline.py",
             "漢字.txt"]

SCENARIOS = {
    "added": Scenario(
        {}, write_all({"new.py": "import os\nos.system(cmd)\n"}),
        [{"path": "new.py", "kind": ChangeKind.ADDED, "new_mode": "100644",
          "added": [(1, "import os"), (2, "os.system(cmd)")]}],
    ),
    "deleted": Scenario(
        {"old.py": "x\ny\n"}, remove("old.py"),
        [{"path": "old.py", "kind": ChangeKind.DELETED, "old_mode": "100644",
          "removed": [(1, "x", 1), (2, "y", 1)]}],
    ),
    "modified": Scenario(
        {"m.py": NUMBERS}, write_all({"m.py": NUMBERS.replace("line 5\n", "five\n")}),
        [{"path": "m.py", "kind": ChangeKind.MODIFIED, "added": [(5, "five")],
          "removed": [(5, "line 5", 5)]}],
    ),
    "deletion-only": Scenario(
        {"auth.py": NUMBERS},
        write_all({"auth.py": NUMBERS.replace("line 10\nline 11\n", "")}),
        [{"path": "auth.py", "added": [], "removed": [(10, "line 10", 10), (11, "line 11", 10)]}],
    ),
    "renamed-pure": Scenario(
        {"src/orig.py": NUMBERS}, move("src/orig.py", "lib/moved file.py"),
        [{"path": "lib/moved file.py", "old_path": "src/orig.py", "kind": ChangeKind.RENAMED,
          "similarity": 100, "hunks": 0}],
    ),
    "renamed-with-change": Scenario(
        {"src/orig.py": NUMBERS},
        both(remove("src/orig.py"),
             write_all({"lib/moved.py": NUMBERS.replace("line 20\n", "twenty\n")})),
        [{"path": "lib/moved.py", "old_path": "src/orig.py", "kind": ChangeKind.RENAMED,
          "added": [(20, "twenty")], "removed": [(20, "line 20", 20)]}],
    ),
    "renamed-unicode-to-spaces": Scenario(
        {"café/naïve.py": NUMBERS}, move("café/naïve.py", SPACED),
        [{"path": SPACED, "old_path": "café/naïve.py", "kind": ChangeKind.RENAMED}],
    ),
    "copied": Scenario(
        {"src.py": NUMBERS},
        write_all({"copy.py": NUMBERS + "extra\n", "src.py": NUMBERS.replace("line 1\n", "")}),
        [{"path": "copy.py", "old_path": "src.py", "kind": ChangeKind.COPIED,
          "added": [(21, "extra")]},
         {"path": "src.py", "kind": ChangeKind.MODIFIED, "removed": [(1, "line 1", 1)]}],
    ),
    "binary-added-and-modified": Scenario(
        {"img.png": BINARY},
        write_all({"img.png": BINARY + b"\x00more", "new icon.bin": b"\x00\x01icon"}),
        [{"path": "img.png", "kind": ChangeKind.MODIFIED, "binary": True, "hunks": 0},
         {"path": "new icon.bin", "kind": ChangeKind.ADDED, "binary": True}],
    ),
    "binary-deleted-unicode": Scenario(
        {"données.bin": BINARY}, remove("données.bin"),
        [{"path": "données.bin", "kind": ChangeKind.DELETED, "binary": True}],
    ),
    "mode-only": Scenario(
        {"run me.sh": "echo hi\n"}, chmod_x("run me.sh"),
        [{"path": "run me.sh", "kind": ChangeKind.MODE_CHANGED, "old_mode": "100644",
          "new_mode": "100755", "hunks": 0}],
    ),
    "mode-and-content": Scenario(
        {"run.sh": "echo hi\n"}, both(write_all({"run.sh": "echo bye\n"}), chmod_x("run.sh")),
        [{"path": "run.sh", "kind": ChangeKind.MODIFIED, "old_mode": "100644",
          "new_mode": "100755", "added": [(1, "echo bye")]}],
    ),
    "new-empty-files": Scenario(
        {}, write_all({"empty file.txt": "", "漢 empty": ""}),
        [{"path": "empty file.txt", "kind": ChangeKind.ADDED, "hunks": 0},
         {"path": "漢 empty", "kind": ChangeKind.ADDED, "hunks": 0}],
    ),
    "symlink": Scenario(
        {}, symlink("link", "target dir/file"),
        [{"path": "link", "kind": ChangeKind.ADDED, "new_mode": "120000",
          "added": [(1, "target dir/file")]}],
    ),
    "odd-paths": Scenario(
        dict.fromkeys(ODD_NAMES, "a\n"), write_all(dict.fromkeys(ODD_NAMES, "a\nb\n")),
        [{"path": name, "kind": ChangeKind.MODIFIED, "added": [(2, "b")]}
         for name in sorted(ODD_NAMES, key=lambda n: n.encode())],
    ),
    "spaced-path-modified": Scenario(
        {SPACED: "a\n"}, write_all({SPACED: "b\n"}),
        [{"path": SPACED, "added": [(1, "b")], "removed": [(1, "a", 1)]}],
    ),
    "no-trailing-newline": Scenario(
        {"n.txt": "a\nb", "m.txt": "x"}, write_all({"n.txt": "a\nc", "m.txt": "x\n"}),
        [{"path": "m.txt", "added": [(1, "x")], "removed": [(1, "x", 1)]},
         {"path": "n.txt", "added": [(2, "c")], "removed": [(2, "b", 2)]}],
    ),
    "crlf": Scenario(
        {"w.txt": "a\r\nb\r\nc\r\n"}, write_all({"w.txt": "a\r\nB\r\nc\r\n"}),
        [{"path": "w.txt", "added": [(2, "B")], "removed": [(2, "b", 2)]}],
    ),
    "submodule-added": Scenario(
        {}, lambda repo: submodule_commit(repo, "one"),
        [{"path": "vendor/lib", "kind": ChangeKind.ADDED, "submodule": True}],
    ),
    "gitattributes-cannot-hide-source": Scenario(
        {"app.py": "a = 1\n"},
        write_all({".gitattributes": "*.py -diff\n", "app.py": "a = 1\neval(data)\n"}),
        [{"path": ".gitattributes", "kind": ChangeKind.ADDED},
         {"path": "app.py", "binary": False, "added": [(2, "eval(data)")]}],
    ),
}


def build(tmp_path: Path, scenario: Scenario) -> tuple[GitRepo, Diff]:
    repo = GitRepo(tmp_path / "repo")
    write_all(scenario.base)(repo)
    repo.commit("base")
    repo.branch("feature")
    scenario.change(repo)
    repo.commit("head")
    return repo, load_diff(repo.path, "main")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_real_git_scenarios(tmp_path: Path, name: str) -> None:
    repo, diff = build(tmp_path, SCENARIOS[name])
    check(list(diff.files), SCENARIOS[name].expected)
    assert diff.head_sha == repo.git("rev-parse", "HEAD").strip()
    assert diff.base_sha == repo.git("rev-parse", "main").strip()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_counts_match_git_numstat(tmp_path: Path, name: str) -> None:
    repo, diff = build(tmp_path, SCENARIOS[name])
    assert_counts_match_numstat(repo, diff)
    assert_lines_match_files(repo, diff)


def test_submodule_update(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    submodule_commit(repo, "one")
    repo.commit("base")
    repo.branch("feature")
    submodule_commit(repo, "two")
    repo.commit("head")
    diff = load_diff(repo.path, "main")
    check(list(diff.files), [{"path": "vendor/lib", "kind": ChangeKind.MODIFIED,
                              "submodule": True}])
    assert not diff.files[0].reviewable
    assert_counts_match_numstat(repo, diff)


def test_diff_is_against_the_merge_base(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "a\n")
    fork = repo.commit("base")
    repo.branch("feature")
    repo.write("feature.py", "f\n")
    head = repo.commit("feature work")
    repo.git("checkout", "-q", "main")
    repo.write("main_only.py", "m\n")
    repo.commit("main moved on")
    diff = load_diff(repo.path, "main", "feature")
    assert (diff.base_sha, diff.head_sha) == (fork, head)
    assert [f.path for f in diff.files] == ["feature.py"]


def test_paths_limit_the_diff_literally(tmp_path: Path) -> None:
    # Fix mode re-checks one file of a large pull request: git diffs only that file, and a
    # name holding glob characters names itself, not a pattern.
    repo = GitRepo(tmp_path / "repo")
    repo.write("keep.txt", "k\n")
    repo.commit("base")
    repo.branch("pr")
    for name in ("a[1].py", "a1.py", "b.py", "sub/c.py"):
        repo.write(name, "x\n")
    repo.commit("pull request")
    diff = load_diff(repo.path, "main", "pr", paths={"a[1].py", "sub/c.py"})
    assert [f.path for f in diff.files] == ["a[1].py", "sub/c.py"]
    assert load_diff(repo.path, "main", "pr", paths=set()).files == ()


def test_empty_diff(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "a\n")
    sha = repo.commit("base")
    diff = load_diff(repo.path, "main")
    assert diff == Diff(base_sha=sha, head_sha=sha, files=())


# -- size limits --------------------------------------------------------------------------


def test_20mb_file_is_too_large_and_memory_stays_bounded(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("small.py", "a\n")
    repo.commit("base")
    repo.branch("feature")
    line = b"x" * 199 + b"\n"
    repo.write("huge.txt", line * (20 * 1024 * 1024 // len(line)))
    repo.write("small.py", "a\nb\n")
    repo.commit("head")
    expected = [
        {"path": "huge.txt", "kind": ChangeKind.ADDED, "too_large": True, "hunks": 0},
        {"path": "small.py", "too_large": False, "added": [(2, "b")]},
    ]
    check(list(load_diff(repo.path, "main").files), expected)
    tracemalloc.start()
    try:
        diff = load_diff(repo.path, "main", max_file_bytes=1024 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    check(list(diff.files), expected)
    # Memory follows the per-file limit (about three times it, for parsed lines and text),
    # not the size of the file.
    assert peak < 6 * 1024 * 1024


def test_20mb_single_line_is_streamed(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit("base")
    repo.branch("feature")
    repo.write("bundle.min.js", b"var a=1;" * (20 * 1024 * 1024 // 8))
    repo.commit("head")
    tracemalloc.start()
    try:
        diff = load_diff(repo.path, "main", max_file_bytes=1024 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    check(list(diff.files), [{"path": "bundle.min.js", "too_large": True}])
    assert peak < 4 * 1024 * 1024


# -- errors -------------------------------------------------------------------------------


def test_not_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match=r"is not a git repository.*inside a checkout"):
        load_diff(tmp_path, "main")
    with pytest.raises(GitError, match="is not a git repository"):
        load_diff(tmp_path / "missing", "main")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "a\n")
    repo.commit("base")
    return repo


def test_unknown_base_ref_suggests_fetch(repo: GitRepo) -> None:
    with pytest.raises(GitError, match=r"'origin/release'.*git fetch origin release"):
        load_diff(repo.path, "origin/release")


def test_unknown_head_ref(repo: GitRepo) -> None:
    with pytest.raises(GitError, match=r"unknown head revision 'nope'"):
        load_diff(repo.path, "main", "nope")


@pytest.mark.parametrize("ref", ["--output=/tmp/x", "a..b", "HEAD:secret", "main branch", ""])
def test_option_like_or_odd_refs_are_refused(repo: GitRepo, ref: str) -> None:
    with pytest.raises(GitError, match="refused revision"):
        load_diff(repo.path, ref)
    with pytest.raises(GitError, match="refused revision"):
        load_diff(repo.path, "main", ref or "-x")


def test_unrelated_histories(repo: GitRepo) -> None:
    repo.git("checkout", "-q", "--orphan", "other")
    repo.write("b.py", "b\n")
    repo.commit("unrelated")
    with pytest.raises(GitError, match="unrelated histories"):
        load_diff(repo.path, "main")


def test_shallow_clone_without_merge_base(tmp_path: Path) -> None:
    upstream = GitRepo(tmp_path / "upstream")
    upstream.write("a.py", "a\n")
    upstream.commit("root")
    upstream.branch("feature")
    upstream.write("f.py", "f\n")
    upstream.commit("feature")
    upstream.git("checkout", "-q", "main")
    upstream.write("a.py", "a2\n")
    upstream.commit("main moved")
    clone = tmp_path / "clone"
    upstream.git("clone", "-q", "--depth", "1", "--branch", "feature",
                 f"file://{upstream.path}", str(clone))
    upstream.git("-C", str(clone), "fetch", "-q", "--depth", "1", "origin",
                 "main:refs/remotes/origin/main")
    with pytest.raises(GitError, match=r"shallow clone.*fetch-depth: 0.*--unshallow"):
        load_diff(clone, "origin/main")


def test_git_failure_while_streaming_reports_stderr(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "a\n")
    repo.commit("base")
    repo.branch("feature")
    repo.write("b.py", "secret blob\n")
    repo.commit("head")
    blob = repo.git("rev-parse", "HEAD:b.py").strip()
    (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(GitError, match=rf"git diff .* failed: .*{blob}"):
        load_diff(repo.path, "main")


# -- resolve_base -------------------------------------------------------------------------


def test_resolve_base_prefers_explicit_then_github_then_origin_head(tmp_path: Path) -> None:
    upstream = GitRepo(tmp_path / "upstream")
    upstream.write("a.py", "a\n")
    upstream.commit("root")
    clone = tmp_path / "clone"
    upstream.git("clone", "-q", str(upstream.path), str(clone))
    env = {"GITHUB_BASE_REF": "develop"}
    assert resolve_base(clone, "origin/main", env) == "origin/main"
    assert resolve_base(clone, None, env) == "origin/develop"
    assert resolve_base(clone, None, {}) == "origin/HEAD"
    assert resolve_base(clone, None, {"GITHUB_BASE_REF": ""}) == "origin/HEAD"
    assert load_diff(clone, resolve_base(clone, None, {})).files == ()


def test_resolve_base_without_any_hint_asks_for_base(repo: GitRepo) -> None:
    with pytest.raises(GitError, match=r"pass --base origin/main"):
        resolve_base(repo.path, None, {})


@pytest.mark.parametrize(("base", "env"), [("--upload-pack=x", {}),
                                            (None, {"GITHUB_BASE_REF": "main..evil"})])
def test_resolve_base_refuses_option_like_values(repo: GitRepo, base: str | None,
                                                env: dict[str, str]) -> None:
    with pytest.raises(GitError, match="refused revision"):
        resolve_base(repo.path, base, env)


def test_resolve_base_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="is not a git repository"):
        resolve_base(tmp_path, None, {})


def test_repository_without_commits(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    with pytest.raises(GitError, match=r"unknown base revision 'main'.*git fetch origin main"):
        load_diff(repo.path, "main")
    with pytest.raises(GitError, match=r"unknown base revision 'HEAD'.*no commits yet"):
        load_diff(repo.path, "HEAD")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        pytest.param(DiffParseError("bad hunk"), GitError, id="parse-error-becomes-git-error"),
        pytest.param(KeyboardInterrupt(), KeyboardInterrupt, id="interrupt-propagates"),
    ],
)
def test_stream_stops_and_git_is_reaped_when_parsing_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException,
    expected: type[BaseException],
) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit("base")
    repo.branch("feature")
    repo.write("big.txt", b"line\n" * 2_000_000)  # more than a pipe buffer of output
    repo.commit("head")
    started: list[subprocess.Popen[bytes]] = []

    def spy_popen(repo: Path, *args: str) -> subprocess.Popen[bytes]:
        proc = popen_git(repo, *args)
        started.append(proc)
        return proc

    def failing_parse(chunks: Iterator[bytes], **_: object) -> list[FileDiff]:
        next(iter(chunks))
        raise error

    monkeypatch.setattr(diff_git, "popen_git", spy_popen)
    monkeypatch.setattr(diff_git, "parse_diff", failing_parse)
    with pytest.raises(expected) as info:
        load_diff(repo.path, "main")
    if expected is GitError:
        assert "could not parse the output of git diff: bad hunk" in str(info.value)
    (proc,) = started
    assert proc.returncode is not None  # killed and waited for, not left running
