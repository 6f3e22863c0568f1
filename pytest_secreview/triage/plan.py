"""Rule selection for one pull request: what the changed files are, which rules run on which
files, and the general review's batches for what no specific rule matched.

Deterministic first (kinds and languages from paths and shebangs, dependency manifests, CI
workflows, infrastructure); an optional model triage (:mod:`.model_triage`) may add rules on
files, never drop a deterministic match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..diff.kinds import FileKind, Kind
from ..diff.model import Diff, FileDiff
from ..rules.matcher import BatchTarget, DataflowTarget, FileHunks, PathFilter, PreparedDiff, Target
from ..rules.model import Rule
from .coverage import CoveragePlan, LeftOut, file_kind, plan_coverage
from .ignore import IgnoreFile

#: Suffixes of the files the taint engine analyses (``pytest_secreview.analysis``).
TAINT_SUFFIXES = (".py", ".pyw")


@dataclass(frozen=True)
class ScannerTarget(BatchTarget):
    """Changed files a ``scanner:`` rule covers, several per item: the scanner runs once per
    session over all of the rule's files (:mod:`pytest_secreview.scanners.session`), and each
    item reports the findings in its own files, kept to their changed lines."""

    @property
    def label(self) -> str:
        assert self.rule.scanner is not None
        paths = list(dict.fromkeys(part.file.path for part in self.parts))
        more = f"+{len(paths) - 1}" if len(paths) > 1 else ""
        return f"{self.rule.scanner.name}:{paths[0]}{more}"


@dataclass(frozen=True)
class AddedRule:
    """A rule the model triage asked to run on files no grep of it matched, and why."""

    rule: str
    paths: tuple[str, ...]
    reason: str


class TriagePlan:
    """Which rules run on which files, and what is left out of the model's view."""

    def __init__(
        self, files: Sequence[FileDiff], coverage: CoveragePlan,
        added: tuple[AddedRule, ...] = (),
        extra_targets: dict[str, tuple[Target, ...]] | None = None,
        model: dict[str, Any] | None = None,
        idle_scanners: frozenset[str] = frozenset(),
        ignore: IgnoreFile | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.files = files
        #: The base revision's ``.secreviewignore``: files a rule does not see.
        self.ignore = ignore or IgnoreFile()
        self.coverage = coverage
        self.added = added
        self.extra_targets = extra_targets or {}
        self.model = model  # the model triage's record for the artifacts
        #: Scanners that cannot run in this session whatever the files (semgrep without a
        #: config): their rule makes no item (nothing would run), and the summary says how
        #: to configure it.
        self.idle_scanners = idle_scanners
        self.aliases: Mapping[str, str] = aliases or {}
        self._scanner_items: dict[int, list[Target]] = {}

    @cached_property
    def kinds(self) -> dict[str, FileKind]:
        """Kind and language of every changed path (computed when a report asks: collection
        needs only the kinds of the files the general review reads)."""
        aliases = self.aliases
        return {f.path: file_kind(f, aliases.get(f.path)) for f in self.files}

    @property
    def languages(self) -> list[str]:
        """Languages of the changed files, sorted."""
        return sorted({k.language for k in self.kinds.values() if k.language})

    def paths_of(self, *kinds: Kind) -> list[str]:
        """Changed paths of the given kinds, sorted."""
        return sorted(p for p, k in self.kinds.items() if k.kind in kinds)

    @property
    def reviewable(self) -> bool:
        """True when a changed file is of a kind the review reads."""
        return any(k.reviewed for k in self.kinds.values())

    def nothing_to_review(self) -> str:
        """The one line said when no item was collected."""
        if not self.kinds:
            return "nothing to review: the range changes no file"
        if not self.reviewable:
            counts: dict[str, int] = {}
            for kind in self.kinds.values():
                counts[kind.kind.value] = counts.get(kind.kind.value, 0) + 1
            listing = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
            return (f"nothing to review: {len(self.kinds)} changed file(s), none of them code "
                    f"or configuration ({listing})")
        if self.coverage.rule is not None:
            return "nothing to review: no rule matched the changes in this range"
        return ("nothing to review: no rule matched the changes in this range, and no "
                "general review rule (a rule with `coverage:`) is loaded")

    def left_out(self) -> tuple[LeftOut, ...]:
        """What the general review did not put in front of a model, and why."""
        return self.coverage.left_out

    def targets(self, rule: Rule, prepared: PreparedDiff) -> Sequence[Target]:
        """The targets ``rule`` runs on: the general rule's batches, or a specific rule's
        matches plus the files the model triage added."""
        if rule.coverage is not None:
            return self.coverage.batches if rule is self.coverage.rule else ()
        if rule.scanner is not None:
            if rule.scanner.name in self.idle_scanners:
                return ()
            found = self._scanner_items.get(id(rule))
            if found is None:
                found = self._scanner_items[id(rule)] = scanner_items(
                    rule, self._matched(rule, prepared))
            return found
        return self._matched(rule, prepared)

    def _matched(self, rule: Rule, prepared: PreparedDiff) -> Sequence[Target]:
        matched = self.seen_by(rule, prepared.targets(rule))
        extra = self.extra_targets.get(rule.id, ())
        if not extra:
            return matched
        have = {t.file.path for t in matched}
        merged = [*matched, *(t for t in self.seen_by(rule, extra) if t.file.path not in have)]
        return sorted(merged, key=lambda t: t.file.path)

    def seen_by(self, rule: Rule, targets: Sequence[Target]) -> Sequence[Target]:
        """``targets`` without the files the ignore file excludes from ``rule``."""
        if not self.ignore.patterns:
            return targets
        return [t for t in targets if not self.ignore.excludes(rule, t.file.path)]

    def dataflow_files(self, rule: Rule, files: Sequence[FileDiff] | None
                       ) -> Sequence[FileDiff] | None:
        """The files ``rule``'s dataflow reads (``files``), less the ones it does not see."""
        if files is None or not self.ignore.patterns:
            return files
        return [f for f in files if not self.ignore.excludes(rule, f.path)]

    def to_json(self) -> dict[str, Any]:
        """The plan for the artifacts directory (``triage.json``)."""
        cov = self.coverage
        return {
            "files": [{"path": p, "kind": k.kind.value, "language": k.language}
                      for p, k in sorted(self.kinds.items())],
            "languages": self.languages,
            "dependency_files": self.paths_of(Kind.DEPENDENCIES, Kind.LOCK),
            "ci_files": self.paths_of(Kind.CI),
            "iac_files": self.paths_of(Kind.IAC, Kind.CONTAINER),
            "coverage": {
                "rule": cov.rule.id if cov.rule else None,
                "hunks_covered_by_specific_rules": cov.covered_by_rules,
                "hunks_batched": cov.hunks_batched,
                "items": [{"label": b.label, "paths": [p.file.path for p in b.parts],
                           "hunks": sum(len(p.hunks) for p in b.parts)} for b in cov.batches],
                "left_out": [{"path": x.path, "reason": x.reason} for x in cov.left_out],
            },
            "model_triage": self.model,
            "added_rules": [{"rule": a.rule, "paths": list(a.paths), "reason": a.reason}
                            for a in self.added],
        }


def runs_without_model(rule: Rule) -> bool:
    """True when ``rule`` has something to run with no model: ``detect`` patterns, a
    ``taint:`` section or a ``scanner:``, or no reviewer instructions at all. The general
    review and a rule made only of instructions have nothing."""
    if rule.coverage is not None or rule.scope != "file":
        return False
    return bool(rule.detect or rule.taint or rule.scanner) or not rule.needs_model


def scanner_items(rule: Rule, targets: Sequence[Target]) -> list[Target]:
    """``targets`` (one per file, sorted by path) grouped into items within the rule's
    ``scanner:`` budget, in order; a file larger than the budget gets an item of its own."""
    assert rule.scanner is not None
    files_cap = rule.scanner.files_per_item
    chars_cap: int | None = rule.scanner.chars_per_item
    groups: list[list[Target]] = []
    chars = 0
    for target in targets:
        size = sum(len(h.text) for h in target.hunks)
        if not groups or len(groups[-1]) >= files_cap or (
                chars_cap is not None and chars + size > chars_cap):
            groups.append([])
            chars = 0
        groups[-1].append(target)
        chars += size
    return [ScannerTarget(rule, group[0].file, group[0].hunks, index=i,
                          rest=tuple(FileHunks(t.file, t.hunks) for t in group[1:]))
            for i, group in enumerate(groups, start=1)]


def taint_files(diff: Diff) -> tuple[FileDiff, ...]:
    """The changed files the taint engine analyses (reviewable Python files with hunks),
    sorted by path: known from the diff alone, so collection never builds the analysis."""
    return tuple(sorted((f for f in diff.files if f.reviewable and f.hunks
                         and f.path.endswith(TAINT_SUFFIXES)), key=lambda f: f.path))


def with_dataflow_target(rule: Rule, targets: Sequence[Target],
                         files: Sequence[FileDiff] | None,
                         prepared: PreparedDiff | None = None) -> list[Target]:
    """``targets`` plus, for a rule with a ``taint:`` section, one :class:`DataflowTarget`
    holding every changed file the engine reads (``files``, sorted by path; None: no dataflow
    in this run) that no target covers: the flows there are found when the item runs, not
    at collection. ``prepared``: its default exclusions apply to these files too."""
    if rule.taint is None or files is None:
        return list(targets)
    covered = {part.file.path for target in targets for part in target.parts}
    paths = PathFilter.of(rule)
    rest = [FileHunks(f, f.hunks) for f in files
            if f.path not in covered and paths.selects(f.path)
            and not (prepared is not None and prepared.excludes(rule, f.path))]
    if not rest:
        return list(targets)
    first, *others = rest
    return [*targets, DataflowTarget(rule, first.file, first.hunks, rest=tuple(others))]


def plan_triage(
    diff: Diff, prepared: PreparedDiff, rules: Sequence[Rule],
    added: Sequence[AddedRule] = (), model: dict[str, Any] | None = None,
    idle_scanners: frozenset[str] = frozenset(),
    ignore: IgnoreFile | None = None,
) -> TriagePlan:
    """The deterministic plan, plus the rules a model triage added (``added``).
    ``idle_scanners``: scanners that cannot run in this session (they make no item);
    ``ignore``: the base revision's ignore file (what it excludes, no rule sees)."""
    ignore = ignore or IgnoreFile()
    by_id = {r.id: r for r in rules if r.coverage is None}
    by_path = {f.path: f for f in prepared.files}
    extra: dict[str, tuple[Target, ...]] = {}
    for addition in added:
        rule = by_id.get(addition.rule)
        if rule is None:
            continue
        targets = [Target(rule, by_path[p], by_path[p].hunks) for p in sorted(set(addition.paths))
                   if p in by_path and by_path[p].hunks and PathFilter.of(rule).selects(p)]
        extra[rule.id] = (*extra.get(rule.id, ()), *targets)
    specific = [t for r in by_id.values() for t in (*prepared.targets(r), *extra.get(r.id, ()))]
    general = next((r for r in rules if r.coverage is not None), None)
    # Ignored files are neither batched for the general review nor listed as left out.
    files = [f for f in diff.files if general is None or not ignore.excludes(general, f.path)]
    coverage = plan_coverage(files, rules, specific, prepared.aliases)
    return TriagePlan(diff.files, coverage, tuple(added), extra, model, idle_scanners, ignore,
                      prepared.aliases)

