"""The diff parser on handcrafted patch text: every header form, quoting, streaming limits."""

from __future__ import annotations

import textwrap
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_secreview.diff.model import ChangeKind, FileDiff
from pytest_secreview.diff.parser import (
    DiffParseError,
    iter_file_diffs,
    parse_diff,
    parse_diff_text,
    unquote_git_path,
)


def patch(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def summary(f: FileDiff) -> dict[str, Any]:
    """The parts of a FileDiff a case can assert on, in plain data."""
    return {
        "path": f.path,
        "old_path": f.old_path,
        "kind": f.kind,
        "binary": f.binary,
        "submodule": f.submodule,
        "too_large": f.too_large,
        "old_mode": f.old_mode,
        "new_mode": f.new_mode,
        "similarity": f.similarity,
        "hunks": len(f.hunks),
        "added": [(ln.number, ln.text) for ln in f.added_lines],
        "removed": [(ln.number, ln.text, ln.anchor) for ln in f.removed_lines],
    }


def check(files: list[FileDiff], expected: list[dict[str, Any]]) -> None:
    assert len(files) == len(expected), [f.path for f in files]
    for f, want in zip(files, expected, strict=True):
        got = summary(f)
        assert {k: got[k] for k in want} == want


CASES = [
    pytest.param(b"", [], id="empty-diff"),
    pytest.param(
        patch("""
            diff --git a/new.py b/new.py
            new file mode 100644
            index 0000000..e69de29
            --- /dev/null
            +++ b/new.py
            @@ -0,0 +1,2 @@
            +import os
            +print(os.name)
        """),
        [{"path": "new.py", "old_path": None, "kind": ChangeKind.ADDED, "new_mode": "100644",
          "added": [(1, "import os"), (2, "print(os.name)")], "removed": []}],
        id="added",
    ),
    pytest.param(
        patch("""
            diff --git a/gone.py b/gone.py
            deleted file mode 100644
            index 1234567..0000000
            --- a/gone.py
            +++ /dev/null
            @@ -1,2 +0,0 @@
            -check_auth()
            -run()
        """),
        [{"path": "gone.py", "kind": ChangeKind.DELETED, "old_mode": "100644", "added": [],
          "removed": [(1, "check_auth()", 1), (2, "run()", 1)]}],
        id="deleted",
    ),
    pytest.param(
        patch("""
            diff --git a/m.py b/m.py
            index 1111111..2222222 100644
            --- a/m.py
            +++ b/m.py
            @@ -3,4 +3,4 @@ def f():
                 a = 1
            -    verify(x)
            +    skip(x)
                 b = 2
                 c = 3
        """),
        [{"path": "m.py", "kind": ChangeKind.MODIFIED, "old_mode": None, "new_mode": None,
          "added": [(4, "    skip(x)")], "removed": [(4, "    verify(x)", 4)]}],
        id="modified",
    ),
    pytest.param(
        patch("""
            diff --git a/old name.py b/new name.py
            similarity index 100%
            rename from old name.py
            rename to new name.py
        """),
        [{"path": "new name.py", "old_path": "old name.py", "kind": ChangeKind.RENAMED,
          "similarity": 100, "hunks": 0}],
        id="renamed-pure-with-spaces",
    ),
    pytest.param(
        patch("""
            diff --git a/src/a.py b/lib/a.py
            similarity index 90%
            rename from src/a.py
            rename to lib/a.py
            index 1111111..2222222 100644
            --- a/src/a.py
            +++ b/lib/a.py
            @@ -1 +1 @@
            -x = 1
            +x = 2
        """),
        [{"path": "lib/a.py", "old_path": "src/a.py", "kind": ChangeKind.RENAMED,
          "similarity": 90, "added": [(1, "x = 2")], "removed": [(1, "x = 1", 1)]}],
        id="renamed-with-change-omitted-counts",
    ),
    pytest.param(
        patch("""
            diff --git a/base.py b/copy.py
            similarity index 95%
            copy from base.py
            copy to copy.py
            index 1111111..2222222 100644
            --- a/base.py
            +++ b/copy.py
            @@ -1,1 +1,2 @@
             x = 1
            +y = 2
        """),
        [{"path": "copy.py", "old_path": "base.py", "kind": ChangeKind.COPIED,
          "similarity": 95, "added": [(2, "y = 2")]}],
        id="copied",
    ),
    pytest.param(
        patch("""
            diff --git a/img one.png b/img one.png
            index 1111111..2222222 100644
            Binary files a/img one.png and b/img one.png differ
        """),
        [{"path": "img one.png", "kind": ChangeKind.MODIFIED, "binary": True, "hunks": 0}],
        id="binary-files-differ-with-spaces",
    ),
    pytest.param(
        patch("""
            diff --git a/logo.png b/logo.png
            new file mode 100644
            index 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111
            GIT binary patch
            literal 12
            TcmZ?wbhEHbRA5kGU|;|M1#SR9

            literal 0
            HcmV?d00001

        """),
        [{"path": "logo.png", "kind": ChangeKind.ADDED, "binary": True, "hunks": 0}],
        id="git-binary-patch",
    ),
    pytest.param(
        patch("""
            diff --git a/run me.sh b/run me.sh
            old mode 100644
            new mode 100755
        """),
        [{"path": "run me.sh", "kind": ChangeKind.MODE_CHANGED, "old_mode": "100644",
          "new_mode": "100755", "hunks": 0}],
        id="mode-only-with-spaces",
    ),
    pytest.param(
        patch("""
            diff --git a/run.sh b/run.sh
            old mode 100644
            new mode 100755
            index 1111111..2222222
            --- a/run.sh
            +++ b/run.sh
            @@ -1 +1 @@
            -echo a
            +echo b
        """),
        [{"path": "run.sh", "kind": ChangeKind.MODIFIED, "old_mode": "100644",
          "new_mode": "100755", "added": [(1, "echo b")]}],
        id="mode-and-content",
    ),
    pytest.param(
        patch("""
            diff --git a/empty file b/empty file
            new file mode 100755
            index 0000000..e69de29
        """),
        [{"path": "empty file", "kind": ChangeKind.ADDED, "new_mode": "100755", "hunks": 0}],
        id="new-empty-executable-with-spaces",
    ),
    pytest.param(
        patch("""
            diff --git a/vendor/lib b/vendor/lib
            new file mode 160000
            index 0000000..1234567
            --- /dev/null
            +++ b/vendor/lib
            @@ -0,0 +1 @@
            +Subproject commit 1234567890abcdef1234567890abcdef12345678
        """),
        [{"path": "vendor/lib", "kind": ChangeKind.ADDED, "submodule": True}],
        id="submodule-added",
    ),
    pytest.param(
        patch("""
            diff --git a/vendor/lib b/vendor/lib
            index 1234567..89abcde 160000
            --- a/vendor/lib
            +++ b/vendor/lib
            @@ -1 +1 @@
            -Subproject commit 1234567890abcdef1234567890abcdef12345678
            +Subproject commit 89abcdef0123456789abcdef0123456789abcdef
        """),
        [{"path": "vendor/lib", "kind": ChangeKind.MODIFIED, "submodule": True}],
        id="submodule-updated",
    ),
    pytest.param(
        patch("""
            diff --git a/vendor/lib b/vendor/lib
            --- a/vendor/lib
            +++ b/vendor/lib
            @@ -1 +1 @@
            -Subproject commit 1234567890abcdef1234567890abcdef12345678
            +Subproject commit 89abcdef0123456789abcdef0123456789abcdef-dirty
        """),
        [{"path": "vendor/lib", "submodule": True}],
        id="submodule-without-modes",
    ),
    pytest.param(
        patch(r"""
            diff --git "a/caf\303\251/na\303\257ve \"q\".py" "b/caf\303\251/na\303\257ve \"q\".py"
            index 1111111..2222222 100644
            --- "a/caf\303\251/na\303\257ve \"q\".py"
            +++ "b/caf\303\251/na\303\257ve \"q\".py"
            @@ -0,0 +1 @@
            +x
        """),
        [{"path": 'café/naïve "q".py', "added": [(1, "x")]}],
        id="quoted-unicode-and-quotes",
    ),
    pytest.param(
        patch(r"""
            diff --git "a/tab\there\\back" "b/tab\there\\back"
            index 1111111..2222222 100644
            --- "a/tab\there\\back"
            +++ "b/tab\there\\back"
            @@ -1 +1 @@
            -a
            +b
        """),
        [{"path": "tab\there\\back", "kind": ChangeKind.MODIFIED}],
        id="quoted-tab-and-backslash",
    ),
    pytest.param(
        patch(r"""
            diff --git "a/new\nline" "b/new\nline"
            new file mode 100644
            index 0000000..e69de29
        """),
        [{"path": "new\nline", "kind": ChangeKind.ADDED}],
        id="quoted-newline-from-git-line",
    ),
    pytest.param(
        patch(r"""
            diff --git "a/\346\274\242 x.bin" b/plain.bin
            similarity index 80%
            rename from "\346\274\242 x.bin"
            rename to plain.bin
            index 1111111..2222222 100644
            Binary files "a/\346\274\242 x.bin" and b/plain.bin differ
        """),
        [{"path": "plain.bin", "old_path": "漢 x.bin", "kind": ChangeKind.RENAMED,
          "binary": True}],
        id="rename-mixed-quoting-binary",
    ),
    pytest.param(
        patch(r"""
            diff --git "a/\346\274\242.bin" "b/\346\274\242.bin"
            index 1111111..2222222 100644
            Binary files "a/\346\274\242.bin" and "b/\346\274\242.bin" differ
        """),
        [{"path": "漢.bin", "binary": True}],
        id="binary-quoted-git-line-only",
    ),
    pytest.param(
        b"diff --git a/sp ace.py b/sp ace.py\nindex 1..2 100644\n"
        b"--- a/sp ace.py\t\n+++ b/sp ace.py\t\n@@ -1 +1 @@\n-a\n+b\n",
        [{"path": "sp ace.py", "added": [(1, "b")]}],
        id="unquoted-space-trailing-tab",
    ),
    pytest.param(
        b"diff --git a/a b/a\n--- a/a\t2024-01-01 00:00:00\n+++ b/a\t2024-01-02 00:00:00\n"
        b"@@ -1 +1 @@\n-a\n+b\n",
        [{"path": "a", "added": [(1, "b")]}],
        id="timestamps-after-tab",
    ),
    pytest.param(
        patch("""
            diff --git a/n.txt b/n.txt
            index 1111111..2222222 100644
            --- a/n.txt
            +++ b/n.txt
            @@ -1,2 +1,2 @@
             a
            -b
            \\ No newline at end of file
            +c
            \\ No newline at end of file
        """),
        [{"path": "n.txt", "added": [(2, "c")], "removed": [(2, "b", 2)]}],
        id="no-newline-markers",
    ),
    pytest.param(
        b"diff --git a/w.txt b/w.txt\nindex 1..2 100644\n--- a/w.txt\n+++ b/w.txt\n"
        b"@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n",
        [{"path": "w.txt", "added": [(2, "B")], "removed": [(2, "b", 2)]}],
        id="crlf-content",
    ),
    pytest.param(
        patch("""
            diff --git a/d.py b/d.py
            index 1111111..2222222 100644
            --- a/d.py
            +++ b/d.py
            @@ -1,3 +0,0 @@
            -a
            -b
            -c
            @@ -10,3 +7,2 @@
             x
            -require_login()
             y
        """),
        [{"path": "d.py", "added": [],
          "removed": [(1, "a", 1), (2, "b", 1), (3, "c", 1), (11, "require_login()", 8)]}],
        id="removal-anchors",
    ),
    pytest.param(
        patch("""
            diff --git a/h.txt b/h.txt
            index 1111111..2222222 100644
            --- a/h.txt
            +++ b/h.txt
            @@ -1,3 +1,3 @@
            --- a/other
            +++ b/other
            -diff --git a/x b/x
            +@@ -1 +1 @@
             index 0..1
        """),
        [{"path": "h.txt", "added": [(1, "++ b/other"), (2, "@@ -1 +1 @@")],
          "removed": [(1, "-- a/other", 1), (2, "diff --git a/x b/x", 2)]}],
        id="body-lines-that-look-like-headers",
    ),
    pytest.param(
        b"diff --git a/e.py b/e.py\n--- a/e.py\n+++ b/e.py\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
        [{"path": "e.py", "added": [(3, "c")], "removed": [(3, "b", 3)]}],
        id="blank-context-line-without-space",
    ),
    pytest.param(
        patch("""
            From 1234 Mon Sep 17 00:00:00 2001
            Subject: [PATCH] change

            ---
             a | 1 +
            diff --git a/a b/a
            --- a/a
            +++ b/a
            @@ -0,0 +1 @@
            +x
        """),
        [{"path": "a", "added": [(1, "x")]}],
        id="email-preamble-ignored",
    ),
    pytest.param(
        b"diff --git a/u b/u\n--- a/u\n+++ b/u\n@@ -0,0 +1 @@\n+caf\xc3\xa9 \xff\n",
        [{"path": "u", "added": [(1, "café \ufffd")]}],
        id="invalid-utf8-replaced",
    ),
    pytest.param(
        b"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n"
        b"diff --git a/b b/b\ndeleted file mode 100644\n--- a/b\n+++ /dev/null\n"
        b"@@ -1 +0,0 @@\n-z\n",
        [{"path": "a", "kind": ChangeKind.MODIFIED}, {"path": "b", "kind": ChangeKind.DELETED}],
        id="two-files",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_parse_cases(text: bytes, expected: list[dict[str, Any]]) -> None:
    check(parse_diff_text(text), expected)


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_chunking_does_not_change_the_result(text: bytes, expected: list[dict[str, Any]]) -> None:
    whole = parse_diff_text(text)
    for size in (1, 2, 7, 64):
        assert parse_diff(text[i:i + size] for i in range(0, len(text), size)) == whole
    assert parse_diff(text.splitlines(keepends=True)) == whole
    assert parse_diff_text(text.decode("utf-8", "surrogateescape")) == whole


def test_hunk_text_is_verbatim_and_header_is_the_at_line() -> None:
    text = (b"diff --git a/w b/w\n--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@ def f():\n"
            b" a\r\n-b\r\n+B\r\n\\ No newline at end of file\n")
    (f,) = parse_diff_text(text)
    (hunk,) = f.hunks
    assert hunk.header == "@@ -1,2 +1,2 @@ def f():"
    assert hunk.text == text.split(b"+++ b/w\n")[1].decode()
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (1, 2, 1, 2)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("plain/path.py", "plain/path.py", id="unquoted"),
        pytest.param('"caf\\303\\251"', "café", id="octal-utf8"),
        pytest.param('"\\346\\274\\242\\345\\255\\227"', "漢字", id="octal-cjk"),
        pytest.param('"a\\tb\\nc\\"d\\\\e"', 'a\tb\nc"d\\e', id="c-escapes"),
        pytest.param('"\\a\\b\\v\\f\\r"', "\a\b\v\f\r", id="control-escapes"),
        pytest.param('"\\377x"', "\ufffdx", id="invalid-utf8-byte"),
        pytest.param(b'"sp ace"', "sp ace", id="bytes-input"),
    ],
)
def test_unquote_git_path(raw: str | bytes, expected: str) -> None:
    assert unquote_git_path(raw) == expected


@pytest.mark.parametrize(
    ("text", "match"),
    [
        pytest.param(b"diff --git a/x b/x\n@@ nonsense @@\n", "malformed hunk header",
                     id="malformed-hunk-header"),
        pytest.param(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n",
                     "ended inside hunk", id="truncated-at-eof"),
        pytest.param(b"diff --git a/x b/x\n@@ -1,2 +1,2 @@\n a\ndiff --git a/y b/y\n",
                     "ended early", id="truncated-by-next-file"),
        pytest.param(b"diff --git a/x b/x\n@@ -1 +1 @@\n+a\n+b\n", "ended early",
                     id="more-lines-than-header"),
        pytest.param(b'diff --git a/x b/x\nrename from "open\n', "unterminated",
                     id="unterminated-quote"),
        pytest.param(b"diff --git \nindex 1..2\n", "paths", id="no-paths"),
        pytest.param(b'"unterminated', "unterminated", id="unquote-unterminated"),
    ],
)
def test_malformed_input_raises_diff_parse_error(text: bytes, match: str) -> None:
    with pytest.raises(DiffParseError, match=match) as info:
        if text.startswith(b'"'):
            unquote_git_path(text)
        else:
            parse_diff_text(text)
    assert isinstance(info.value, ValueError)


def test_max_file_bytes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        parse_diff_text(b"", max_file_bytes=0)


def _big_patch(n_lines: int) -> bytes:
    body = b"".join(b"+line %d\n" % i for i in range(n_lines))
    return (b"diff --git a/big b/big\nnew file mode 100644\n--- /dev/null\n+++ b/big\n"
            b"@@ -0,0 +1,%d @@\n" % n_lines + body +
            b"diff --git a/small b/small\n--- a/small\n+++ b/small\n@@ -1 +1 @@\n-a\n+b\n")


def test_file_over_the_limit_is_too_large_and_the_next_file_is_intact() -> None:
    files = parse_diff_text(_big_patch(5000), max_file_bytes=10_000)
    check(files, [
        {"path": "big", "kind": ChangeKind.ADDED, "too_large": True, "hunks": 0,
         "new_mode": "100644"},
        {"path": "small", "too_large": False, "added": [(1, "b")]},
    ])
    assert not files[0].reviewable


def test_file_at_the_limit_is_kept() -> None:
    text = _big_patch(50)
    big_section = text.split(b"diff --git a/small")[0]
    files = parse_diff_text(text, max_file_bytes=len(big_section))
    assert not files[0].too_large
    assert len(files[0].added_lines) == 50
    assert parse_diff_text(text, max_file_bytes=len(big_section) - 1)[0].too_large


def _one_huge_line(total: int, piece: int) -> Iterator[bytes]:
    yield b"diff --git a/min.js b/min.js\n--- a/min.js\n+++ b/min.js\n@@ -1 +1 @@\n-x\n+"
    for _ in range(total // piece):
        yield b"a" * piece
    yield b"\ndiff --git a/after b/after\n--- a/after\n+++ b/after\n@@ -1 +1 @@\n-a\n+b\n"


def test_a_huge_single_line_is_streamed_not_buffered() -> None:
    tracemalloc.start()
    try:
        files = parse_diff(_one_huge_line(20 * 1024 * 1024, 256 * 1024),
                           max_file_bytes=1024 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    check(files, [{"path": "min.js", "too_large": True, "hunks": 0},
                  {"path": "after", "added": [(1, "b")]}])
    assert peak < 4 * 1024 * 1024


def test_huge_line_in_one_chunk_is_handled() -> None:
    text = b"".join(_one_huge_line(3 * 1024 * 1024, 1024 * 1024))
    files = parse_diff_text(text, max_file_bytes=1024 * 1024)
    check(files, [{"path": "min.js", "too_large": True}, {"path": "after", "too_large": False}])


def test_iter_file_diffs_yields_files_while_streaming() -> None:
    seen: list[str] = []

    def chunks() -> Iterator[bytes]:
        for i in range(3):
            yield b"diff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n@@ -0,0 +1 @@\n+x\n" % ((i,) * 4)
            # Pad so that the parser's batching (64 KiB) flushes between files.
            yield b"diff --git a/pad%d b/pad%d\nnew file mode 100644\n" % (i, i) + b"\n" * 70000
            seen.append(f"sent{i}")

    order = []
    for f in iter_file_diffs(chunks()):
        order.append((f.path, len(seen)))
    # Each file comes out before the producer has sent the rest of the stream.
    assert order == [("f0", 0), ("pad0", 1), ("f1", 1), ("pad1", 2), ("f2", 2), ("pad2", 3)]


# -- fuzzing ------------------------------------------------------------------------------

_FRAGMENTS = [
    "diff --git a/x b/x", 'diff --git "a/\\303\\251" b/y', "diff --git a/s p b/s p",
    "--- a/x", "+++ b/x", "--- /dev/null", "+++ /dev/null", '--- "a/q\\"', "@@ -1 +1 @@",
    "@@ -0,0 +1,2 @@", "@@ -1,2 +0,0 @@ f", "@@ -1,1 +1,1 @@", "+added", "-removed",
    " context", "", "\\ No newline at end of file", "new file mode 100644",
    "deleted file mode 160000", "old mode 100644", "new mode 100755", "similarity index 50%",
    "rename from a b", 'rename to "\\t"', "copy from c", "copy to d", "index 1..2 160000",
    "Binary files a/x and b/x differ", "GIT binary patch", "literal 5", "+Subproject commit 1",
    "\r", "+a\r",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400),
    st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("\n".join),
))
def test_fuzz_parse_returns_files_or_raises_diff_parse_error(text: str | bytes) -> None:
    try:
        files = parse_diff_text(text, max_file_bytes=64)
    except DiffParseError:
        return
    assert isinstance(files, list)
    for f in files:
        assert isinstance(f, FileDiff) and f.path
        for line in f.added_lines + f.removed_lines:
            assert line.anchor >= 1 and not line.text.endswith("\r")
