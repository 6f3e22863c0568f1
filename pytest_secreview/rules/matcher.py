"""Match rules against the diff: path globs first, then regexes on the hunks.

A hunk matches a rule when its added lines satisfy ``grep.all`` (every pattern) and
``grep.any`` (at least one pattern), or when its removed lines match one of ``grep.removed``
(a pull request that deletes a safeguard). A rule without any grep matches every hunk of the
files its globs select. Only reviewable files (not deleted, binary or too large) match.

Every grep pattern of every rule goes into one RE2 ``Set`` per side, so each hunk's added
text and removed text is scanned once, whatever the number of rules and patterns; a rule's
verdict on a hunk is then set arithmetic over the pattern indices that hit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pathspec

from ..core.decide import judge_exclusion
from ..core.record import Origin
from ..diff.kinds import classes_chosen_by_pr, default_exclusions
from ..diff.model import FileDiff, Hunk
from ..safe_regex import LineSet, SafePattern
from ..textnorm import variants
from .model import Rule


@dataclass(frozen=True)
class FileHunks:
    """Some hunks of one changed file."""

    file: FileDiff
    hunks: tuple[Hunk, ...]


@dataclass(frozen=True)
class Target:
    """One (rule, changed file) pair that becomes a pytest item, with the hunks that matched."""

    rule: Rule
    file: FileDiff
    hunks: tuple[Hunk, ...]

    @property
    def parts(self) -> tuple[FileHunks, ...]:
        """The files and hunks in front of the reviewer: one file for a rule's target."""
        return (FileHunks(self.file, self.hunks),)

    @property
    def label(self) -> str:
        """What the item is about, in its node id: the changed file's path."""
        return self.file.path


@dataclass(frozen=True)
class BatchTarget(Target):
    """Hunks of several files in one item: the general review rule's batches (see
    :mod:`pytest_secreview.triage.coverage`). ``file`` and ``hunks`` are the first part's,
    where the item is located in reports; ``rest`` holds the other parts."""

    rest: tuple[FileHunks, ...] = ()
    index: int = 1  # 1-based batch number, stable for the same diff and rules

    @property
    def parts(self) -> tuple[FileHunks, ...]:
        return (FileHunks(self.file, self.hunks), *self.rest)

    @property
    def label(self) -> str:
        paths = list(dict.fromkeys(part.file.path for part in self.parts))
        more = f"+{len(paths) - 1}" if len(paths) > 1 else ""
        return f"b{self.index}:{paths[0]}{more}"


@dataclass(frozen=True)
class DataflowTarget(BatchTarget):
    """The changed files a rule's ``taint:`` section reads where its grep selected nothing: one
    deterministic item per rule that reports the flows the pull request introduces there (a
    pull request that only removes a guard matches no grep). It runs no pattern, scanner or
    model review, so collection never waits for the dataflow analysis."""

    @property
    def label(self) -> str:
        paths = list(dict.fromkeys(part.file.path for part in self.parts))
        more = f"+{len(paths) - 1}" if len(paths) > 1 else ""
        return f"dataflow:{paths[0]}{more}"


def path_suffix(path: str) -> str:
    """``PurePosixPath(path).suffix.lower()`` without building a path object (called for
    every changed file and rule)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


class PathFilter:
    """A rule's ``applies_to`` compiled once: gitignore-style globs and extensions."""

    def __init__(self, rule: Rule) -> None:
        self._include = pathspec.GitIgnoreSpec.from_lines(rule.paths) if rule.paths else None
        self._exclude = pathspec.GitIgnoreSpec.from_lines(rule.exclude) if rule.exclude else None
        self._extensions = rule.file_extensions

    @classmethod
    def of(cls, rule: Rule) -> PathFilter:
        """The one filter of ``rule``'s ``applies_to`` in this process. The streamed scan of
        every binary or too-large file asks each rule for its filter: compiling the globs
        each time cost more than the scan (9,600 compilations, 5 s, for a pull request that
        adds 1,061 translation catalogues)."""
        key = (rule.paths, rule.exclude, rule.file_extensions)
        found = _PATH_FILTERS.get(key)
        if found is None:
            if len(_PATH_FILTERS) >= _MAX_FILTERS:  # a long test session's many rules
                _PATH_FILTERS.clear()
            found = _PATH_FILTERS[key] = cls(rule)
        return found

    def selects(self, path: str, suffix: str | None = None) -> bool:
        """True when the rule applies to a file at ``path`` (repository-relative, POSIX);
        ``suffix`` is its lower-cased extension when the caller already knows it."""
        if self._extensions:
            if suffix is None:
                suffix = path_suffix(path)
            if suffix not in self._extensions:
                return False
        if self._include is not None and not self._include.match_file(path):
            return False
        return not (self._exclude is not None and self._exclude.match_file(path))


#: One compiled filter per distinct ``applies_to`` (paths, exclude, extensions): a rule pack
#: holds a few dozen.
_PATH_FILTERS: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], PathFilter] = {}
_MAX_FILTERS = 1024


class _PatternSet(LineSet):
    """Distinct patterns of one side (added or removed) in one RE2 Set."""

    __slots__ = ()

    def __init__(self, patterns: Iterable[SafePattern]) -> None:
        super().__init__(p.source for p in patterns)

    def ids(self, patterns: Sequence[SafePattern]) -> frozenset[int]:
        return frozenset(self.index[p.source] for p in patterns)


@dataclass(frozen=True)
class _Hits:
    added: frozenset[int]
    removed: frozenset[int]
    has_added: bool
    has_removed: bool


def _scan(hunk: Hunk, added: _PatternSet, removed: _PatternSet) -> _Hits:
    plus, minus = hunk.added_texts(), hunk.removed_texts()
    # The NFKC form of a line too: Python runs 𝗽𝗶𝗰𝗸𝗹𝗲.𝗹𝗼𝗮𝗱𝘀 as pickle.loads.
    return _Hits(added.hits(variants(plus)), removed.hits(variants(minus)),
                 bool(plus), bool(minus))


class _RuleCheck:
    """One rule's path filter and pattern indices."""

    def __init__(self, rule: Rule, added: _PatternSet, removed: _PatternSet) -> None:
        self.rule = rule
        self.paths = PathFilter.of(rule)
        self.all = added.ids(rule.grep_all)
        self.any = added.ids(rule.grep_any)
        self.removed = removed.ids(rule.grep_removed)
        self.has_added_grep = bool(rule.grep_all or rule.grep_any)

    def hunk_matches(self, hits: _Hits) -> bool:
        if not self.has_added_grep and not self.removed:
            return hits.has_added or hits.has_removed
        if self.has_added_grep and hits.has_added and self.all <= hits.added and (
            not self.any or not self.any.isdisjoint(hits.added)
        ):
            return True
        return bool(self.removed) and not self.removed.isdisjoint(hits.removed)


class PreparedDiff:
    """The reviewable files of a diff, scanned once for every rule's patterns."""

    def __init__(self, files: Iterable[FileDiff], aliases: Mapping[str, str] | None = None,
                 excluded: Mapping[str, str] | None = None,
                 chosen: Mapping[str, str] | None = None) -> None:
        self.files = sorted((f for f in files if f.reviewable), key=lambda f: f.path)
        #: Changed path -> the symlink path it also runs under (see ``triage.links``): a
        #: rule that selects either path applies.
        self.aliases: Mapping[str, str] = aliases or {}
        #: Changed path -> why the review's defaults leave it out (vendored, minified, test
        #: code); each rule asks :func:`judge_exclusion` (credential rules still read it).
        self.excluded: Mapping[str, str] = excluded or {}
        #: Excluded path -> how the pull request chose its class (see
        #: ``diff.kinds.classes_chosen_by_pr``): judged with the exclusion, which then fails.
        self.chosen: Mapping[str, str] = chosen or {}
        self._suffixes = [path_suffix(f.path) for f in self.files]
        self._checks: dict[int, _RuleCheck] = {}
        self._hits: list[list[_Hits]] = []
        # Pattern index -> the files (indices into ``files``) where it hit in some hunk.
        self._added_files: dict[int, set[int]] = {}
        self._removed_files: dict[int, set[int]] = {}
        self._targets: dict[int, list[Target]] = {}


    @classmethod
    def with_defaults(cls, files: Iterable[FileDiff], aliases: Mapping[str, str] | None = None
                      ) -> PreparedDiff:
        """The review's prepared diff: the default exclusions of vendored, generated and test
        code, and which of them the pull request chose (:func:`classes_chosen_by_pr`)."""
        files = tuple(files)
        excluded = default_exclusions(files)
        return cls(files, aliases, excluded, classes_chosen_by_pr(files, excluded))
    def index(self, rules: Iterable[Rule]) -> None:
        """Scan every hunk once for the patterns of ``rules`` (call before :meth:`targets`)."""
        rules = list(rules)
        added = _PatternSet(p for r in rules for p in (*r.grep_all, *r.grep_any))
        removed = _PatternSet(p for r in rules for p in r.grep_removed)
        self._checks = {id(r): _RuleCheck(r, added, removed) for r in rules}
        self._hits = [[_scan(h, added, removed) for h in file.hunks] for file in self.files]
        self._added_files, self._removed_files = {}, {}
        for n, hits in enumerate(self._hits):
            for hit in hits:
                for pid in hit.added:
                    self._added_files.setdefault(pid, set()).add(n)
                for pid in hit.removed:
                    self._removed_files.setdefault(pid, set()).add(n)
        self._targets = {}

    def ensure_indexed(self, rules: Iterable[Rule]) -> None:
        """Index ``rules`` (and keep the rules already indexed) unless every one of them is:
        one scan of the diff for all of them. Asking :meth:`targets` of rules one at a time
        on a diff nobody indexed scans it once per rule (the xdist controller, which
        collects nothing, built its report that way: 34 scans of a 20 MB diff)."""
        wanted = {id(r): r for r in (*(c.rule for c in self._checks.values()), *rules)}
        if wanted.keys() != self._checks.keys():
            self.index(wanted.values())

    def targets(self, rule: Rule) -> list[Target]:
        """Every target of ``rule``, sorted by path (none for a pull-request-scoped rule;
        computed once per rule: triage and collection both ask)."""
        if rule.scope != "file":
            return []
        if id(rule) not in self._checks:
            self.index([*(c.rule for c in self._checks.values()), rule])
        found = self._targets.get(id(rule))
        if found is None:
            found = self._targets[id(rule)] = self._compute(rule)
        return found

    def _candidates(self, check: _RuleCheck) -> Iterable[int]:
        """The files that can hold a matching hunk, in order: a superset, from which the
        pattern index rules out at once the files whose hunks hit none of the rule's
        patterns (most files, for most rules) before any per-hunk check."""
        if not check.has_added_grep and not check.removed:
            return range(len(self.files))
        found: set[int] = set()
        if check.has_added_grep:
            added = self._added_files
            pool: set[int] | None = None
            for pid in check.all:
                pool = set(added.get(pid, ())) if pool is None else pool & added.get(pid, set())
            if check.any:
                some = set().union(*(added.get(pid, ()) for pid in check.any))
                pool = some if pool is None else pool & some
            found |= pool or set()
        for pid in check.removed:
            found |= self._removed_files.get(pid, set())
        return sorted(found)

    def excludes(self, rule: Rule, path: str) -> bool:
        """True when the review's defaults leave ``path`` out of ``rule``."""
        why = self.excluded.get(path)
        return why is not None and judge_exclusion(
            rule.category, Origin.DEFAULTS, why, chosen_by_pr=self.chosen.get(path, "")).excluded

    def _selects(self, rule: Rule, paths: PathFilter, path: str, suffix: str) -> bool:
        if self.excludes(rule, path):
            return False
        if paths.selects(path, suffix):
            return True
        alias = self.aliases.get(path)
        return alias is not None and paths.selects(alias)

    def _compute(self, rule: Rule) -> list[Target]:
        check = self._checks[id(rule)]
        targets = []
        for n in self._candidates(check):
            file, hits = self.files[n], self._hits[n]
            # The set arithmetic is cheaper than the globs, and rules out most files first.
            hunks = tuple(h for h, hit in zip(file.hunks, hits, strict=True)
                          if check.hunk_matches(hit))
            if hunks and self._selects(rule, check.paths, file.path, self._suffixes[n]):
                targets.append(Target(rule, file, hunks))
        return targets


def match_file(rule: Rule, file: FileDiff) -> Target | None:
    """The target of ``rule`` on one file, or None when the rule does not apply to it."""
    prepared = PreparedDiff([file])
    prepared.index([rule])
    found = prepared.targets(rule)
    return found[0] if found else None
