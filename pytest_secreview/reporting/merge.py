"""Merge the results of a review sharded across CI machines into one of each.

A pull request's items can be spread over several jobs (pytest-split's ``--splits N --group
K``, or a CI matrix selecting node ids); each shard writes its own ``summary.json`` and JUnit
file. The merge step folds them into one report, from which the one PR comment, the SARIF log
and the markdown summary are made, exactly as a single run would have made them.

Shards must review the same range with the same threshold: anything else is an error that
names the file, because a merged report of two different reviews would be a lie.

With the run's key (:mod:`.run_binding`) only reports this run produced are merged
(:func:`bind_shards`): a report without a valid binding is foreign, a group of the split that
sent no bound report is missing, and either becomes an unreviewed item (failed under
``--unreviewed fail``, else skipped; never passed). Only the JUnit files the bindings name are
merged.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..atomic import write_bytes_atomic, write_text_atomic
from ..core.decide import UNREVIEWED_FAILS, Policy, decide
from ..core.decide import Outcome as Decided
from ..core.findings import Finding
from ..core.problems import one_per_problem
from ..core.record import ItemRecord
from ..errors import ConfigError
from ..severity import one_line
from ..usage_counts import USAGE_COUNTS
from .model import ItemReport, NotReviewed, Outcome, Report, RuleReport, Usage
from .run_binding import RUN_KEY_ENV, ForeignShard, ShardBinding, verify_binding

#: The file each shard's ``--secreview-report`` directory holds.
SUMMARY_NAME = "summary.json"
#: Per-item expected durations in pytest-split's format, written beside every summary.
DURATIONS_NAME = "durations.json"

_OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "skipped", "error")
_USAGE_KEYS = USAGE_COUNTS


@dataclass(frozen=True)
class ShardFiles:
    """What was found in the shards' directories."""

    summaries: tuple[Path, ...]
    junit: tuple[Path, ...]


def find_shard_files(directories: Sequence[Path]) -> ShardFiles:
    """Every ``summary.json`` and JUnit XML file under ``directories`` (searched
    recursively, as CI artifact downloads nest them), in a stable order."""
    summaries: list[Path] = []
    junit: list[Path] = []
    for directory in directories:
        if not directory.is_dir():
            raise ConfigError(f"{directory}: no such directory; pass the directories the "
                              "shards' results were downloaded to")
        summaries.extend(sorted(directory.rglob(SUMMARY_NAME)))
        junit.extend(p for p in sorted(directory.rglob("*.xml")) if _is_junit(p))
    if not summaries:
        raise ConfigError(
            "no summary.json found under " + ", ".join(str(d) for d in directories)
            + "; each shard writes one into --secreview-report (default "
            "secreview-artifacts/report): upload that directory from every shard"
        )
    return ShardFiles(tuple(summaries), tuple(junit))


@dataclass(frozen=True)
class BoundShards:
    """The shard files this run produced, and an unreviewed item for each shard it did not."""

    summaries: tuple[Path, ...]
    junit: tuple[Path, ...]
    #: (what was not reviewed, why) for each foreign report and each missing group.
    unreviewed: tuple[tuple[str, str], ...]
    lines: tuple[str, ...]


def bind_shards(files: ShardFiles, key: bytes | None, env: Mapping[str, str], *,
                shards: int | None = None) -> BoundShards:
    """Keep the shard reports whose binding verifies under ``key`` (see
    :func:`.run_binding.verify_binding`), with the JUnit files they name. Each foreign report,
    and each group of ``shards`` (else of the split the bindings record) without a bound
    report, is listed as unreviewed (:func:`merge_reports` makes an item of each). Without a
    key nothing can be checked: every file is kept, and a line says so.
    """
    if key is None:
        return BoundShards(files.summaries, files.junit, (), (
            f"shard reports not checked against the run ({RUN_KEY_ENV} is not set): they are "
            "trusted as they are",))
    bound: list[tuple[Path, ShardBinding]] = []
    unreviewed: list[tuple[str, str]] = []
    lines: list[str] = []
    for summary in files.summaries:
        try:
            bound.append((summary, verify_binding(summary, key, env)))
        except ForeignShard as why:
            unreviewed.append((str(summary),
                               f"not reviewed: {summary} is not a report of this run: {why}"))
            lines.append(f"shard report refused: {summary}: {why}")
    splits = {b.splits for _, b in bound if b.splits is not None}
    if len(splits) > 1:
        raise ConfigError("the bound shard reports disagree on the number of shards ("
                          + ", ".join(map(str, sorted(splits))) + "); merge one run's shards")
    expected = shards or next(iter(splits), None)
    groups = {b.group for _, b in bound if b.group is not None}
    if expected is not None:
        for group in range(1, expected + 1):
            if group not in groups:
                unreviewed.append((
                    f"shard {group} of {expected}",
                    f"not reviewed: shard {group} of {expected} sent no report of this run"))
    if not bound:
        raise ConfigError("no shard report of this run to merge (" + "; ".join(lines)
                          + f"); every shard's binding must verify under this run's "
                          f"{RUN_KEY_ENV}: pass the directories this run's shards uploaded")
    junit = []
    for summary, binding in bound:
        path = binding.junit_path(summary.parent)
        if path is not None:
            junit.append(path)
    return BoundShards(tuple(p for p, _ in bound), tuple(junit), tuple(unreviewed),
                       tuple(lines))


def _unreviewed_shard(what: str, reason: str, policy: Policy) -> ItemReport:
    """An item for a shard that sent no report of this run, its outcome decided like every
    item's: by :func:`~..core.decide.decide` under the ``--unreviewed`` policy."""
    name = one_line(what)
    record = ItemRecord(nodeid=f"secreview::unreviewed-shard[{name}]", rule=None,
                        path=f"({name})", not_reviewed=reason)
    verdict = decide(record, policy)
    outcome: Outcome = ("failed" if verdict.outcome is Decided.UNREVIEWED_FAILED
                        else "skipped" if verdict.outcome is Decided.SKIPPED else "error")
    return ItemReport(nodeid=record.nodeid, rule=None, path=record.path, outcome=outcome,
                      reason=reason, risk_evidence=None)


def _is_junit(path: Path) -> bool:
    try:
        root = ET.parse(path).getroot()  # noqa: S314 - written by our own shards
    except (ET.ParseError, OSError):
        return False
    return root.tag in ("testsuites", "testsuite")


def load_report(path: Path) -> Report:
    """One shard's ``summary.json``; an invalid file is an error that names it."""
    try:
        return Report.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{path}: not a secreview summary.json ({first}); pass the "
                          "shards' --secreview-report directories") from None


def merge_reports(reports: Sequence[Report], sources: Sequence[Path] = (),
                  unreviewed: Sequence[tuple[str, str]] = (), *,
                  unreviewed_policy: str = UNREVIEWED_FAILS) -> Report:
    """One report for the whole review. An item reported by several shards (a re-run of one
    shard) keeps its last result; outcomes, findings and usage are recomputed from the items
    so the totals always agree with them. ``unreviewed``: (what, why) of each shard that
    sent no report of this run (:func:`bind_shards`): an item each, failed under
    ``unreviewed_policy`` ``fail``, else skipped, never passed; listed as not reviewed too."""
    if not reports:
        raise ConfigError("nothing to merge: no shard report of this run was given")
    names = [str(p) for p in sources] or [f"shard {i + 1}" for i in range(len(reports))]
    first = reports[0]
    for name, report in zip(names[1:], reports[1:], strict=False):
        for field in ("base_sha", "head_sha", "fail_on"):
            if getattr(report, field) != getattr(first, field):
                raise ConfigError(
                    f"{name}: {field} is {getattr(report, field)!s}, but {names[0]} has "
                    f"{getattr(first, field)!s}; every shard must review the same range with "
                    "the same --secreview-fail-on"
                )
    items: dict[str, ItemReport] = {}
    for report in reports:
        items.update((item.nodeid, item) for item in report.items)
    policy = Policy(fail_on=first.fail_on, unreviewed=unreviewed_policy)
    missing = [_unreviewed_shard(what, why, policy) for what, why in unreviewed]
    items.update((item.nodeid, item) for item in missing)
    ordered = sorted(items.values(), key=lambda i: i.nodeid)
    counts = Counter(item.outcome for item in ordered)
    findings = sorted(one_per_problem(f for item in ordered for f in item.findings),
                      key=Finding.sort_key)
    return Report(
        tool_version=first.tool_version,
        repository=next((r.repository for r in reports if r.repository), None),
        pull_request=next((r.pull_request for r in reports if r.pull_request), None),
        base_ref=first.base_ref,
        base_sha=first.base_sha,
        head_sha=first.head_sha,
        fail_on=first.fail_on,
        outcomes={k: counts.get(k, 0) for k in _OUTCOMES},
        findings=findings,
        items=ordered,
        rules=_unique_rules(r for rep in reports for r in rep.rules),
        not_reviewed=_merged_not_reviewed(reports, ordered),
        usage=_usage(ordered),
        notes=list(dict.fromkeys(n for r in reports for n in r.notes)),
    )


def _unique_rules(rules: Iterable[RuleReport]) -> list[RuleReport]:
    seen: dict[str, RuleReport] = {}
    for rule in rules:
        seen.setdefault(rule.id, rule)
    return sorted(seen.values(), key=lambda r: r.id)


def _merged_not_reviewed(reports: Sequence[Report], items: list[ItemReport]
                         ) -> list[NotReviewed]:
    # Entries about items are rebuilt from the merged items (a shard re-run may have turned a
    # skip into a pass); entries about files (binary, deleted) are the same in every shard.
    node_paths = {(i.path, i.rule) for i in items}
    merged = {
        (n.path, n.rule, n.reason): n
        for r in reports for n in r.not_reviewed if (n.path, n.rule) not in node_paths
    }
    for item in items:
        if item.outcome in ("skipped", "error") or item.nodeid.startswith(
                "secreview::unreviewed-shard["):
            entry = NotReviewed(path=item.path, rule=item.rule, reason=item.reason or item.outcome)
            merged[(entry.path, entry.rule, entry.reason)] = entry
    return sorted(merged.values(), key=lambda n: (n.path, n.rule or "", n.reason))


def _usage(items: list[ItemReport]) -> Usage:
    totals = {key: sum(int(i.usage.get(key, 0) or 0) for i in items) for key in _USAGE_KEYS}
    cost: float | None = 0.0
    for item in items:
        if item.usage.get("model_calls"):
            item_cost = item.usage.get("cost_usd")
            cost = None if cost is None or item_cost is None else cost + float(item_cost)
    return Usage(**totals, cost_usd=cost)


def durations(report: Report) -> dict[str, float]:
    """Each item's expected duration in seconds, in pytest-split's ``--durations-path``
    format: the model review's wall time from the item's usage record (what a shard will
    spend on it next time), else the time the item took."""
    return {
        item.nodeid: round(float(item.usage.get("wall_seconds") or item.duration or 0.0), 3)
        for item in report.items
    }


def write_durations(report: Report, path: Path, previous: Path | None = None) -> None:
    """Write :func:`durations` to ``path``, keeping entries of ``previous`` (the history from
    earlier runs, e.g. restored by the CI cache) for items this review did not run."""
    merged: dict[str, float] = {}
    if previous is not None and previous.is_file():
        try:
            loaded = json.loads(previous.read_text())
        except ValueError:
            loaded = {}
        if isinstance(loaded, dict):
            merged.update({str(k): float(v) for k, v in loaded.items()
                           if isinstance(v, int | float)})
    merged.update(durations(report))
    write_text_atomic(path, json.dumps(dict(sorted(merged.items())), indent=1) + "\n")


def merge_junit(paths: Sequence[Path]) -> ET.ElementTree:
    """One ``<testsuites>`` holding every shard's test cases in one ``<testsuite>``, with
    the counts recomputed from the cases (an item present twice keeps its last result)."""
    cases: dict[tuple[str, str], ET.Element] = {}
    properties: list[ET.Element] = []
    name = "pytest"
    for path in paths:
        root = ET.parse(path).getroot()  # noqa: S314 - written by our own shards
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        for suite in suites:
            name = suite.get("name", name)
            props = suite.find("properties")
            if props is not None and not properties:
                properties = list(props)
            for case in suite.iter("testcase"):
                cases[(case.get("classname", ""), case.get("name", ""))] = case
    ordered = [cases[key] for key in sorted(cases)]
    counts = Counter(_case_outcome(c) for c in ordered)
    time = sum(float(c.get("time", "0") or 0) for c in ordered)
    suite = ET.Element("testsuite", {
        "name": name, "tests": str(len(ordered)), "failures": str(counts["failure"]),
        "errors": str(counts["error"]), "skipped": str(counts["skipped"]),
        "time": f"{time:.3f}",
    })
    if properties:
        props = ET.SubElement(suite, "properties")
        props.extend(properties)
    suite.extend(ordered)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(tree: ET.ElementTree, path: Path) -> Path:
    """Write a (merged) JUnit tree to ``path`` through the one output writer."""
    root = tree.getroot()
    assert root is not None  # merge_junit always builds a <testsuites> root
    return write_bytes_atomic(path, ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _case_outcome(case: ET.Element) -> str:
    for tag in ("error", "failure", "skipped"):
        if case.find(tag) is not None:
            return tag
    return "passed"
