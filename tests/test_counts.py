"""Every output states the same counts: pytest's own lines, the secreview terminal section,
summary.json and summary.md (the PR comment's body) agree on how many items there were, how
they ended, and how many files were not reviewed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_secreview.cli.comment import main as comment_main
from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, Reply

Build = Callable[..., ReviewRepo]

VIEWS = "import subprocess\n\n\ndef run(cmd):\n    subprocess.run(cmd, shell=True)\n"
WORKFLOW = ("on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: echo \"${{ github.event.pull_request.title }}\"\n")


@pytest.fixture
def refusing() -> Iterator[FakeServer]:
    """A provider that refuses every call: the model's items cannot be reviewed."""
    with FakeServers() as running:
        yield running.start(lambda _request: Reply(
            400, {"error": {"message": "model gpt-4.1 does not exist"}}))


@pytest.fixture
def change(review_repo: Build) -> ReviewRepo:
    """A change with reviewed code (a scanner finding), a binary file, a deleted file, a file
    the base's .secreviewignore names, and a workflow."""
    repo = review_repo(
        base={".secreviewignore": "docs/\n", "app/old.py": "x = 1\n"},
        pr={"app/views.py": VIEWS, "docs/guide.md": "# Guide\n", "app/old.py": None,
            ".github/workflows/ci.yml": WORKFLOW})
    (repo.path / "app" / "messages.mo").write_bytes(b"\x00\x01\x02binary")
    repo.commit("a binary catalogue")
    return repo


def _pytest_counts(stdout: str) -> tuple[int, dict[str, int]]:
    """pytest's "collected N items" (or xdist's "[N items]") and its final outcome line."""
    collected = re.search(r"(?:collected (\d+) items?|\[(\d+) items?\])", stdout)
    assert collected is not None, stdout
    total = int(collected.group(1) or collected.group(2))
    final = stdout.strip().splitlines()[-1]
    outcomes = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)",
                                                        final)}
    return total, outcomes


def _terminal_counts(stdout: str) -> tuple[dict[str, int], int]:
    items = re.search(r"^items: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) error$",
                      stdout, re.M)
    assert items is not None, stdout
    unreviewed = re.search(r"^not reviewed: (\d+) ", stdout, re.M)
    return (dict(zip(("passed", "failed", "skipped", "error"), map(int, items.groups()),
                     strict=True)),
            int(unreviewed.group(1)) if unreviewed else 0)


def _markdown_counts(markdown: str) -> tuple[dict[str, int], int]:
    items = re.search(r"Items: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) errors",
                      markdown)
    assert items is not None, markdown
    unreviewed = re.search(r"### ⚠️ Not reviewed \((\d+)\)", markdown)
    return (dict(zip(("passed", "failed", "skipped", "error"), map(int, items.groups()),
                     strict=True)),
            int(unreviewed.group(1)) if unreviewed else 0)


@pytest.mark.parametrize("model", [False, True], ids=["no-model", "model"])
@pytest.mark.parametrize("workers", ["0", "2"])
def test_every_output_states_the_same_counts(
    pytester: pytest.Pytester, change: ReviewRepo, refusing: FakeServer, model: bool,
    workers: str,
) -> None:
    artifacts = pytester.path.parent / "artifacts"
    args = ["--secreview-model", "openai:gpt-4.1", "--secreview-api-base", refusing.url,
            "--secreview-on-error=skip"] if model else []
    result = pytester.runpytest_subprocess(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "-n", workers,
        "--secreview-artifacts", str(artifacts), *args)
    stdout = result.stdout.str()
    collected, pytest_outcomes = _pytest_counts(stdout)
    terminal, terminal_unreviewed = _terminal_counts(stdout)
    summary: dict[str, Any] = json.loads((artifacts / "report" / "summary.json").read_text())
    markdown_outcomes, markdown_unreviewed = _markdown_counts(
        (artifacts / "report" / "summary.md").read_text())

    assert collected == len(summary["items"]) == sum(summary["outcomes"].values())
    assert {k: v for k, v in summary["outcomes"].items() if v} == pytest_outcomes
    assert terminal == summary["outcomes"] == markdown_outcomes
    assert pytest_outcomes.get("skipped", 0) > 0  # the binary file at least
    files = {entry["path"] for entry in summary["not_reviewed"]}
    assert "docs/guide.md" not in files  # ignored: listed apart, never counted unreviewed
    assert terminal_unreviewed == markdown_unreviewed == len(files) > 0
    header = re.search(r", (\d+) not reviewed", (artifacts / "report" /
                                                     "summary.md").read_text())
    assert header is not None and int(header.group(1)) == len(files)
    if model:
        assert any(item["path"] == "(pull request)" for item in summary["items"])


def test_comment_dry_run_after_a_plain_run_prints_the_summary_markdown(
    pytester: pytest.Pytester, change: ReviewRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # A plain `pytest --secreview` run writes no phases/diff.json (the diff holds what the
    # pull request added, secrets included): `secreview comment` reads git's diff again for
    # the range summary.json names, and prints the comment that a whole review would post.
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-artifacts=art")
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "art" / "phases" / "diff.json").exists()
    capsys.readouterr()
    status = comment_main(["--artifacts", "art", "--dry-run", "--pr", "7", "--repo",
                           "acme/shop"], env={})
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "POST https://api.github.com/repos/acme/shop/issues/7/comments" in out
    markdown = out.split("--- the comment, as markdown ---\n", 1)[1]
    assert "\\n" not in markdown.splitlines()[0]  # markdown, not escaped JSON
    summary = json.loads((pytester.path / "art" / "report" / "summary.json").read_text())
    outcomes, unreviewed = _markdown_counts(markdown)
    assert outcomes == summary["outcomes"]  # the PR comment counts as every other output
    assert unreviewed == len({entry["path"] for entry in summary["not_reviewed"]})


def test_comment_after_a_plain_run_refuses_a_moved_head(
    pytester: pytest.Pytester, change: ReviewRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # A push after the run: the stored report is of another head; it is not published.
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-artifacts=art")
    change.write("app/later.py", "x = 2\n")
    change.commit("a later push")
    capsys.readouterr()
    status = comment_main(["--artifacts", "art", "--dry-run", "--pr", "7", "--repo",
                           "acme/shop"], env={})
    _out, err = capsys.readouterr()
    assert status == 2
    assert "summary.json" in err and "run the review again" in err


def test_comment_refuses_a_report_the_pull_request_committed(
    pytester: pytest.Pytester, change: ReviewRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # A "report" committed by the pull request where a plain run writes its own is never
    # published, whatever it says.
    change.write("art/report/summary.json", json.dumps({"outcomes": {"passed": 1}}))
    change.commit("a forged report")
    capsys.readouterr()
    status = comment_main(["--artifacts", "art", "--dry-run", "--pr", "7", "--repo",
                           "acme/shop"], env={})
    out, err = capsys.readouterr()
    assert status == 2
    assert "committed in the checked-out revision" in err and "POST" not in out
