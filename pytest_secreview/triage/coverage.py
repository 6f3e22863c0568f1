"""The coverage guarantee: every changed hunk of a reviewable file is in front of the model in
at least one item. Hunks that no specific model rule matched go to the general review rule
(the rule with a ``coverage:`` key, bundled as ``security-review``), several files per item
within the rule's budget, so a large pull request makes a few items, not hundreds.

What the general review leaves out (documentation, lock files, generated and vendored paths,
the rule's own ``applies_to`` exclusions, hunks over the session's item budget) is listed with
the reason; nothing is left out silently.

Batches depend only on pinned inputs (the diff, the rules, sorted paths), so every
pytest-xdist worker collects the same items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..diff.kinds import LEFT_OUT_REASON, FileKind, Kind, classify
from ..diff.model import FileDiff, Hunk
from ..rules.matcher import BatchTarget, FileHunks, PathFilter, Target
from ..rules.model import Coverage, Rule

#: Review order when the budget runs out: code and the files that run it before settings.
_PRIORITY = {Kind.CODE: 0, Kind.CI: 0, Kind.CONTAINER: 1, Kind.IAC: 1, Kind.DEPENDENCIES: 1,
             Kind.CONFIG: 2}


@dataclass(frozen=True)
class LeftOut:
    """A changed file (or part of one) the general review does not put in front of a model."""

    path: str
    reason: str
    #: Hunks over the budget: the file is reviewable but no item of the general rule holds
    #: them (an unreviewed item of its own, see :mod:`.gaps`), unlike the kinds it never reads.
    over_budget: bool = False
    #: Over the budget: how many of the file's hunks no item holds (each hunk counted once).
    hunks: int = 0


@dataclass(frozen=True)
class CoveragePlan:
    """The general rule's batches and what it left out."""

    rule: Rule | None
    batches: tuple[BatchTarget, ...]
    left_out: tuple[LeftOut, ...]
    covered_by_rules: int  # hunks a specific model rule already puts in front of the model
    hunks_batched: int


def first_text(file: FileDiff) -> str:
    """The file's first lines when its first hunk starts at line 1 (for a shebang or a
    Kubernetes ``apiVersion:``), else ''."""
    if not file.hunks or file.hunks[0].new_start > 1:
        return ""
    lines = file.hunks[0].text.split("\n", 12)[1:12]
    return "\n".join(line[1:] for line in lines if line[:1] in {"+", " "})


def file_kind(file: FileDiff, alias: str | None = None) -> FileKind:
    """The kind of a changed file; ``alias``: the path of a symlink that reaches it (see
    :mod:`.links`), whose kind it takes when its own path is one the review leaves out."""
    kind = classify(file.path, first_text(file))
    if alias is not None and not kind.reviewed:
        return classify(alias, first_text(file))
    return kind


def _size(hunk: Hunk) -> tuple[int, int]:
    # Every line after the "@@" header follows a newline; the header itself starts with "@".
    text = hunk.text
    return text.count("\n+") + text.count("\n-"), len(text)


def _candidates(
    files: Iterable[FileDiff], rule: Rule, covered: set[int], left_out: list[LeftOut],
    aliases: Mapping[str, str],
) -> list[tuple[int, str, FileDiff, tuple[Hunk, ...]]]:
    """(priority, path, file, uncovered hunks) of every file the general rule reviews."""
    paths = PathFilter.of(rule)
    found = []
    for file in files:
        if file.binary or file.submodule or file.too_large or not file.hunks:
            continue  # reported elsewhere (binary, submodule, too large) or nothing to read
        uncovered = tuple(h for h in file.hunks if id(h) not in covered)
        if not uncovered:
            continue
        kind = file_kind(file, aliases.get(file.path))
        if not kind.reviewed:
            left_out.append(LeftOut(file.path, LEFT_OUT_REASON[kind.kind]))
            continue
        alias = aliases.get(file.path)
        if not paths.selects(file.path) and not (alias and paths.selects(alias)):
            left_out.append(LeftOut(file.path, f"excluded by {rule.source} applies_to"))
            continue
        found.append((_PRIORITY.get(kind.kind, 2), file.path, file, uncovered))
    found.sort(key=lambda c: (c[0], c[1]))
    return found


def _batch(
    rule: Rule, budget: Coverage,
    candidates: Sequence[tuple[int, str, FileDiff, tuple[Hunk, ...]]],
    left_out: list[LeftOut],
) -> list[BatchTarget]:
    """Greedy, in order: a hunk joins the open item unless it would pass the item's budget
    (a hunk larger than the budget gets an item of its own; hunks are never split)."""
    batches: list[list[FileHunks]] = []
    current: list[FileHunks] = []
    lines = chars = 0
    over: dict[str, int] = {}
    capped = False
    for _priority, path, file, hunks in candidates:
        pending: list[Hunk] = []
        for hunk in hunks:
            if capped:
                over[path] = over.get(path, 0) + 1
                continue
            hunk_lines, hunk_chars = _size(hunk)
            if (current or pending) and (lines + hunk_lines > budget.lines_per_item
                                         or chars + hunk_chars > budget.chars_per_item):
                if pending:
                    current.append(FileHunks(file, tuple(pending)))
                    pending = []
                batches.append(current)
                current, lines, chars = [], 0, 0
                if len(batches) >= budget.max_items:
                    capped = True
                    over[path] = over.get(path, 0) + 1
                    continue
            pending.append(hunk)
            lines += hunk_lines
            chars += hunk_chars
        if pending:
            current.append(FileHunks(file, tuple(pending)))
    if current:
        batches.append(current)
    # One reason for every file over the rule's budget, so each output counts files under
    # it; the hunks are counted on each LeftOut and said once, in the coverage line.
    reason = over_budget_reason(rule, budget) if over else ""
    for path, count in sorted(over.items()):
        left_out.append(LeftOut(path, reason, over_budget=True, hunks=count))
    return [
        BatchTarget(rule, parts[0].file, parts[0].hunks, rest=tuple(parts[1:]), index=i)
        for i, parts in enumerate(batches, start=1)
    ]


def over_budget_reason(rule: Rule, budget: Coverage) -> str:
    """Why a file's hunks are over ``rule``'s budget, and what would change it: a larger
    ``coverage.max_items`` in a rule file the review reads (the bundled one cannot be edited),
    or a smaller pull request."""
    from ..rules.loader import REPO_RULES_DIR, is_bundled

    items = f"{budget.max_items} item{'s' if budget.max_items != 1 else ''}"
    if is_bundled(rule.source, rule.content_sha):
        advice = (f"split the pull request, or copy {rule.source} into {REPO_RULES_DIR}/ on the "
                  "base branch, raise coverage.max_items there and run without :bundled in "
                  "--secreview-rules (the bundled file cannot be edited)")
    else:
        advice = (f"split the pull request, or raise coverage.max_items in {rule.source} (read "
                  "from the base branch unless --secreview-rules-from=head)")
    return f"over the coverage budget of {rule.id} ({items}): {advice}"


def plan_coverage(
    files: Sequence[FileDiff], rules: Sequence[Rule], rule_targets: Iterable[Target],
    aliases: Mapping[str, str] | None = None,
) -> CoveragePlan:
    """Batch every hunk of ``files`` that none of ``rule_targets`` (the specific rules'
    targets) puts in front of a model, for the first rule with a ``coverage:`` key.

    ``aliases``: changed path -> a symlink that reaches it (:mod:`.links`).
    ``files`` is the whole diff: deleted files count too (deleting a security middleware is a
    change to review), though a finding can only point at a file of the head revision.
    """
    general = next((r for r in rules if r.coverage is not None), None)
    covered = {id(h) for t in rule_targets if t.rule.needs_model and t.rule.coverage is None
               for h in t.hunks}
    if general is None or general.coverage is None:
        return CoveragePlan(None, (), (), len(covered), 0)
    left_out: list[LeftOut] = []
    ordered = sorted(files, key=lambda f: f.path)
    candidates = _candidates(ordered, general, covered, left_out, aliases or {})
    batches = _batch(general, general.coverage, candidates, left_out)
    batched = sum(len(p.hunks) for b in batches for p in b.parts)
    return CoveragePlan(general, tuple(batches), tuple(sorted(left_out, key=lambda x: x.path)),
                        len(covered), batched)

