"""What a pull request changes in one manifest or lock file: the requirements it adds or
changes (each with the version(s) it introduces, on its head line), the package sources it
adds, the hash pinning it removes."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .manifests import read_manifest
from .model import Manifest, Requirement, Source


@dataclass(frozen=True)
class Introduced:
    """A requirement of the head revision that the base did not have as it is: ``before`` is
    the base's requirement of the same package (and group) it replaces, None for a new one."""

    requirement: Requirement
    before: Requirement | None = None


@dataclass
class ManifestChange:
    """One file's change."""

    path: str
    head: Manifest
    base: Manifest | None
    introduced: list[Introduced] = field(default_factory=list)
    new_sources: list[Source] = field(default_factory=list)
    #: The head line where ``--require-hashes`` was removed (0: not removed).
    require_hashes_removed: int = 0


def _identity(requirement: Requirement) -> tuple[object, ...]:
    return (requirement.group, requirement.key, requirement.spec.replace(" ", ""),
            requirement.version, requirement.origin, requirement.location,
            requirement.hashes > 0)


def compare(path: str, base_text: str | None, head_text: str) -> ManifestChange | None:
    """The change of the file at ``path`` from ``base_text`` (None: added by the pull
    request) to ``head_text``; None when no reader knows the file."""
    head = read_manifest(path, head_text)
    if head is None:
        return None
    base = read_manifest(path, base_text) if base_text is not None else None
    change = ManifestChange(path, head, base)
    old = base.requirements if base is not None else []
    known = {_identity(r) for r in old}
    # a package stated more than once (a pin, and a floor further down) is compared statement
    # by statement: the n-th head statement of a package with the base's n-th
    previous: dict[tuple[str, str], list[Requirement]] = {}
    by_key: dict[str, Requirement] = {}
    for requirement in old:
        previous.setdefault((requirement.group, requirement.key), []).append(requirement)
        by_key.setdefault(requirement.key, requirement)
    rank: dict[tuple[str, str], int] = {}
    for requirement in head.requirements:
        place = (requirement.group, requirement.key)
        nth = rank[place] = rank.get(place, -1) + 1
        if _identity(requirement) in known:
            continue
        stated = previous.get(place, [])
        before = stated[min(nth, len(stated) - 1)] if stated else None
        if before is None and requirement.lock:
            before = by_key.get(requirement.key)  # a lock entry moved between groups
        change.introduced.append(Introduced(requirement, before))
    had = {(s.kind, s.value) for s in (base.sources if base is not None else ())}
    change.new_sources = [s for s in head.sources if (s.kind, s.value) not in had]
    if base is not None and base.require_hashes and not head.require_hashes:
        change.require_hashes_removed = head_line_at(base.lines, head.lines,
                                                     base.require_hashes)
    return change


def head_line_at(base: tuple[str, ...], head: tuple[str, ...], line: int) -> int:
    """The head line (1-based) where the base's ``line`` was, or where it was removed."""
    matcher = difflib.SequenceMatcher(None, base, head, autojunk=False)
    for tag, b1, b2, h1, _h2 in matcher.get_opcodes():
        if b1 <= line - 1 < b2:
            target = h1 + (line - 1 - b1) + 1 if tag == "equal" else h1 + 1
            return max(1, min(target, len(head)))
    return max(1, min(line, len(head)))
