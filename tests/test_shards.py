"""A review sharded across machines with pytest-split, merged back into one report: the
shards cover every item exactly once and the merge says what one run says."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.errors import ConfigError
from pytest_secreview.reporting.merge import (
    find_shard_files,
    load_report,
    merge_junit,
    merge_reports,
    write_durations,
)
from tests.binaries import png
from tests.conftest import DEBUG_RULE, ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]

SECRET_RULE = textwrap.dedent(
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
def project(review_repo: Build) -> ReviewRepo:
    files = {f"svc/m{i}.py": (f"KEY = '{aws_key_id()}'\n" if i % 3 == 0 else "debug = True\n")
             for i in range(7)}
    return review_repo(rules={"aws": SECRET_RULE, "debug": DEBUG_RULE},
                       base={".gitignore": "out/\n"}, pr=files)


def _review(pytester: pytest.Pytester, out: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "--secreview-rules", "secreview/rules",
        "-p", "no:cacheprovider", f"--secreview-artifacts={out}", f"--junitxml={out}/junit.xml",
        *args)


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    for item in report["items"]:
        item.pop("duration")
    return report


def test_three_shards_cover_every_item_once_and_merge_to_the_single_run(
    pytester: pytest.Pytester, project: ReviewRepo
) -> None:
    single = pytester.path / "out" / "single"
    _review(pytester, single).assert_outcomes(failed=3, passed=11)
    shard_dirs = []
    for group in (1, 2, 3):
        out = pytester.path / "out" / f"shard-{group}"
        result = _review(pytester, out, "--splits", "3", "--group", str(group))
        assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout
        shard_dirs.append(out)

    files = find_shard_files(shard_dirs)
    reports = [load_report(p) for p in files.summaries]
    ran = [item.nodeid for r in reports for item in r.items]
    assert len(ran) == len(set(ran)) == 14, "every item in exactly one shard"
    assert all(r.items for r in reports), "pytest-split gave every shard work"

    merged = merge_reports(reports, files.summaries)
    expected = json.loads((single / "report" / "summary.json").read_text())
    assert _comparable(merged.model_dump(mode="json")) == _comparable(expected)

    junit = merge_junit(files.junit).getroot()
    suite = junit.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("14", "3", "0")
    single_junit = ET.parse(single / "junit.xml")  # noqa: S314 - written by the test's own run
    single_cases = {c.get("name") for c in single_junit.getroot().iter("testcase")}
    assert {c.get("name") for c in suite.iter("testcase")} == single_cases


def test_durations_from_the_review_steer_the_next_split(
    pytester: pytest.Pytester, project: ReviewRepo
) -> None:
    out = pytester.path / "out" / "history"
    _review(pytester, out).assert_outcomes(failed=3, passed=11)
    durations = json.loads((out / "report" / "durations.json").read_text())
    assert len(durations) == 14 and all(isinstance(v, float) for v in durations.values())
    # A history in which one item is very slow: pytest-split gives it a shard of its own.
    slow = sorted(durations)[0]
    history = pytester.path / "out" / "history.json"
    history.write_text(json.dumps({k: (100.0 if k == slow else 1.0) for k in durations}))
    result = _review(pytester, pytester.path / "out" / "g1", "--splits", "2", "--group", "1",
                     f"--durations-path={history}", "--collect-only", "-q")
    listed = [line for line in result.stdout.lines if "::" in line]
    assert listed == [slow]


def test_merged_durations_keep_history_for_items_not_run(tmp_path: Path,
                                                         pytester: pytest.Pytester,
                                                         project: ReviewRepo) -> None:
    out = pytester.path / "out" / "one"
    _review(pytester, out, "-k", "m0").assert_outcomes(failed=1, passed=1, deselected=12)
    report = load_report(out / "report" / "summary.json")
    previous = tmp_path / "old.json"
    previous.write_text(json.dumps({"gone::item": 3.0}))
    target = tmp_path / "new.json"
    write_durations(report, target, previous)
    data = json.loads(target.read_text())
    assert data["gone::item"] == 3.0 and len(data) == 3


def test_shards_of_different_reviews_are_refused(pytester: pytest.Pytester,
                                                 project: ReviewRepo) -> None:
    out = pytester.path / "out" / "a"
    _review(pytester, out).assert_outcomes(failed=3, passed=11)
    report = load_report(out / "report" / "summary.json")
    other = report.model_copy(update={"head_sha": "0" * 40})
    with pytest.raises(ConfigError, match="head_sha"):
        merge_reports([report, other], [Path("a/summary.json"), Path("b/summary.json")])


def test_no_summary_is_an_actionable_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--secreview-report"):
        find_shard_files([tmp_path])


def test_merge_command_posts_one_comment_and_writes_one_of_each(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_secreview.cli import report as report_command
    from tests.fake_github import FakeGitHub, make_token

    shards = []
    monkeypatch.setenv("SECREVIEW_RUN_KEY", RUN_KEY)  # made by the run's first job
    for group in (1, 2, 3):
        out = pytester.path / "out" / f"shard-{group}"
        _review(pytester, out, "--splits", "3", "--group", str(group), "--secreview-comment=off")
        shards.append(str(out))
    monkeypatch.delenv("SECREVIEW_RUN_KEY")
    token = make_token()
    patches = {}
    for path in (f"svc/m{i}.py" for i in range(7)):
        text = project.git("diff", "main...HEAD", "--", path)
        patches[path] = text[text.index("@@"):]
    head = project.git("rev-parse", "HEAD").strip()
    monkeypatch.chdir(pytester.path)
    merged = pytester.path / "merged"
    with FakeGitHub(token=token, files=patches, head_sha=head) as github:
        env = {"GITHUB_TOKEN": token, "GITHUB_API_URL": github.api_url,
               "GITHUB_REPOSITORY": github.repository, "SECREVIEW_RUN_KEY": RUN_KEY}
        status = report_command.main(
            ["--merge", *shards, "--out", str(merged / "report"), "--pr", str(github.number),
             "--junitxml", str(merged / "junit.xml"), "--sarif", str(merged / "r.sarif"),
             "--comment", "all"], env=env)
        assert status == 1, "failed items make the merge step fail"
        assert len(github.summary_comments()) == 1
        assert "AWS access key id in source" in github.summary_comments()[0]["body"]
        assert len(github.review_comments) == 7, "one inline comment per notable finding"
    printed = capsys.readouterr().out
    assert "merged 3 shard report(s): 14 item(s)" in printed
    sarif = json.loads((merged / "r.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 7
    assert (merged / "report" / "summary.md").is_file()
    assert (merged / "report" / "durations.json").is_file()
    junit = ET.parse(merged / "junit.xml").getroot()  # noqa: S314 - written by the command
    assert sum(1 for _ in junit.iter("testcase")) == 14


def test_merge_command_refuses_a_directory_without_reports(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    from pytest_secreview.cli import report as report_command

    assert report_command.main(["--merge", str(tmp_path)], env={}) == 2
    assert "no summary.json found" in capsys.readouterr().err


def test_the_hardened_command_shards_too(pytester: pytest.Pytester, project: ReviewRepo) -> None:
    from tests.test_cli import secreview

    seen: list[str] = []
    for group in ("1", "2"):
        out = pytester.path / "out" / f"cmd-{group}"
        done = secreview(pytester.path, "--base", "main", "--secreview-rules", "secreview/rules",
                         "--splits", "2", "--group", group, f"--secreview-artifacts={out}")
        assert done.returncode in (0, 1), done.stdout + done.stderr
        seen += [i.nodeid for i in load_report(out / "report" / "summary.json").items]
    assert sorted(seen) == sorted(set(seen)) and len(seen) == 14


# -- only reports this run produced are merged ------------------------------------------------

RUN_KEY = "0123456789abcdef" * 4


def _merge(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, dirs: list[Path],
           *args: str, key: str | None = RUN_KEY) -> tuple[int, dict[str, Any]]:
    from pytest_secreview.cli import report as report_command

    monkeypatch.chdir(pytester.path)
    out = pytester.path / "merged"
    env = {"GITHUB_RUN_ID": "4242"} | ({"SECREVIEW_RUN_KEY": key} if key else {})
    status = report_command.main(["--merge", *map(str, dirs), "--out", str(out / "report"),
                                  "--junitxml", str(out / "junit.xml"),
                                  "--sarif", str(out / "r.sarif"), *args], env=env)
    merged = json.loads((out / "report" / "summary.json").read_text()) if status != 2 else {}
    return status, merged


def _bound_shard(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, group: int,
                 splits: int = 2) -> Path:
    monkeypatch.setenv("SECREVIEW_RUN_KEY", RUN_KEY)
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    out = pytester.path.parent / f"run-{pytester.path.name}" / f"shard-{group}"
    _review(pytester, out, "--splits", str(splits), "--group", str(group))
    monkeypatch.delenv("SECREVIEW_RUN_KEY")
    return out


def _forged_shard(project: ReviewRepo, name: str, like: Path) -> Path:
    """What a pull request commits: a shard directory whose report (copied from a real one
    under ``like``, same range and threshold) says all passed."""
    genuine = load_report(next(like.rglob("summary.json")))
    forged = genuine.model_copy(update={
        "items": [], "findings": [], "not_reviewed": [],
        "outcomes": {"passed": 0, "failed": 0, "skipped": 0, "error": 0}})
    project.write(f"{name}/report/summary.json", forged.model_dump_json())
    project.write(f"{name}/junit.xml", '<testsuite name="pytest" tests="0"></testsuite>')
    project.commit("forged shard report")
    return project.path / name


def test_a_shard_report_committed_by_the_pull_request_is_never_merged(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Shard 1's review step failed; its directory holds only what the pull request committed.
    genuine = _bound_shard(pytester, monkeypatch, 2)
    forged = _forged_shard(project, "shard-1", genuine)
    status, merged = _merge(pytester, monkeypatch, [forged, genuine], "--shards", "2")
    assert status == 1, "a missing shard fails the merge step"
    unreviewed = [i for i in merged["items"] if i["nodeid"].startswith("secreview::unreviewed")]
    assert {i["outcome"] for i in unreviewed} == {"failed"}
    assert any("shard 1 of 2 sent no report of this run" in i["reason"] for i in unreviewed)
    assert any("summary.json is not a report of this run" in i["reason"] for i in unreviewed)
    assert merged["outcomes"]["failed"] >= 2
    assert {n["path"] for n in merged["not_reviewed"]} >= {"(shard 1 of 2)"}


def test_only_forged_reports_is_an_error_not_a_green_merge(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real = pytester.path / "out" / "real"
    _review(pytester, real)  # the PR's author copies a real report
    forged = _forged_shard(project, "shard-1", real)
    status, _ = _merge(pytester, monkeypatch, [forged])
    assert status == 2
    assert "no shard report of this run to merge" in capsys.readouterr().err
    assert not (pytester.path / "merged" / "r.sarif").exists()


def test_a_missing_shard_is_skipped_under_warn_never_passed(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    genuine = _bound_shard(pytester, monkeypatch, 1)
    status, merged = _merge(pytester, monkeypatch, [genuine], "--unreviewed", "warn")
    missing = [i for i in merged["items"] if i["nodeid"].startswith("secreview::unreviewed")]
    assert [i["outcome"] for i in missing] == ["skipped"], "the split is read from the binding"
    assert status == 1, "shard 1's own failed items still fail the merge"


def test_bound_shards_merge_to_the_single_run_and_a_forged_junit_is_ignored(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    single = pytester.path / "out" / "single"
    _review(pytester, single).assert_outcomes(failed=3, passed=11)
    shards = [_bound_shard(pytester, monkeypatch, g) for g in (1, 2)]
    # A JUnit file beside a bound report that its binding does not name: not merged.
    (shards[0] / "extra.xml").write_text(
        '<testsuite name="pytest"><testcase classname="x" name="forged"/></testsuite>')
    status, merged = _merge(pytester, monkeypatch, shards)
    expected = json.loads((single / "report" / "summary.json").read_text())
    assert status == 1
    assert _comparable(merged) == _comparable(expected)
    junit = ET.parse(pytester.path / "merged" / "junit.xml").getroot()  # noqa: S314
    assert sum(1 for _ in junit.iter("testcase")) == 14
    assert "forged" not in {c.get("name") for c in junit.iter("testcase")}


def test_a_binding_from_another_key_or_an_edited_summary_is_refused(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    shard = _bound_shard(pytester, monkeypatch, 1, splits=1)
    status, _ = _merge(pytester, monkeypatch, [shard], key="f" * 64)
    assert status == 2, "another run's key binds nothing"
    summary = shard / "report" / "summary.json"
    summary.write_text(summary.read_text().replace('"failed"', '"passed"'))
    assert _merge(pytester, monkeypatch, [shard])[0] == 2


def test_the_merge_keeps_what_the_shards_listed_as_not_code(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    """An image is scanned for credentials in one shard and listed as not code: the merged
    report lists it as the single run does, and counts it nowhere as a gap."""
    repo = review_repo(rules={"debug": DEBUG_RULE}, base={".gitignore": "out/\n"},
                       pr={"svc/a.py": "debug = True\n", "svc/b.py": "debug = True\n"})
    repo.write("static/logo.png", png())
    repo.commit("add the logo")
    single = pytester.path / "out" / "single"
    _review(pytester, single)
    expected = json.loads((single / "report" / "summary.json").read_text())
    assert expected["not_code"] == [{"path": "static/logo.png", "content": "PNG image"}]
    shards = [pytester.path / "out" / f"shard-{group}" for group in (1, 2)]
    for group, out in enumerate(shards, start=1):
        _review(pytester, out, "--splits", "2", "--group", str(group))
    files = find_shard_files(shards)
    merged = merge_reports([load_report(p) for p in files.summaries], files.summaries)
    assert [n.model_dump() for n in merged.not_code] == expected["not_code"]
    assert not merged.not_reviewed
