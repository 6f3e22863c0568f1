"""A merge trusts only what it can check (``secreview report --merge``).

Without the run's key (``SECREVIEW_RUN_KEY``) nothing shows that a shard report was produced by
this run, so none counts as reviewed: each is an unreviewed item, and the merge says how to fix
it. ``--trust-unbound-shards`` merges them unchecked and says so in every output. With the key
or with that opt-in, every group of the split must send exactly one report: a missing group is
unreviewed, a group reported twice or a disagreement on the number of shards is an error.

The shards are real sharded reviews (pytest-split) of a temporary git repository; the forged
report is what a pull request can commit: a copy of a real report that says all passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.cli import report as report_command
from tests.conftest import ReviewRepo
from tests.test_cli import SCRIPT
from tests.test_shards import RUN_KEY, _forged_shard, _review

# the fixture: 14 items (7 files, 2 rules), 3 failing and 11 passing in a single run
from tests.test_shards import project as project

#: The reason every shard report gets when the merge has no key to check it with.
NO_KEY = "not checked against this run: SECREVIEW_RUN_KEY is not set"
UNREVIEWED = "secreview::unreviewed-shard["


def _shard(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, group: int,
           splits: int = 2, *, key: str | None = None) -> Path:
    """Group ``group`` of a real review split into ``splits``, with or without the run's key,
    written outside the checkout (as CI keeps it)."""
    if key is None:
        monkeypatch.delenv("SECREVIEW_RUN_KEY", raising=False)
    else:
        monkeypatch.setenv("SECREVIEW_RUN_KEY", key)
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    out = pytester.path.parent / f"run-{pytester.path.name}" / f"shard-{group}"
    result = _review(pytester, out, "--splits", str(splits), "--group", str(group))
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout
    monkeypatch.delenv("SECREVIEW_RUN_KEY", raising=False)
    return out


def _merge(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str], dirs: list[Path], *args: str,
           key: str | None = None) -> tuple[int, dict[str, Any], str]:
    """``secreview report --merge`` in-process: its status, the merged summary.json (empty on
    exit 2) and everything it printed."""
    monkeypatch.chdir(pytester.path)
    out = pytester.path / "merged"
    shutil.rmtree(out, ignore_errors=True)
    env = {"GITHUB_RUN_ID": "4242"} | ({"SECREVIEW_RUN_KEY": key} if key else {})
    capsys.readouterr()
    status = report_command.main(["--merge", *map(str, dirs), "--out", str(out / "report"),
                                  "--junitxml", str(out / "junit.xml"), *args], env=env)
    printed = capsys.readouterr()
    summary = out / "report" / "summary.json"
    merged = json.loads(summary.read_text()) if status != 2 else {}
    return status, merged, printed.out + printed.err


def _unreviewed(merged: dict[str, Any]) -> list[tuple[str, str]]:
    return [(i["outcome"], i["reason"]) for i in merged["items"]
            if i["nodeid"].startswith(UNREVIEWED)]


def test_without_the_key_a_forged_all_passed_report_is_not_merged_green(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Shard 1 ran (its report is outside the checkout); shard 2 never reported. The directory
    # merged holds what the pull request committed: shard 1's report edited to "all passed".
    real = _shard(pytester, monkeypatch, 1)
    forged = _forged_shard(project, "shard-1", real)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")
           and not k.startswith(("SECREVIEW", "GITHUB"))}
    merged_dir = pytester.path.parent / f"merged-{pytester.path.name}"
    done = subprocess.run(
        [str(SCRIPT), "report", "--merge", str(forged), "--shards", "2",
         "--out", str(merged_dir)], cwd=pytester.path, env=env, capture_output=True, text=True,
        check=False, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    merged = json.loads((merged_dir / "summary.json").read_text())
    assert merged["outcomes"]["passed"] == 0
    assert _unreviewed(merged) == [
        ("failed", f"not reviewed: {forged / 'report' / 'summary.json'}: {NO_KEY}")]
    assert "SECREVIEW_RUN_KEY is not set" in merged["review_kind"]
    # The terminal names the variable and the two ways out.
    assert "SECREVIEW_RUN_KEY is not set" in done.stdout
    assert "set SECREVIEW_RUN_KEY to the key the shards ran with" in done.stdout
    assert "--trust-unbound-shards" in done.stdout
    assert "trusted as they are" not in done.stdout
    summary_md = (merged_dir / "summary.md").read_text()
    assert "SECREVIEW_RUN_KEY is not set" in summary_md


def test_without_the_key_a_real_report_is_skipped_under_warn_never_passed(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = [_shard(pytester, monkeypatch, group) for group in (1, 2)]
    status, merged, printed = _merge(pytester, monkeypatch, capsys, shards,
                                     "--unreviewed", "warn")
    assert status == 0
    assert merged["outcomes"] == {"passed": 0, "failed": 0, "skipped": 2, "error": 0}
    assert [why for _, why in _unreviewed(merged)] == [
        f"not reviewed: {shard / 'report' / 'summary.json'}: {NO_KEY}" for shard in shards]
    assert "no shard report merged" in printed


def test_trusted_unchecked_shards_merge_as_one_run_and_every_output_says_so(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = [_shard(pytester, monkeypatch, group) for group in (1, 2)]
    status, merged, printed = _merge(pytester, monkeypatch, capsys, shards,
                                     "--trust-unbound-shards", "--shards", "2")
    assert status == 1, printed
    assert merged["outcomes"] == {"passed": 11, "failed": 3, "skipped": 0, "error": 0}
    assert _unreviewed(merged) == []
    assert "trusted unchecked (--trust-unbound-shards)" in printed
    assert "merged unchecked" in merged["review_kind"]
    summary_md = (pytester.path / "merged" / "report" / "summary.md").read_text()
    assert "merged unchecked" in summary_md

    # Shard 2 sent nothing: its group is unreviewed, the split read from shard 1's record.
    status, merged, printed = _merge(pytester, monkeypatch, capsys, shards[:1],
                                     "--trust-unbound-shards")
    assert status == 1
    assert ("failed", "not reviewed: shard 2 of 2 sent no report") in _unreviewed(merged)


def test_trusting_unchecked_reports_still_needs_every_group_exactly_once(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = [_shard(pytester, monkeypatch, group) for group in (1, 2)]
    # A forged all-passed report that says nothing of its group covers no group.
    forged = _forged_shard(project, "shard-2", shards[0])
    status, merged, printed = _merge(pytester, monkeypatch, capsys, [shards[0], forged],
                                     "--trust-unbound-shards", "--shards", "2")
    assert status == 1
    assert ("failed", "not reviewed: shard 2 of 2 sent no report") in _unreviewed(merged)
    assert "records no group of the split" in printed

    # A forged report claiming group 2 beside the real group 2: never merged silently.
    record = shards[1] / "report" / "run-binding.json"
    shutil.copy(record, forged / "report" / "run-binding.json")
    status, _, printed = _merge(pytester, monkeypatch, capsys, [*shards, forged],
                                "--trust-unbound-shards")
    assert status == 2
    assert "2 reports claim shard 2 of 2" in printed
    assert str(forged / "report" / "summary.json") in printed

    # Reports that disagree on the number of shards.
    data = json.loads(record.read_text())
    (forged / "report" / "run-binding.json").write_text(
        json.dumps(data | {"splits": 3, "group": 3}))
    status, _, printed = _merge(pytester, monkeypatch, capsys, [*shards, forged],
                                "--trust-unbound-shards")
    assert status == 2 and "disagree on the number of shards (2, 3)" in printed

    # --shards that is not the split the reports record.
    status, _, printed = _merge(pytester, monkeypatch, capsys, shards,
                                "--trust-unbound-shards", "--shards", "3")
    assert status == 2 and "--shards 3" in printed and "split into 2" in printed

    # The key checks what the opt-in would trust: a record written without it binds nothing.
    status, _, printed = _merge(pytester, monkeypatch, capsys, shards, key=RUN_KEY)
    assert status == 2 and "unsigned" in printed


def test_with_the_key_a_group_reported_twice_or_another_split_is_refused(
    pytester: pytest.Pytester, project: ReviewRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = [_shard(pytester, monkeypatch, group, key=RUN_KEY) for group in (1, 2)]
    again = shards[1].parent / "shard-2-again"
    shutil.copytree(shards[1], again)
    status, _, printed = _merge(pytester, monkeypatch, capsys, [*shards, again], key=RUN_KEY)
    assert status == 2 and "2 reports claim shard 2 of 2" in printed
    status, _, printed = _merge(pytester, monkeypatch, capsys, shards, "--shards", "3",
                                key=RUN_KEY)
    assert status == 2 and "--shards 3" in printed

    # With the key, --trust-unbound-shards trusts nothing more: a forged report stays refused.
    forged = _forged_shard(project, "shard-3", shards[0])
    status, merged, printed = _merge(pytester, monkeypatch, capsys, [*shards, forged],
                                     "--trust-unbound-shards", key=RUN_KEY)
    assert status == 1
    reasons = [why for _, why in _unreviewed(merged)]
    assert any("is not a report of this run" in why for why in reasons)
    assert "--trust-unbound-shards has no effect" in printed
    assert "merged unchecked" not in (merged["review_kind"] or "")


def test_trust_unbound_shards_goes_with_merge(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert report_command.main(["--artifacts", str(tmp_path), "--trust-unbound-shards"],
                               env={}) == 2
    assert "--trust-unbound-shards" in capsys.readouterr().err
