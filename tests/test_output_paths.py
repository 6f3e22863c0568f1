"""No output follows a symbolic link: a pull request that commits ``secreview-artifacts``,
the JUnit or JSON report's directory or ``.pytest_cache`` as links to elsewhere gets a clear
refusal before anything is written, and nothing lands outside the directory the user chose."""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_secreview.atomic import UnsafeOutputPath, write_chunks_atomic, write_text_atomic
from pytest_secreview.reporting.artifacts import ArtifactWriter, dump_json
from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]

RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    """
)


@pytest.fixture
def outside(pytester: pytest.Pytester) -> Path:
    """A directory outside the checkout that a committed link points at."""
    target = pytester.path.parent / f"{pytester.path.name}-outside"
    target.mkdir()
    return target


def _pr_with_link(review_repo: Build, link: str, outside: Path) -> ReviewRepo:
    repo = review_repo(rules={"aws": RULE}, pr={"app.py": f"KEY = '{aws_key_id()}'\n"})
    where = repo.path / link
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, where)
    repo.commit("a link where an output goes")
    return repo


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("--secreview", "--base", "main",
                                         "--secreview-rules", "secreview/rules", *args)


@pytest.mark.parametrize(("link", "args"), [
    ("secreview-artifacts", ("-p", "no:cacheprovider")),
    ("reports", ("-p", "no:cacheprovider", "--junitxml=reports/junit.xml")),
    ("out/json", ("-p", "no:cacheprovider", "--json-report",
                  "--json-report-file=out/json/report.json")),
    (".pytest_cache", ()),
])
def test_a_committed_link_where_an_output_goes_is_refused_before_anything_is_written(
    pytester: pytest.Pytester, review_repo: Build, outside: Path, link: str,
    args: tuple[str, ...],
) -> None:
    _pr_with_link(review_repo, link, outside)
    result = _review(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    error = result.stderr.str()
    assert f"{pytester.path / link}" in error and "symbolic link" in error
    assert "outside the checkout" in error, "the message says how to fix it"
    assert list(outside.iterdir()) == [], "nothing was written through the link"


def test_the_merge_command_writes_nothing_through_a_link(
    pytester: pytest.Pytester, review_repo: Build, outside: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_secreview.cli import report as report_command

    _pr_with_link(review_repo, "merged", outside)
    _review(pytester, "-p", "no:cacheprovider", "--secreview-artifacts=../shard")
    monkeypatch.chdir(pytester.path)
    status = report_command.main(["--merge", "../shard", "--out", "merged/report"], env={})
    assert status == 2
    assert "symbolic link" in capsys.readouterr().err
    assert list(outside.iterdir()) == []


def test_the_one_writer_refuses_links_inside_and_replaces_atomically(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    (root / "real").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "linked").symlink_to(elsewhere)
    (root / "real" / "file.json").symlink_to(elsewhere / "victim")
    for target in (root / "linked" / "a" / "x.json", root / "real" / "file.json"):
        with pytest.raises(UnsafeOutputPath, match="symbolic link"):
            write_text_atomic(target, "{}", inside=root)
    assert list(elsewhere.iterdir()) == []
    # A link above the checkout is the user's own choice of directory.
    user_dir = tmp_path / "user-link"
    user_dir.symlink_to(elsewhere)
    write_text_atomic(user_dir / "out.txt", "ok\n", inside=root)
    assert (elsewhere / "out.txt").read_text() == "ok\n"
    written = write_text_atomic(root / "real" / "new" / "y.txt", "a\n", inside=root)
    assert written.read_text() == "a\n" and sorted(p.name for p in written.parent.iterdir()) == [
        "y.txt"]
    plain = root / "real" / "plain.txt"
    plain.write_text("b\n")
    assert written.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777, (
        "the permissions of a plain write, not the temporary file's 0600")


def test_streamed_writes_keep_the_one_writers_promises(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    (root / "real").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "real" / "file.json").symlink_to(elsewhere / "victim")
    with pytest.raises(UnsafeOutputPath, match="symbolic link"):
        write_chunks_atomic(root / "real" / "file.json", iter(["{}"]), inside=root)
    assert list(elsewhere.iterdir()) == []
    target = root / "real" / "out.json"
    target.write_text("old\n")

    def failing() -> Iterator[str]:
        yield "{\n"
        raise ValueError("the encoder gave up")

    with pytest.raises(ValueError, match="gave up"):
        write_chunks_atomic(target, failing(), inside=root)
    # A reader never sees half a file: the old one stays and no temporary file is left.
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.json", "out.json"]
    write_chunks_atomic(target, iter(["é\r\n", "x" * 100_000, "\n"]), inside=root)
    assert target.read_bytes() == "é\r\n".encode() + b"x" * 100_000 + b"\n"


def test_streamed_json_artifacts_are_the_same_redacted_text(tmp_path: Path) -> None:
    # The artifacts and summary.json are encoded piece by piece into the file; what a
    # reader finds is dump_json's text, secrets redacted.
    secret = aws_key_id()
    data = {"findings": [{"title": f"key {secret}", "line": n, "ok": True, "x": None}
                         for n in range(300)], "nested": {"b": [1.5, "\x1b[31mred"], "a": ()}}
    writer = ArtifactWriter(tmp_path / "artifacts", own=True)
    written = writer.write_json("report/summary.json", data)
    text = written.read_text()
    assert text == dump_json(data)
    assert secret not in text and text.endswith("}\n")
    assert json.loads(text)["findings"][299]["line"] == 299
    with pytest.raises(UnsafeOutputPath, match="must stay inside"):
        writer.write_json("../escape.json", data)
