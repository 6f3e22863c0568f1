"""Size and binary tricks (issue 10 item 3): padding a file past the size limit, or adding one
NUL byte so that git calls it binary, must not hide a secret. Such files are scanned by the
deterministic rules line by line from git, listed as not fully reviewed with the reason, fail
on a finding at the threshold and are skipped (never passed) otherwise."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_secreview.diff.parser import parse_diff_text
from pytest_secreview.diff.stream import PIECE_BYTES, ChangedLine, stream_changed_lines
from pytest_secreview.evaluation.deterministic import run_detect, scan_changed_lines
from pytest_secreview.rules.parse import parse_rule
from tests.binaries import png
from tests.conftest import ReviewRepo, aws_key_id
from tests.gitutil import GitRepo

Build = Callable[..., ReviewRepo]

SECRET_RULE = textwrap.dedent(
    """\
    ---
    title: Hard-coded AWS key
    severity: critical
    grep:
      any: ["AKIA"]
    detect:
      - pattern: "AKIA[0-9A-Z]{16}"
        message: AWS access key id in source
    ---
    """
)
NINE_MIB = 9 * 1024 * 1024


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", "-rs", *args)


def report(pytester: pytest.Pytester) -> dict[str, object]:
    path = pytester.path / "secreview-artifacts" / "report" / "summary.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_a_secret_on_the_last_line_of_a_9_mib_file_fails_the_run(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    padding = "x = 1  # generated padding line\n"
    lines = NINE_MIB // len(padding)
    huge = padding * lines + f"KEY = '{aws_key_id()}'\n"
    review_repo(rules={"aws": SECRET_RULE}, pr={"gen/bundle.py": huge})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"gen/bundle.py:{lines + 1}  CRITICAL  AWS access key id in source" in out
    assert "too large to review" in out
    assert aws_key_id() not in out
    not_reviewed = report(pytester)["not_reviewed"]
    assert isinstance(not_reviewed, list)
    assert [n["path"] for n in not_reviewed] == ["gen/bundle.py"]
    assert "too large to review" in not_reviewed[0]["reason"]


def test_a_secret_in_one_9_mib_line_is_found(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("README.md", "x\n")
    repo.commit("base")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write("min.js", "var a='" + "ab" * (NINE_MIB // 2) + f"';k='{aws_key_id()}'")
    repo.commit("pr")
    head = repo.git("rev-parse", "HEAD").strip()
    lines = list(stream_changed_lines(repo.path, base, head, "min.js"))
    assert all(len(line.text.encode()) <= PIECE_BYTES for line in lines)
    assert {line.number for line in lines} == {1}
    rule = parse_rule(SECRET_RULE.encode(), "aws.md")
    findings, cut = scan_changed_lines([rule], "min.js", iter(lines))
    assert [(f.line, f.title) for f in findings] == [(1, "AWS access key id in source")]
    assert not cut


def test_one_nul_byte_does_not_hide_a_secret(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    text = f"import os\n\x00\nKEY = '{aws_key_id()}'\n"
    review_repo(rules={"aws": SECRET_RULE}, pr={"settings.py": text})
    result = run(pytester, "--json-report", "--json-report-file=r.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "settings.py:3  CRITICAL  AWS access key id in source" in out
    assert "binary" in out
    (test,) = json.loads((pytester.path / "r.json").read_text())["tests"]
    meta = test["metadata"]["secreview"]
    assert meta["not_reviewed"].startswith("binary file")
    assert [(f["line"], f["severity"]) for f in meta["findings"]] == [(3, "CRITICAL")]


def test_the_offline_review_reports_what_the_item_reports(review_repo: Build) -> None:
    from pytest_secreview.evaluation.offline import review_range

    repo = review_repo(rules={"aws": SECRET_RULE},
                       pr={"settings.py": f"\x00\nKEY = '{aws_key_id()}'\n"})
    result = review_range(repo.path, "main", rules=["secreview/rules"])
    assert [(f.path, f.line) for f in result.findings] == [("settings.py", 2)]
    assert [p for p, _ in result.not_reviewed] == ["settings.py"]


def test_a_real_image_is_scanned_and_listed_as_not_code(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    # Scanned like any binary file, then not a gap: an image holds no code (tests/
    # test_not_code.py); the same bytes under a name that is not media stay a gap.
    review_repo(rules={"aws": SECRET_RULE}, pr={"img/logo.png": png(),  # type: ignore[dict-item]
                                               "img/logo.bin": png(),  # type: ignore[dict-item]
                                               "app.py": "y = 2\n"})
    result = run(pytester)
    result.assert_outcomes(passed=1, skipped=1)
    out = result.stdout.str()
    assert "img/logo.bin not reviewed: binary file" in out
    data = report(pytester)
    assert data["findings"] == []
    assert [(n["path"], n["reason"].split(" (")[0]) for n in data["not_reviewed"]  # type: ignore[attr-defined]
            ] == [("img/logo.bin", "binary file")]
    assert data["not_code"] == [{"path": "img/logo.png", "content": "PNG image"}]


def test_a_padded_file_without_findings_is_skipped_with_the_reason(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"aws": SECRET_RULE},
                pr={"gen/data.py": "x = 1  # generated\n" * 500_000, "app.py": "y = 2\n"})
    result = run(pytester)
    result.assert_outcomes(skipped=1)
    assert "gen/data.py not reviewed: the file's diff is too large to review" in (
        result.stdout.str())


def test_streamed_scan_agrees_with_the_hunk_scan() -> None:
    rule = parse_rule(textwrap.dedent(
        """\
        ---
        title: streamed
        severity: high
        grep:
          any: ["AKIA", "verify"]
          removed: ["verify=True"]
        detect:
          - pattern: "AKIA[0-9A-Z]{16}"
            message: key
            unless: "EXAMPLE"
          - pattern: "verify=True"
            on: removed
            message: safeguard removed
        ---
        """).encode(), "t.md")
    key = aws_key_id()
    patch = textwrap.dedent(f"""\
        diff --git a/a.py b/a.py
        --- a/a.py
        +++ b/a.py
        @@ -1,3 +1,5 @@
         import x
        -get(url, verify=True)
        -post(url, verify=True)
        +get(url)
        +K = '{key}'
        +E = '{key}'  # EXAMPLE
        +post(url, verify=True)
        """)
    (file,) = parse_diff_text(patch)
    lines = [ChangedLine(True, a.number, a.text) for a in file.added_lines]
    lines += [ChangedLine(False, r.anchor, r.text) for r in file.removed_lines]
    streamed, _ = scan_changed_lines([rule], "a.py", lines)
    assert sorted((f.line, f.title, f.fingerprint) for f in streamed) == sorted(
        (f.line, f.title, f.fingerprint) for f in run_detect(rule, file))


def test_a_path_git_cannot_match_is_a_failed_scan_not_a_clean_one(tmp_path: Path) -> None:
    from pytest_secreview.diff.git import load_diff
    from pytest_secreview.errors import GitError
    from pytest_secreview.evaluation.deterministic import scan_unreviewed

    repo = GitRepo(tmp_path / "r")
    repo.write("README.md", "x\n")
    repo.commit("base")
    name = "bad\udcff.py"  # not valid UTF-8 on disk: the diff's path is decoded with U+FFFD
    (repo.path / name).write_bytes(f"\x00\nKEY = '{aws_key_id()}'\n".encode())
    repo.commit("pr")
    diff = load_diff(repo.path, "HEAD~1")
    (file,) = [f for f in diff.files if f.unreviewed_reason]
    rule = parse_rule(SECRET_RULE.encode(), "aws.md")
    with pytest.raises(GitError, match="printed no changed line"):
        scan_unreviewed(repo.path, diff.base_sha, diff.head_sha, file, [rule])


def test_binary_is_what_git_numstat_calls_binary(tmp_path: Path) -> None:
    from pytest_secreview.diff.git import load_diff

    repo = GitRepo(tmp_path / "r")
    repo.write("README.md", "x\n")
    repo.write("late.txt", "text\n")
    repo.commit("base")
    repo.write("logo.png", png())
    repo.write("nul.py", "a = 1\n\x00\n")
    repo.write("late.txt", "text\n" * 2000 + "\x00\n")  # NUL past git's first 8,000 bytes
    repo.write("plain.py", "b = 2\n")
    repo.write(".gitattributes", "*.py -diff\n")  # the PR's attributes do not decide
    repo.commit("pr")
    numstat = repo.git("diff", "--numstat", "--no-renames", "HEAD~1", "HEAD")
    git_binary = {line.split("\t")[2] for line in numstat.splitlines()
                  if line.startswith("-\t-\t")}
    # numstat in the checkout honours .gitattributes; the review reads git objects only.
    git_binary -= {"plain.py"}
    diff = load_diff(repo.path, "HEAD~1")
    assert {f.path for f in diff.files if f.binary} == git_binary == {"logo.png", "nul.py"}
    late = next(f for f in diff.files if f.path == "late.txt")
    assert late.reviewable and "\x00" in late.added_lines[-1].text  # text with a NUL: reviewed
