"""Dependency review through the plugin (pytester), in real temporary git repositories: the
bundled vulnerable-dependency rule with OSV records written by the test into a directory, into
an archive, and served by a fake OSV API on 127.0.0.1; the bundled dependency-supply-chain
rule's typosquat, extra index and unpinned action cases; an ordinary bump stays quiet."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, Recorded, Reply

Build = Callable[..., ReviewRepo]

VULN_RULE = str(bundled_rules_dir() / "vulnerable-dependency.md")
CHAIN_RULE = str(bundled_rules_dir() / "dependency-supply-chain.md")

#: PyYAML's full_load code execution (CVE-2020-14343), as OSV publishes it (trimmed).
PYYAML = {
    "id": "GHSA-8q59-q68h-6hv4",
    "modified": "2024-01-01T00:00:00Z",
    "aliases": ["CVE-2020-14343", "PYSEC-2021-142"],
    "summary": "Improper Input Validation in PyYAML",
    "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
    "affected": [{"package": {"ecosystem": "PyPI", "name": "PyYAML"},
                  "ranges": [{"type": "ECOSYSTEM",
                              "events": [{"introduced": "0"}, {"fixed": "5.4"}]}]}],
}
#: requests' Authorization header leak on redirect (CVE-2018-18074), CVSS 7.5.
REQUESTS = {
    "id": "GHSA-x84v-xcm2-53pg",
    "modified": "2024-01-01T00:00:00Z",
    "summary": "Insufficiently Protected Credentials in Requests",
    "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"}],
    "affected": [{"package": {"ecosystem": "PyPI", "name": "requests"},
                  "ranges": [{"type": "ECOSYSTEM",
                              "events": [{"introduced": "0"}, {"fixed": "2.20.0"}]}]}],
}
#: A withdrawn record: never a finding.
WITHDRAWN = {**REQUESTS, "id": "GHSA-0000-0000-0000", "withdrawn": "2024-02-01T00:00:00Z",
             "affected": [{"package": {"ecosystem": "PyPI", "name": "flask"},
                           "versions": ["2.0.0"]}]}
#: lodash prototype pollution (CVE-2019-10744), SEMVER range, npm.
LODASH = {
    "id": "GHSA-jf85-cpcp-j695",
    "modified": "2024-01-01T00:00:00Z",
    "summary": "Prototype Pollution in lodash",
    "database_specific": {"severity": "CRITICAL"},
    "affected": [{"package": {"ecosystem": "npm", "name": "lodash"},
                  "ranges": [{"type": "SEMVER",
                              "events": [{"introduced": "0"}, {"fixed": "4.17.12"}]}]}],
}
RECORDS = [PYYAML, REQUESTS, WITHDRAWN, LODASH]

BASE_REQUIREMENTS = "flask==2.0.0\npyyaml==5.4.1\nrequests==2.31.0\n"
VULNERABLE_REQUIREMENTS = "flask==2.0.0\npyyaml==5.3.1\nrequests==2.31.0\n"


def review(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Run the review; the pytest result and the JSON report's items by node id."""
    report = pytester.path / "report.json"
    result = pytester.runpytest(
        "--secreview", "--base", "main", "-p", "no:cacheprovider", "--json-report",
        f"--json-report-file={report}", "-n", "0", *args)
    data = json.loads(report.read_text()) if report.exists() else {"tests": []}
    return result, {t["nodeid"]: t for t in data["tests"]}


def findings_of(items: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for t in items.values()
            for f in t.get("metadata", {}).get("secreview", {}).get("findings", [])]


def write_records(directory: Path, records: list[dict[str, Any]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for record in records:
        (directory / f"{record['id']}.json").write_text(json.dumps(record))
    return directory


@pytest.fixture
def osv_dir(tmp_path: Path) -> Path:
    return write_records(tmp_path / "osv", RECORDS)


class FakeOsv:
    """The OSV API's two endpoints over ``records``, on a real server on 127.0.0.1."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = {r["id"]: r for r in records}

    def __call__(self, request: Recorded) -> Reply:
        from pytest_secreview.deps.osv import Query, hits

        if request.method == "POST" and request.path == "/v1/querybatch":
            results = []
            for query in request.json["queries"]:
                asked = Query(query["package"]["ecosystem"], query["package"]["name"],
                              query["version"])
                found = [{"id": i, "modified": r["modified"]} for i, r in self.records.items()
                         if not r.get("withdrawn") and hits(r, asked)]
                results.append({"vulns": found} if found else {})
            return Reply(json={"results": results})
        if request.method == "GET" and request.path.startswith("/v1/vulns/"):
            record = self.records.get(request.path.rpartition("/")[2])
            return Reply(json=record) if record else Reply(status=404, json={"code": 5})
        return Reply(status=404, json={})


@pytest.fixture
def osv_server() -> Iterator[FakeServer]:
    with FakeServers() as servers:
        yield servers.start(FakeOsv(RECORDS))


def _advisory(item: dict[str, Any]) -> list[dict[str, Any]]:
    return item["metadata"]["secreview"]["findings"]


# -- known vulnerabilities ---------------------------------------------------------------


@pytest.mark.parametrize("source", ["directory", "archive", "api"])
def test_a_pin_inside_an_advisorys_range_fails_naming_the_advisory_and_the_fix(
        pytester: pytest.Pytester, review_repo: Build, osv_dir: Path, osv_server: FakeServer,
        tmp_path: Path, source: str) -> None:
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": VULNERABLE_REQUIREMENTS})
    if source == "directory":
        option = f"--secreview-advisories={osv_dir}"
    elif source == "archive":
        archive = tmp_path / "all.zip"
        with zipfile.ZipFile(archive, "w") as out:
            for record in RECORDS:
                out.writestr(f"{record['id']}.json", json.dumps(record))
        option = f"--secreview-advisories={archive}"
    else:
        option = f"--secreview-osv-url={osv_server.url}"
    result, items = review(pytester, "--secreview-rules", VULN_RULE, option)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    (nodeid,) = items
    assert nodeid.endswith("vulnerable-dependency.md::vulnerable-dependency"
                           "[osv:requirements.txt]"), nodeid
    (finding,) = _advisory(items[nodeid])
    assert finding["path"] == "requirements.txt" and finding["line"] == 2
    assert finding["severity"] == "CRITICAL" and finding["cwe"] == "CWE-1395"
    assert finding["title"].startswith("GHSA-8q59-q68h-6hv4: pyyaml 5.3.1 is affected, fixed "
                                       "in 5.4"), finding["title"]
    assert "CVSS 3 base score 9.8" in finding["title"]
    assert "Upgrade pyyaml to 5.4 or later" in finding["recommendation"]
    assert "GHSA-8q59-q68h-6hv4" in out and "5.4" in out
    if source == "api":
        paths = [r.path for r in osv_server.requests]
        assert paths == ["/v1/querybatch", "/v1/vulns/GHSA-8q59-q68h-6hv4"], paths
        (query,) = osv_server.requests[0].json["queries"]  # only what the PR introduces
        assert query == {"package": {"ecosystem": "PyPI", "name": "pyyaml"},
                         "version": "5.3.1"}


def test_an_ordinary_bump_is_quiet(pytester: pytest.Pytester, review_repo: Build,
                                   osv_dir: Path) -> None:
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": "flask==2.0.0\npyyaml==6.0.1\nrequests==2.32.3\n"})
    result, items = review(pytester, "--secreview-rules", VULN_RULE, "--secreview-rules",
                           CHAIN_RULE, f"--secreview-advisories={osv_dir}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert len(items) == 2 and findings_of(items) == []


def test_a_withdrawn_advisory_and_a_version_out_of_range_are_quiet(
        pytester: pytest.Pytester, review_repo: Build, osv_dir: Path) -> None:
    review_repo(base={"requirements.txt": "requests==2.31.0\n"},
                pr={"requirements.txt": "requests==2.20.0\nflask==2.0.0\n"})
    result, items = review(pytester, "--secreview-rules", VULN_RULE,
                           f"--secreview-advisories={osv_dir}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert findings_of(items) == []


def test_a_lock_file_entry_is_checked_below_the_threshold_without_failing(
        pytester: pytest.Pytester, review_repo: Build, osv_dir: Path) -> None:
    lock = ('[[package]]\nname = "requests"\nversion = "{v}"\ndescription = "HTTP"\n'
            'optional = false\npython-versions = ">=3.7"\nfiles = []\n')
    review_repo(base={"poetry.lock": lock.format(v="2.31.0")},
                pr={"poetry.lock": lock.format(v="2.19.1")})
    result, items = review(pytester, "--secreview-rules", VULN_RULE,
                           f"--secreview-advisories={osv_dir}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    (finding,) = findings_of(items)
    assert finding["line"] == 3 and finding["severity"] == "HIGH"
    assert finding["title"].startswith("GHSA-x84v-xcm2-53pg: requests 2.19.1 is affected, "
                                       "fixed in 2.20.0")


def test_npm_lock_file_versions_are_checked_against_semver_ranges(
        pytester: pytest.Pytester, review_repo: Build, osv_dir: Path) -> None:
    def lock(version: str) -> str:
        return json.dumps({"name": "app", "lockfileVersion": 3, "packages": {
            "": {"name": "app", "dependencies": {"lodash": "^4.17.0"}},
            "node_modules/lodash": {"version": version, "resolved":
                                    f"https://registry.npmjs.org/lodash/-/lodash-{version}.tgz",
                                    "integrity": "sha512-x"}}}, indent=2)
    review_repo(base={"package-lock.json": lock("4.17.21")},
                pr={"package-lock.json": lock("4.17.11")})
    result, items = review(pytester, "--secreview-rules", VULN_RULE,
                           f"--secreview-advisories={osv_dir}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    (finding,) = findings_of(items)
    assert finding["severity"] == "CRITICAL" and finding["line"] == 12
    assert "GHSA-jf85-cpcp-j695" in finding["title"] and "fixed in 4.17.12" in finding["title"]


def test_without_an_advisory_source_the_check_makes_no_item_and_the_summary_says_so(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": VULNERABLE_REQUIREMENTS})
    result, items = review(pytester, "--secreview-rules", VULN_RULE, "--secreview-rules",
                           CHAIN_RULE, "--secreview-unreviewed=fail")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    (nodeid,) = items
    assert nodeid.endswith("dependency-supply-chain.md::dependency-supply-chain"
                           "[supply-chain:requirements.txt]"), nodeid
    assert "vulnerable-dependency made no item: known vulnerabilities are looked up only in "\
           "an advisory source you name" in " ".join(out.split())
    summary = json.loads((pytester.path / "secreview-artifacts" / "report" / "summary.json")
                         .read_text())
    assert any(note.startswith("vulnerable-dependency made no item")
               for note in summary["notes"]), summary["notes"]


def test_a_malformed_advisory_file_is_an_error_naming_the_file_and_the_fix(
        pytester: pytest.Pytester, review_repo: Build, tmp_path: Path) -> None:
    directory = write_records(tmp_path / "osv", [PYYAML])
    (directory / "broken.json").write_text('{"id": "X", "affected": [{"package": '
                                           '{"name": "pyyaml"')
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": VULNERABLE_REQUIREMENTS})
    result, _items = review(pytester, "--secreview-rules", VULN_RULE,
                            f"--secreview-advisories={directory}")
    out = " ".join(result.stdout.str().split())
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert f"advisory file {directory / 'broken.json'} is not valid JSON" in out
    assert "fix or remove it" in out


@pytest.mark.parametrize(("option", "message"), [
    ("--secreview-advisories=missing-dir", "no such directory or archive"),
    ("--secreview-osv-url=http://osv.example.org", "plain http is accepted for 127.0.0.1"),
    ("--secreview-osv-url=https://user:pw@api.osv.dev", "no credentials"),
    ("--secreview-osv-url=api.osv.dev", "use an https URL"),
])
def test_a_bad_advisory_option_is_a_usage_error_with_an_example(
        pytester: pytest.Pytester, review_repo: Build, option: str, message: str) -> None:
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": VULNERABLE_REQUIREMENTS})
    result, _items = review(pytester, "--secreview-rules", VULN_RULE, option)
    err = " ".join(result.stderr.str().split())
    assert result.ret == pytest.ExitCode.USAGE_ERROR, err
    assert message in err and "Example: --secreview-" in err, err


def test_an_osv_api_that_fails_is_an_error_never_a_pass(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    with FakeServers() as servers:
        server = servers.start(lambda request: Reply(status=503, json={}))
        review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                    pr={"requirements.txt": VULNERABLE_REQUIREMENTS})
        result, _items = review(pytester, "--secreview-rules", VULN_RULE,
                                f"--secreview-osv-url={server.url}")
    out = " ".join(result.stdout.str().split())
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "POST /v1/querybatch answered HTTP 503" in out


# -- supply-chain signals ----------------------------------------------------------------


def test_typosquat_extra_index_and_unpinned_action_are_found(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    workflow = ("on: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683\n")
    review_repo(
        base={"requirements.txt": BASE_REQUIREMENTS, ".github/workflows/ci.yml": workflow},
        pr={"requirements.txt": "--extra-index-url https://pypi.corp.example/simple\n"
                                + BASE_REQUIREMENTS + "reqeusts==2.31.0\n",
            ".github/workflows/ci.yml": workflow + "      - uses: actions/setup-python@v5\n"})
    result, items = review(pytester, "--secreview-rules", CHAIN_RULE)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()  # nothing CRITICAL
    found = {(f["path"], f["line"], f["title"].split(":")[0], f["severity"], f["cwe"])
             for f in findings_of(items)}
    assert found == {
        ("requirements.txt", 1, "extra-index-url", "HIGH", "CWE-427"),
        ("requirements.txt", 5, "typosquat", "HIGH", "CWE-1357"),
        (".github/workflows/ci.yml", 7, "unpinned-action", "MEDIUM", "CWE-829"),
    }, found
    titles = " ".join(f["title"] for f in findings_of(items))
    assert "reqeusts is one typo away from the popular package requests" in titles
    assert "actions/setup-python@v5" in titles
    # Fails under a stricter threshold, like any finding.
    result, _items = review(pytester, "--secreview-rules", CHAIN_RULE,
                            "--secreview-fail-on=high")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_supply_chain_findings_are_ordinary_findings_the_baseline_judges(
        pytester: pytest.Pytester, review_repo: Build) -> None:
    review_repo(base={"requirements.txt": BASE_REQUIREMENTS},
                pr={"requirements.txt": BASE_REQUIREMENTS + "reqeusts==2.31.0\n"})
    _result, items = review(pytester, "--secreview-rules", CHAIN_RULE)
    (finding,) = findings_of(items)
    baseline = pytester.path.parent / "baseline.json"
    baseline.write_text(json.dumps({"version": 1, "findings": [
        {"fingerprint": finding["fingerprint"], "rule": finding["rule"],
         "path": finding["path"], "note": "an internal package, checked"}]}))
    result, items = review(pytester, "--secreview-rules", CHAIN_RULE,
                           f"--secreview-baseline={baseline}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    (finding,) = findings_of(items)
    assert finding["suppression"] == "baseline"
    # At the threshold, the baseline does not speak for what the pull request made.
    result, items = review(pytester, "--secreview-rules", CHAIN_RULE,
                           f"--secreview-baseline={baseline}", "--secreview-fail-on=high")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
