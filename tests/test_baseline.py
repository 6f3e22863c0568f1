"""The baseline (issue 13, item 3): ``--secreview-baseline FILE`` mutes known findings by
fingerprint (kept in every report as suppressed, SARIF kind ``external`` with the note), and
``--secreview-baseline-update`` writes the current findings into it, keeping the notes. A
baseline inside the repository is read from the base revision: a pull request cannot mute
its own findings by editing it."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_secreview.core.findings import context_fingerprint, fingerprint
from tests.conftest import ReviewRepo, aws_key_id
from tests.test_sarif import _errors, validator
from tests.test_unreviewed_files import SECRET_RULE

__all__ = ["validator"]  # the SARIF schema fixture, reused

Build = Callable[..., ReviewRepo]

DANGER = textwrap.dedent("""\
    ---
    title: Dangerous call
    severity: critical
    applies_to:
      file_extensions: [".py"]
    detect:
      - pattern: "dangerous\\\\("
        message: A dangerous call
    ---
    """)
CALL = "result = dangerous(x)"


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", "--secreview-sarif=o.sarif",
                              *args)


def _summary(pytester: pytest.Pytester) -> dict[str, Any]:
    path = pytester.path / "secreview-artifacts/report/summary.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _entry(path: str, note: str, text: str = CALL) -> dict[str, Any]:
    """An entry for the line ``text`` at the top level of ``path`` (no enclosing function)."""
    line = fingerprint("danger", path, text)
    return {"fingerprint": line, "context": context_fingerprint(line, ""), "rule": "danger",
            "path": path, "note": note}


def _write(path: Path, *entries: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "findings": list(entries)}))


def test_round_trip_update_then_a_line_shift_is_quiet(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
    validator: jsonschema.Draft4Validator,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"  # outside the repository
    _write(baseline, {**_entry("app/other.py", "kept: other file"), "fingerprint": "f" * 32})
    repo = review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"x = 1\n{CALL}\n"})
    first = _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    first.assert_outcomes(failed=1)  # the update records; it does not mute this run
    assert "baseline: 2 accepted finding(s) written" in first.stdout.str()
    written = json.loads(baseline.read_text())
    assert written["version"] == 1
    new, old = written["findings"]  # sorted by path: app/jobs.py, then app/other.py
    assert (new["path"], new["rule"], new["line"], new["note"]) == ("app/jobs.py", "danger", 2, "")
    assert new["fingerprint"] == fingerprint("danger", "app/jobs.py", CALL)
    assert old["note"] == "kept: other file"  # not reviewed in this run: kept as it was
    new["note"] = "accepted in SEC-7: x is a constant"
    baseline.write_text(json.dumps(written))

    # The pull request moves the call three lines down: the fingerprint still matches.
    repo.write("app/jobs.py", f"import os\n\n\n\nx = 1\n{CALL}\n")
    (pytester.path / "o.sarif").unlink()  # an output of the first run, not the change
    repo.commit("shift")
    second = _review(pytester, f"--secreview-baseline={baseline}")
    second.assert_outcomes(passed=1)
    assert "suppressed: 0 inline, 1 baseline" in second.stdout.str()
    (finding,) = _summary(pytester)["findings"]
    assert (finding["line"], finding["suppression"]) == (6, "baseline")
    assert finding["suppression_reason"] == "accepted in SEC-7: x is a constant"
    sarif = json.loads((pytester.path / "o.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["suppressions"] == [
        {"kind": "external", "status": "accepted",
         "justification": "accepted in SEC-7: x is a constant"}]
    assert _errors(validator, sarif) == []

    # Updating again keeps the note and the line follows the code.
    _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    again = json.loads(baseline.read_text())["findings"][0]
    assert (again["line"], again["note"]) == (6, "accepted in SEC-7: x is a constant")


def test_an_entry_the_review_no_longer_finds_is_dropped_on_update(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    # Same rule and file as this review's item, but a line that is gone: a stale entry.
    _write(baseline, _entry("app/jobs.py", "old", text="result = dangerous(y)"))
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    (entry,) = json.loads(baseline.read_text())["findings"]
    assert entry["fingerprint"] == fingerprint("danger", "app/jobs.py", CALL)


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", "not valid JSON (line 1, column 2"),
    ('{"version": 2, "findings": []}', "key version: Input should be 1 (value 2)"),
    ('{"version": 1, "findings": [{"rule": "danger", "path": "a.py", "note": ""}]}',
     "key findings[0].fingerprint: Field required"),
    ('{"version": 1, "findings": [{"fingerprint": "ab", "rule": "danger", "path": "a.py", '
     '"notes": "typo"}]}', "key findings[0].notes: Extra inputs are not permitted"),
])
def test_a_malformed_baseline_is_a_usage_error_naming_file_key_and_fix(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
    content: str, expected: str,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    baseline.write_text(content)
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    result = _review(pytester, f"--secreview-baseline={baseline}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"baseline {baseline}" in err and expected in err, err
    assert '"fingerprint"' in err or "delete it" in err  # says what a valid file looks like


def test_a_missing_baseline_outside_the_repository_is_a_usage_error(
    pytester: pytest.Pytester, review_repo: Build, tmp_path: Path,
) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    result = _review(pytester, f"--secreview-baseline={tmp_path / 'nope.json'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "does not exist. Create it with --secreview-baseline-update" in result.stderr.str()


def test_update_needs_a_baseline_file(pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    result = _review(pytester, "--secreview-baseline-update")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--secreview-baseline-update needs the file" in result.stderr.str()


def test_a_baseline_in_the_repository_is_read_from_the_base_revision(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    accepted = _entry("app/jobs.py", "accepted by the security team")
    repo = review_repo(rules={"danger": DANGER})  # base: the baseline and no finding yet
    repo.git("checkout", "-q", "main")
    _write(repo.path / ".secreview/baseline.json", accepted)
    repo.commit("baseline on main")
    repo.git("checkout", "-q", "pr")
    repo.git("merge", "-q", "main")
    repo.write("app/jobs.py", f"{CALL}\n")
    repo.commit("pull request")
    result = _review(pytester, "--secreview-baseline=.secreview/baseline.json")
    result.assert_outcomes(passed=1)
    (finding,) = _summary(pytester)["findings"]
    assert finding["suppression_reason"] == "accepted by the security team"


def test_a_pull_request_cannot_mute_its_own_finding_by_editing_the_baseline(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER},
                base={".secreview/baseline.json": json.dumps({"version": 1, "findings": []})},
                pr={"app/jobs.py": f"{CALL}\n", ".secreview/baseline.json": json.dumps(
                    {"version": 1, "findings": [_entry("app/jobs.py", "trust me")]})})
    result = _review(pytester, "--secreview-baseline=.secreview/baseline.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "this pull request changes it; the base revision's was used" in out
    (finding,) = _summary(pytester)["findings"]
    assert finding["suppression"] is None


def test_a_pull_request_cannot_add_a_baseline_for_its_own_findings(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n", "baseline.json":
                                              json.dumps({"version": 1, "findings": [
                                                  _entry("app/jobs.py", "trust me")]})})
    result = _review(pytester, "--secreview-baseline=baseline.json")
    result.assert_outcomes(failed=1)
    assert "is not in the base revision: a pull request cannot add a baseline" in (
        result.stdout.str())


def test_the_baseline_comes_before_a_suppression_the_pull_request_adds(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # The comment would await a maintainer at CRITICAL; the base's baseline already holds.
    text = f"{CALL}  # secreview: ignore[danger] x is a constant"
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    _write(baseline, _entry("app/jobs.py", "in the baseline", text=text))
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": text + "\n"})
    _review(pytester, f"--secreview-baseline={baseline}").assert_outcomes(passed=1)
    (finding,) = _summary(pytester)["findings"]
    assert (finding["suppression"], finding["suppression_reason"]) == ("baseline",
                                                                       "in the baseline")
    assert finding["overruled"] == ""


def test_the_baseline_mutes_a_finding_in_a_file_git_calls_binary(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    line = f"KEY = '{aws_key_id()}'"
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    _write(baseline, {"fingerprint": fingerprint("aws", "settings.py", line), "rule": "aws",
                      "path": "settings.py", "note": "a revoked test key"})
    review_repo(rules={"aws": SECRET_RULE}, pr={"settings.py": f"import os\n\x00\n{line}\n"})
    result = _review(pytester, f"--secreview-baseline={baseline}")
    result.assert_outcomes(skipped=1)  # not failing: the unreviewed policy (warn) decides
    (finding,) = _summary(pytester)["findings"]
    assert (finding["line"], finding["suppression"]) == (3, "baseline")


def test_a_baseline_path_in_the_repository_that_names_no_file_is_a_usage_error(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    result = _review(pytester, "--secreview-baseline=.secreview/baselin.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "exists neither in the base revision nor on disk" in result.stderr.str()


def test_a_symlink_the_pull_request_adds_cannot_point_the_baseline_outside(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "mute.json"
    _write(outside, _entry("app/jobs.py", "trust me"))
    repo = review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    (repo.path / ".secreview").mkdir()
    (repo.path / ".secreview/baseline.json").symlink_to(outside)
    repo.commit("a baseline that points elsewhere")
    result = _review(pytester, "--secreview-baseline=.secreview/baseline.json")
    # The finding stands; the link that leaves the repository is itself an unreviewed item.
    result.assert_outcomes(failed=1, skipped=1)
    assert "is not in the base revision" in result.stdout.str()
    assert "symlink leaves the repository" in result.stdout.str()


# ------------------------------------------------- review findings (new-user walkthrough)

def test_identical_lines_are_one_entry_each_and_a_new_identical_line_is_reported(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    repo = review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n{CALL}\n"})
    _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    entries = json.loads(baseline.read_text())["findings"]
    assert [e["line"] for e in entries] == [1, 2]
    assert len({e["fingerprint"] for e in entries}) == 2
    # Still quiet after a line shift; a third identical line is new, and reported.
    repo.write("app/jobs.py", f"import os\n{CALL}\n{CALL}\n")
    (pytester.path / "o.sarif").unlink()
    repo.commit("shift")
    _review(pytester, f"--secreview-baseline={baseline}").assert_outcomes(passed=1)
    repo.write("app/jobs.py", f"import os\n{CALL}\n{CALL}\n{CALL}\n")
    (pytester.path / "o.sarif").unlink()
    repo.commit("a third identical call")
    result = _review(pytester, f"--secreview-baseline={baseline}")
    result.assert_outcomes(failed=1)
    findings = _summary(pytester)["findings"]
    assert [(f["line"], f["suppression"]) for f in sorted(findings, key=lambda f: f["line"])] \
        == [(2, "baseline"), (3, "baseline"), (4, None)]
    assert len({f["fingerprint"] for f in findings}) == 3
    sarif = json.loads((pytester.path / "o.sarif").read_text())["runs"][0]["results"]
    assert len({r["partialFingerprints"]["secreview/v2"] for r in sarif}) == 3


def test_identical_findings_get_one_inline_comment_each(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    from pytest_secreview.github.context import PullRequest
    from pytest_secreview.publish.comments import publish
    from pytest_secreview.reporting.merge import load_report
    from tests.fake_github import FakeGitHub, make_client, make_token

    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n{CALL}\n"})
    _review(pytester).assert_outcomes(failed=1)
    report = load_report(pytester.path / "secreview-artifacts/report/summary.json")
    token = make_token()
    patch = f"@@ -0,0 +1,2 @@\n+{CALL}\n+{CALL}\n"
    with FakeGitHub(token=token, files={"app/jobs.py": patch}) as github:
        pr = PullRequest(repository=github.repository, number=github.number,
                         api_url=github.api_url, head_sha=github.head_sha, token=token)
        client = make_client(github.api_url, token)
        first = publish(report, pr, mode="all", client=client)
        assert (first.inline_posted, first.inline_already_posted) == (2, 0)
        assert sorted(c["line"] for c in github.review_comments) == [1, 2]
        again = publish(report, pr, mode="all", client=client)
        assert (again.inline_posted, again.inline_already_posted) == (0, 2)


def test_a_committed_baseline_does_not_trip_the_rules(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    # The bundled rules flag `verify=False`; the baseline written for it must not repeat it.
    repo = review_repo(pr={"app/client.py": "import requests\n"
                                            "requests.get(url, verify=False)\n"})
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            ":bundled", "-k", "tls-verification-disabled",
            "--secreview-baseline=.secreview/baseline.json")
    pytester.runpytest(*args, "--secreview-baseline-update")
    text = (repo.path / ".secreview/baseline.json").read_text()
    assert "verify=False" not in text and '"title"' not in text
    repo.commit("accept the finding")
    # The pull request that commits the baseline is reviewed: the file itself is quiet.
    pytester.runpytest(*args)
    paths = {f["path"] for f in _summary(pytester)["findings"]}
    assert paths == {"app/client.py"}


def test_entries_without_a_note_mute_and_are_counted(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\nb = dangerous(2)\n"})
    first = _review(pytester, f"--secreview-baseline={baseline}", "--secreview-baseline-update")
    out = first.stdout.str()
    assert "entries without a note already mute" in out and "give each a note" in out
    notes = json.loads(baseline.read_text())
    notes["findings"][0]["note"] = "accepted in SEC-7"
    baseline.write_text(json.dumps(notes))
    result = _review(pytester, f"--secreview-baseline={baseline}")
    result.assert_outcomes(passed=1)  # a freshly written baseline round-trips quietly
    assert "1 muted by baseline entries without a note" in result.stdout.str()
    markdown = (pytester.path / "secreview-artifacts/report/summary.md").read_text()
    assert "1 muted by baseline entries without a note" in markdown


def test_the_update_flag_is_a_boolean_in_help_and_in_the_ini_file(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    help_text = pytester.runpytest("--help").stdout.str()
    assert "secreview_baseline_update (bool)" in help_text
    assert "secreview_baseline_update (string)" not in help_text
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    # The ini file is the base revision's (the trusted one): a boolean flag key in it.
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"}, base={
        "tox.ini": "[pytest]\nsecreview_baseline_update = true\nsecreview_no_cache = false\n"})
    _review(pytester, f"--secreview-baseline={baseline}")
    assert len(json.loads(baseline.read_text())["findings"]) == 1


def test_a_top_level_list_names_the_expected_shape(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    baseline.write_text("[]")
    review_repo(rules={"danger": DANGER}, pr={"app/jobs.py": f"{CALL}\n"})
    result = _review(pytester, f"--secreview-baseline={baseline}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "_BaselineFile" not in err and "BaselineFile" not in err
    assert 'an object {"version": 1, "findings": [...]}' in err


def test_occurrence_numbers_follow_the_lines_and_are_stable() -> None:
    from pytest_secreview.core.findings import Finding, number_occurrences
    from pytest_secreview.core.severity import Severity

    def at(line: int) -> Finding:
        return Finding(rule="danger", severity=Severity.HIGH, title="t", path="a.py",
                       line=line, source="pattern").with_fingerprint(CALL)

    base = fingerprint("danger", "a.py", CALL)
    numbered = number_occurrences([at(9), at(3), at(5)])  # order of the list is kept
    assert [f.fingerprint for f in numbered] == [f"{base}-3", base, f"{base}-2"]
    assert number_occurrences(numbered) == numbered  # applied twice: the same
