"""Property test: for random file sets committed in a real repository, the parser agrees with
``git diff --numstat`` and its added/removed lines are the real lines of the head/base files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_secreview.diff.git import load_diff
from tests.gitutil import GitRepo
from tests.test_diff_git import assert_counts_match_numstat, assert_lines_match_files

# Characters git must quote (tab, CR, quote, backslash, non-ASCII) or that make the unquoted
# "diff --git a/X b/X" line ambiguous (space).
_NAME_CHARS = "ab z09_-. \t\r\"\\é漢ü"
_DIRS = ["", "d/", "sp ace/", "é/", 'q"/']

names = st.builds(
    lambda d, n: f"{d}f{n}",
    st.sampled_from(_DIRS),
    st.text(alphabet=_NAME_CHARS, max_size=8),
)

# Lines that look like diff syntax are the interesting ones for a parser.
_TRICKY = ["", "a", "b", "x = 1", "  return", "-- x", "++ y", "--- a/f", "+++ b/f",
           "\\ No newline at end of file", "diff --git a/x b/x", "@@ -1 +1 @@", "é漢"]
line_text = st.one_of(
    st.sampled_from(_TRICKY),
    st.text(st.characters(codec="utf-8", exclude_characters="\n\r\x00"), max_size=12),
)
line = st.tuples(line_text, st.sampled_from(["\n", "\r\n"]))


@st.composite
def contents(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return b"\x00binary" + draw(st.binary(max_size=30))
    lines: list[tuple[str, str]] = draw(st.lists(line, max_size=12))
    text = "".join(t + end for t, end in lines)
    no_final_newline: bool = draw(st.booleans())
    if lines and no_final_newline:
        text = text[: -len(lines[-1][1])]  # no newline at end of file
    return text.encode()


@st.composite
def edited(draw: st.DrawFn, base: bytes) -> bytes:
    """``base`` with a few lines replaced, inserted or deleted (so hunks keep context)."""
    if base.startswith(b"\x00") or draw(st.integers(0, 5)) == 0:
        return draw(contents())
    lines = base.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines)))
        op = draw(st.sampled_from(["insert", "replace", "delete"]))
        new = (draw(line_text) + draw(st.sampled_from(["", "\r"]))).encode()
        if op == "insert" or i == len(lines):
            lines.insert(i, new)
        elif op == "replace":
            lines[i] = new
        else:
            del lines[i]
    return b"\n".join(lines)


@st.composite
def histories(draw: st.DrawFn) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A base file set and the head file set derived from it."""
    base = draw(st.dictionaries(names, contents(), max_size=5))
    head: dict[str, bytes] = {}
    for path, data in base.items():
        op = draw(st.sampled_from(["keep", "edit", "delete", "rename", "rename-edit"]))
        if op == "keep":
            head[path] = data
        elif op == "edit":
            head[path] = draw(edited(data))
        elif op.startswith("rename"):
            target = draw(names.filter(lambda n: n not in base and n not in head))
            head[target] = draw(edited(data)) if op == "rename-edit" else data
    for path, data in draw(st.dictionaries(names, contents(), max_size=3)).items():
        if path not in base:
            head.setdefault(path, data)
    return base, head


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(histories())
def test_parser_matches_git_numstat_and_files(history: tuple[dict[str, bytes],
                                                             dict[str, bytes]]) -> None:
    base, head = history
    with tempfile.TemporaryDirectory() as tmp:
        repo = GitRepo(Path(tmp) / "repo")
        for path, data in base.items():
            repo.write(path, data)
        repo.commit("base")
        repo.branch("feature")
        for path in base:
            (repo.path / path).unlink()
        for path, data in head.items():
            repo.write(path, data)
        repo.commit("head")
        diff = load_diff(repo.path, "main")
        assert_counts_match_numstat(repo, diff)
        assert_lines_match_files(repo, diff)
        for f in diff.files:
            assert f.path in head or f.path in base
            for ln in f.removed_lines:
                assert ln.anchor >= 1
        # The taint engine reads the added lines' numbers alone, from a diff whose lines
        # were never split: the same numbers.
        fresh = load_diff(repo.path, "main")
        assert [list(f.added_numbers()) for f in fresh.files] == [
            [ln.number for ln in f.added_lines] for f in diff.files]
