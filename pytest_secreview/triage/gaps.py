"""What no item of the review reads, each an unreviewed item of its own so that the
``--secreview-unreviewed`` policy applies to it (:class:`~pytest_secreview.items.
unreviewed_file.UnreviewedItem`): a file too large to review or binary to git (its changed
lines are still streamed through the deterministic rules), an added or moved submodule
(named with its URL and commit: its content is another repository's), a symlink that leaves
the repository or points at a secret file, and hunks over the general review's budget.

Listing them is not enough: a list is read by nobody in CI, and a pull request can choose to
land there (padding a file, filler that sorts first, code moved into a submodule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..diff.model import ChangeKind, Diff, FileDiff
from ..diff.submodules import submodule_commit
from .coverage import LeftOut
from .links import Links


@dataclass(frozen=True)
class Gap:
    """A changed file (or part of one) that no item reviews, and why."""

    file: FileDiff
    reason: str
    #: True: its changed lines are read from git and scanned by the deterministic rules (the
    #: review never held them); False: there is nothing to scan (a submodule) or the rules'
    #: own items already scan them (hunks over the budget).
    scan: bool


def submodule_reason(file: FileDiff, url: str | None, commit: str | None) -> str:
    """Why a changed submodule is not reviewed, naming what it now points at."""
    where = f"submodule {url or '(URL not in the head revision .gitmodules)'}"
    at = f" at commit {commit}" if commit else ""
    what = "added" if file.kind is ChangeKind.ADDED else "moved or updated"
    return (f"{what} {where}{at}: its content is another repository's and is not reviewed; "
            "review that commit before merging")


@dataclass(frozen=True)
class HeadTree:
    """What the gaps need to know of the head revision, asked only when a submodule may
    have changed: its submodule URLs by path, and which of some paths are submodules (path
    -> commit)."""

    urls: Callable[[], Mapping[str, str]]
    gitlinks: Callable[[Sequence[str]], Mapping[str, str]]


def _pure_move(file: FileDiff) -> bool:
    return (file.kind in (ChangeKind.RENAMED, ChangeKind.COPIED) and not file.hunks
            and not file.binary)


def review_gaps(repo: Path, diff: Diff, left_out: Iterable[LeftOut],
                links: Links | None) -> list[Gap]:
    """Every gap of ``diff``, read from the head revision of ``repo``; ``links``: the changed
    symlinks that leave the repository or point at a secret file (:mod:`.links`)."""
    from ..diff.submodules import gitlinks, submodule_urls

    head = diff.head_sha
    return find_gaps(diff.files, left_out, HeadTree(
        urls=lambda: submodule_urls(repo, head),
        gitlinks=lambda paths: gitlinks(repo, head, paths)),
        links.refused if links is not None else {})


def find_gaps(files: Iterable[FileDiff], left_out: Iterable[LeftOut],
                head: HeadTree, refused_links: Mapping[str, str]) -> list[Gap]:
    """Every gap of a diff, sorted by path, at most one per path. ``refused_links``: changed
    symlinks that leave the repository or point at a secret file, with why (:mod:`.links`)."""
    ordered = sorted(files, key=lambda f: f.path)
    over = {x.path: x.reason for x in left_out if x.over_budget}
    moved = head.gitlinks([f.path for f in ordered if _pure_move(f)])
    submodules = {f.path for f in ordered if f.kind is not ChangeKind.DELETED
                  and (f.submodule or f.path in moved)}
    urls = head.urls() if submodules else {}
    gaps = []
    for file in ordered:
        reason = file.unreviewed_reason  # too large, or binary to git
        if reason:
            gaps.append(Gap(file, reason, scan=True))
        elif file.path in submodules:
            commit = moved.get(file.path) or submodule_commit(file)
            gaps.append(Gap(file, submodule_reason(file, urls.get(file.path), commit),
                            scan=False))
        elif file.path in refused_links and file.kind is not ChangeKind.DELETED:
            gaps.append(Gap(file, f"{refused_links[file.path]}; review where it points",
                            scan=False))
        elif file.path in over:
            gaps.append(Gap(file, over[file.path], scan=False))
    return gaps
