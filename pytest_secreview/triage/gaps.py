"""What no item of the review reads, each an unreviewed item of its own so that the
``--secreview-unreviewed`` policy applies to it (:class:`~pytest_secreview.items.
unreviewed_file.UnreviewedItem`): a file too large to review or binary to git (its changed
lines are still streamed through the deterministic rules), an added or moved submodule
(named with its URL and commit: its content is another repository's), a symlink that leaves
the repository or points at a secret file, and hunks over the general review's budget.

Listing them is not enough: a list is read by nobody in CI, and a pull request can choose to
land there (padding a file, filler that sorts first, code moved into a submodule).

A binary file whose name *and* content say it is media that holds no code (an image, a font, a
compiled translation catalogue, audio or video: :func:`~..diff.filetypes.media_type`) is still
an item, so the credential rules read it, but it is *not code*, not a gap: once scanned it
passes (or fails on a finding) and the report lists it apart (:func:`judge_binary`, the one
classification every output reads). Anything else git shows no text of, an executable, an
archive or a script named like an image included, stays a gap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..diff.blobs import BlobEnds, blob_ends
from ..diff.filetypes import claimed_media, media_type, not_media_because
from ..diff.model import ChangeKind, Diff, FileDiff
from ..diff.submodules import submodule_commit
from ..errors import GitError
from ..severity import one_line
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
    #: Known binary media (``"PNG image"``, :class:`BinaryContent`): once its scan ran it is
    #: listed as not code, not as a gap.
    not_code: str | None = None

    @property
    def nodeid(self) -> str:
        """The node id of its unreviewed item."""
        return gap_nodeid(self.file.path)


def gap_name(path: str) -> str:
    """The name of the unreviewed item of ``path``."""
    return f"unreviewed[{one_line(path)}]"


def gap_nodeid(path: str) -> str:
    """The node id of the unreviewed item of ``path``."""
    return f"secreview::{gap_name(path)}"


@dataclass(frozen=True)
class BinaryContent:
    """What the head content of a changed binary file named like media is."""

    #: Known binary media (``"PNG image"``): its name and content agree, no archive is
    #: appended and it is not executable.
    not_code: str | None
    #: Why it is not, in words, for the reason it stays unreviewed (``named like an image,
    #: its content is an ELF executable or library``).
    why_not: str | None = None

    def reason(self, base: str) -> str:
        """``base`` (why the file is unreviewed) with what its content really is."""
        return f"{base}; {self.why_not}" if self.why_not else base


def judge_binary(files: Iterable[FileDiff],
                 read: Callable[[Sequence[str]], Mapping[str, BlobEnds]]
                 ) -> dict[str, BinaryContent]:
    """What each added or changed file of ``files`` that git shows no text of and whose name
    says media (:func:`~..diff.filetypes.claimed_media`) is, from the two ends of its head
    content (``read``: path -> :class:`~..diff.blobs.BlobEnds`). Other files are left out:
    the name alone never makes a file media, and a file not named like media is not read.
    A content git cannot give is not media."""
    named = [f.path for f in files if f.binary and not f.too_large
             and f.kind is not ChangeKind.DELETED and claimed_media(f.path) is not None]
    if not named:
        return {}
    try:
        ends = read(named)
    except GitError as exc:
        ends = {}
        failed = f"its content could not be read from git ({one_line(str(exc))[:200]})"
    else:
        failed = "its content could not be read from git"
    judged: dict[str, BinaryContent] = {}
    for path in named:
        blob = ends.get(path)
        if blob is None:
            judged[path] = BinaryContent(None, failed)
            continue
        media = media_type(path, blob.head, blob.tail)
        if media is not None and blob.mode != "100644":
            judged[path] = BinaryContent(None, f"a {media} with the executable file mode "
                                               f"({blob.mode})")
        else:
            judged[path] = BinaryContent(media, not_media_because(path, blob.head, blob.tail))
    return judged


def read_binary(repo: Path, head_sha: str, files: Iterable[FileDiff]
                ) -> dict[str, BinaryContent]:
    """:func:`judge_binary` of ``files`` at ``head_sha`` in ``repo``."""
    return judge_binary(files, lambda paths: blob_ends(repo, head_sha, paths))


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
    #: The two ends of some head files (:func:`~..diff.blobs.blob_ends`).
    ends: Callable[[Sequence[str]], Mapping[str, BlobEnds]] = lambda _paths: {}


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
        gitlinks=lambda paths: gitlinks(repo, head, paths),
        ends=lambda paths: blob_ends(repo, head, paths)),
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
    content = judge_binary(ordered, head.ends)
    gaps = []
    for file in ordered:
        reason = file.unreviewed_reason  # too large, or binary to git
        if reason:
            seen = content.get(file.path, BinaryContent(None))
            gaps.append(Gap(file, seen.reason(reason), scan=True, not_code=seen.not_code))
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
