"""Merge the results of a review sharded across CI machines into one of each.

A pull request's items can be spread over several jobs (pytest-split's ``--splits N --group
K``, or a CI matrix selecting node ids); each shard writes its own ``summary.json`` and JUnit
file. The merge step folds them into one report, from which the one PR comment, the SARIF log
and the markdown summary are made, exactly as a single run would have made them.

Shards must review the same range with the same threshold: anything else is an error that
names the file, because a merged report of two different reviews would be a lie.

A merge counts only what it can check (:func:`bind_shards`). With the run's key
(:mod:`.run_binding`) only reports this run produced are merged: a report without a valid
binding is foreign, and becomes an unreviewed item (failed under ``--unreviewed fail``, else
skipped; never passed); only the JUnit files the bindings name are merged. Without the key
nothing can be checked, so no report counts: each is an unreviewed item, and the merge says to
set the key, unless the caller opts in with ``--trust-unbound-shards``, which merges every
report unchecked and says so in every summary. Either way each group of the split must send
exactly one report: a missing group is an unreviewed item, a group claimed twice or a
disagreement on the number of shards is an error.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from ..atomic import write_bytes_atomic, write_text_atomic
from ..core.decide import UNREVIEWED_FAILS, Policy, decide
from ..core.findings import Finding
from ..core.problems import one_per_problem
from ..core.record import ItemRecord
from ..errors import ConfigError
from ..severity import one_line
from ..usage_counts import USAGE_COUNTS
from .model import ItemReport, NotReviewed, Outcome, Report, RuleReport, Usage
from .run_binding import (
    RUN_KEY_ENV,
    ForeignShard,
    ShardBinding,
    unchecked_binding,
    verify_binding,
)

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


#: Why a shard report is unreviewed when the merge has no key to check it with.
NO_KEY_REASON = f"not checked against this run: {RUN_KEY_ENV} is not set"
#: The opt-in that merges shard reports without checking them (``secreview report``).
TRUST_FLAG = "--trust-unbound-shards"
#: What kind of merge it was, said first by every summary of the merged report.
NO_KEY_KIND = (f"No shard report was merged: {RUN_KEY_ENV} is not set, so none could be checked "
               "against this run and each is unreviewed. Set it to the key the shards ran "
               f"with (or merge unchecked with {TRUST_FLAG})")
UNCHECKED_KIND = (f"Shard reports merged unchecked ({TRUST_FLAG}): {RUN_KEY_ENV} is not set, so "
                  "nothing shows that this run produced them; any report in the merged "
                  "directories counts as reviewed, a forged one too")


@dataclass(frozen=True)
class BoundShards:
    """The shard files whose results count, and an unreviewed item for each shard that
    sent none."""

    #: The reports merged, with the JUnit files merged with them.
    summaries: tuple[Path, ...]
    junit: tuple[Path, ...]
    #: (what was not reviewed, why) for each report refused or unchecked and each missing group.
    unreviewed: tuple[tuple[str, str], ...]
    lines: tuple[str, ...]
    #: Reports none of whose results count (no key to check them): read only for the range
    #: and threshold the merged report is of.
    unchecked: tuple[Path, ...] = ()
    #: What kind of merge this was, for the merged report's ``review_kind`` (None: checked).
    kind: str | None = None


def bind_shards(files: ShardFiles, key: bytes | None, env: Mapping[str, str], *,
                shards: int | None = None, trust_unbound: bool = False) -> BoundShards:
    """The shard reports to merge, and what is unreviewed.

    With ``key``: the reports whose binding verifies under it (see
    :func:`.run_binding.verify_binding`), with the JUnit files they name; each other report is
    listed as unreviewed (:func:`merge_reports` makes an item of each). ``trust_unbound`` then
    changes nothing: what can be checked is.

    Without ``key`` nothing can be checked: each report is listed as unreviewed (not checked
    against this run) and kept only in :attr:`BoundShards.unchecked`, and a line says how to
    fix it; with ``trust_unbound`` every report and every JUnit file is merged unchecked, the
    group each claims read from its unsigned binding, and a line and
    :attr:`BoundShards.kind` say so.

    Each group of ``shards`` (else of the split the bindings record) without a report to merge
    is listed as unreviewed. Raises :class:`ConfigError` when the reports disagree on the
    number of shards or with ``shards``, or two of them claim one group.
    """
    if key is None and not trust_unbound:
        return BoundShards(
            (), (), tuple((str(s), f"not reviewed: {s}: {NO_KEY_REASON}")
                          for s in files.summaries),
            (f"no shard report merged: {RUN_KEY_ENV} is not set, so none of the "
             f"{len(files.summaries)} report(s) found can be checked against this run: each "
             f"is unreviewed; set {RUN_KEY_ENV} to the key the shards ran with, or pass "
             f"{TRUST_FLAG} to merge them unchecked (a report anyone placed in these "
             "directories would then count as reviewed)",),
            unchecked=files.summaries, kind=NO_KEY_KIND)
    bound: list[tuple[Path, ShardBinding | None]] = []
    unreviewed: list[tuple[str, str]] = []
    lines: list[str] = []
    if key is None:
        lines.append(f"shard reports trusted unchecked ({TRUST_FLAG}): {RUN_KEY_ENV} is not "
                     "set, so nothing shows that this run produced them; set it to the key the "
                     "shards ran with to merge only this run's reports")
        for summary in files.summaries:
            try:
                bound.append((summary, unchecked_binding(summary)))
            except ForeignShard:
                bound.append((summary, None))
    else:
        if trust_unbound:
            lines.append(f"{TRUST_FLAG} has no effect: {RUN_KEY_ENV} is set, so every shard "
                         "report is checked against it")
        for summary in files.summaries:
            try:
                bound.append((summary, verify_binding(summary, key, env)))
            except ForeignShard as why:
                unreviewed.append((str(summary),
                                   f"not reviewed: {summary} is not a report of this run: {why}"))
                lines.append(f"shard report refused: {summary}: {why}")
    missing, group_lines = _missing_groups(bound, shards,
                                           "" if key is None else " of this run")
    unreviewed += missing
    lines += group_lines
    if not bound:
        raise ConfigError("no shard report of this run to merge (" + "; ".join(lines)
                          + f"); every shard's binding must verify under this run's "
                          f"{RUN_KEY_ENV}: pass the directories this run's shards uploaded")
    if key is None:
        junit = list(files.junit)
    else:
        junit = [path for summary, binding in bound if binding is not None
                 and (path := binding.junit_path(summary.parent)) is not None]
    return BoundShards(tuple(p for p, _ in bound), tuple(junit), tuple(unreviewed),
                       tuple(lines), kind=None if key is not None else UNCHECKED_KIND)


def _missing_groups(bound: Sequence[tuple[Path, ShardBinding | None]], shards: int | None,
                    of_run: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(what, why) of each group of the split without a report among ``bound`` (``of_run``
    ends the why), and lines about reports that name no group. The split is ``shards``, else
    the one the bindings record; raises :class:`ConfigError` when they disagree, or a group
    is claimed twice or is not one of the split."""
    recorded: dict[int, list[Path]] = {}
    for summary, binding in bound:
        if binding is not None and binding.splits is not None:
            recorded.setdefault(binding.splits, []).append(summary)
    if len(recorded) > 1:
        raise ConfigError(
            "the shard reports disagree on the number of shards ("
            + ", ".join(map(str, sorted(recorded))) + "): "
            + "; ".join(f"{paths[0]} records {n}" for n, paths in sorted(recorded.items()))
            + "; merge the shards of one split of one run")
    if shards is not None and recorded and shards not in recorded:
        (splits, paths), = recorded.items()
        raise ConfigError(f"--shards {shards}, but the shard reports record a split into "
                          f"{splits} ({paths[0]}); pass the --splits the shards ran with")
    expected = shards or next(iter(recorded), None)
    claims: dict[int, list[Path]] = {}
    for summary, binding in bound:
        if binding is not None and binding.group is not None:
            claims.setdefault(binding.group, []).append(summary)
    of = f" of {expected}" if expected is not None else ""
    for group, paths in sorted(claims.items()):
        if expected is not None and group > expected:
            raise ConfigError(f"{paths[0]} claims shard {group}{of}: not a group of the split")
        if len(paths) > 1:
            raise ConfigError(
                f"{len(paths)} reports claim shard {group}{of}: "
                + ", ".join(map(str, paths)) + "; merge one report per group (keep the one "
                "its shard job uploaded in this run, remove the others)")
    if expected is None:
        return [], []
    lines = [f"{summary}: records no group of the split, so it stands for no shard of "
             f"{expected}" for summary, binding in bound
             if binding is None or binding.group is None]
    missing = [(f"shard {group} of {expected}",
                f"not reviewed: shard {group} of {expected} sent no report{of_run}")
               for group in range(1, expected + 1) if group not in claims]
    return missing, lines


def _unreviewed_shard(what: str, reason: str, policy: Policy) -> ItemReport:
    """An item for a shard that sent no report of this run, its outcome decided like every
    item's: by :func:`~..core.decide.decide` under the ``--unreviewed`` policy."""
    name = one_line(what)
    record = ItemRecord(nodeid=f"secreview::unreviewed-shard[{name}]", rule=None,
                        path=f"({name})", not_reviewed=reason)
    verdict = decide(record, policy)
    outcome = cast(Outcome, verdict.outcome.reported)
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
                  unreviewed_policy: str = UNREVIEWED_FAILS,
                  unchecked: Sequence[Report] = (), kind: str | None = None) -> Report:
    """One report for the whole review. An item reported by several shards (a re-run of one
    shard) keeps its last result; outcomes, findings and usage are recomputed from the items
    so the totals always agree with them. ``unreviewed``: (what, why) of each shard that
    sent no report of this run (:func:`bind_shards`): an item each, failed under
    ``unreviewed_policy`` ``fail``, else skipped, never passed; listed as not reviewed too.

    ``unchecked``: reports nothing of which counts (no key to check them, see
    :attr:`BoundShards.unchecked`); they only name the range and threshold, which must agree
    like the others'. ``sources`` names ``reports`` then ``unchecked``, for error messages.
    ``kind``: what kind of merge this was (:attr:`BoundShards.kind`), the merged report's
    ``review_kind``, said first by every summary; the shards' own ``review_kind`` then
    becomes a note (a note is escaped where it is shown, and those texts are unchecked)."""
    framing = [*reports, *unchecked]
    if not framing:
        raise ConfigError("nothing to merge: no shard report of this run was given")
    names = [str(p) for p in sources] or [f"shard {i + 1}" for i in range(len(framing))]
    first = framing[0]
    for name, report in zip(names[1:], framing[1:], strict=False):
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
    notes = [n for r in reports for n in r.notes]
    review_kind = first.review_kind  # every shard ran with the same settings
    if kind is not None:
        notes = [*([review_kind] if review_kind and reports else []), *notes]
        review_kind = kind
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
        # Files, not items: the shard that scanned a file lists it, the others may too.
        not_code=sorted({n.path: n for r in reports for n in r.not_code}.values(),
                        key=lambda n: n.path),
        usage=_usage(ordered),
        notes=list(dict.fromkeys(notes)),
        review_kind=review_kind,
        # Computed from the diff alone, the same in every shard that has it.
        risk_evidence=next((r.risk_evidence for r in reports if r.risk_evidence is not None),
                           None),
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
