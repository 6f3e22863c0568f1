"""Find rule files and read their bytes: the bundled pack, directories outside the
repository, and directories inside it read from the base revision (by default) so a pull
request cannot weaken the rules that judge it.

Parsing happens later, per file, so a broken rule is a collection error of its own file
while the other rules still load.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..gitcmd import run_git

BUNDLED = ":bundled"
REPO_RULES_DIR = "secreview/rules"


def bundled_rules_dir() -> Path:
    """The bundled rule pack: inside the installed wheel, or ``rules/`` in a source checkout."""
    installed = Path(__file__).resolve().parent.parent / "bundled_rules"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent.parent / "rules"


def is_bundled(source: str, sha: str) -> bool:
    """True when the rule shown as ``source`` with content hash ``sha`` is a file of the
    bundled pack, which a team cannot edit (it can only load its own copy instead)."""
    from .model import content_sha

    if not source.startswith("rules/"):
        return False
    try:
        raw = (bundled_rules_dir() / source.removeprefix("rules/")).read_bytes()
    except OSError:
        return False
    return content_sha(raw) == sha


@dataclass(frozen=True)
class RuleSource:
    """One rule file's bytes and where they came from."""

    display: str  # repository-relative path or "rules/<name>.md" for the bundled pack
    path: Path  # filesystem path (may not exist when read from the base revision)
    raw: bytes
    revision: str | None  # the commit it was read from, None when read from disk


@dataclass
class RuleFiles:
    """The rule files found, plus notes for the terminal summary."""

    sources: list[RuleSource] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _md_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.md") if p.is_file())


def _read_from_revision(
    repo: Path, revision: str, rel: str, suffixes: tuple[str, ...] = (".md",)
) -> dict[str, bytes]:
    """Every blob under ``rel`` at ``revision`` whose name ends with one of ``suffixes``
    (rule files by default), read with one ``cat-file --batch``."""
    listing = run_git(repo, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options",
                      revision, "--", rel).stdout
    entries: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        path = name.decode("utf-8", "surrogateescape")
        # A rule is a regular file; a symlink blob would point the loader somewhere else.
        if kind == "blob" and mode in {"100644", "100755"} and path.endswith(suffixes):
            entries.append((path, sha))
    if not entries:
        return {}
    batch = "".join(f"{sha}\n" for _, sha in entries).encode()
    out = run_git(repo, "cat-file", "--batch", input_bytes=batch).stdout
    blobs: dict[str, bytes] = {}
    pos = 0
    for path, _sha in entries:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        start = header_end + 1
        blobs[path] = out[start : start + size]
        pos = start + size + 1
    return blobs


def _relative_to(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def find_rule_files(
    requested: Iterable[str], repo: Path, rules_from: str, base_sha: str, invocation_dir: Path
) -> RuleFiles:
    """Collect rule files from ``requested`` paths (or the defaults when empty).

    Paths inside ``repo`` are read from ``base_sha`` when ``rules_from == "base"``; rule
    files the pull request adds or changes there are not used, and a note says so.
    """
    found = RuleFiles()
    requested = list(requested)
    defaults = not requested
    if defaults:
        requested = [BUNDLED]
        if (repo / REPO_RULES_DIR).is_dir() or _read_from_revision(repo, base_sha, REPO_RULES_DIR):
            requested.append(str(repo / REPO_RULES_DIR))
    for entry in requested:
        if entry == BUNDLED:
            root = bundled_rules_dir()
            for path in _md_files(root):
                display = "rules/" + path.relative_to(root).as_posix()
                found.sources.append(RuleSource(display, path, path.read_bytes(), None))
            continue
        path = (invocation_dir / entry) if not Path(entry).is_absolute() else Path(entry)
        rel = _relative_to(path, repo)
        if rel is not None and rules_from == "base":
            _add_from_base(found, repo, path, rel, base_sha)
            continue
        if not path.exists():
            raise ConfigError(
                f"--secreview-rules {entry}: no such file or directory. Pass a directory of "
                "rule .md files, a single rule file, or :bundled"
            )
        files = _md_files(path) if path.is_dir() else [path]
        for file in files:
            display = _relative_to(file, repo) or file.as_posix()
            found.sources.append(RuleSource(display, file, file.read_bytes(), None))
    if not found.sources:
        raise ConfigError(
            "no rule files found in " + ", ".join(requested) + "; a review with no rules "
            "checks nothing. Add rule .md files or pass --secreview-rules :bundled"
            + "".join(f". {note}" for note in found.notes)
        )
    return found


def _add_from_base(found: RuleFiles, repo: Path, path: Path, rel: str, base_sha: str) -> None:
    rel = "" if rel == "." else rel
    blobs = _read_from_revision(repo, base_sha, rel or ".")
    if not blobs:
        if not path.exists():
            raise ConfigError(
                f"--secreview-rules {rel or '.'}: no such file or directory at the base "
                f"revision {base_sha[:12]} nor in the working tree"
            )
        found.notes.append(
            f"{rel}: not present at the base revision {base_sha[:12]}; its rules were added by "
            "this pull request and are not used (--secreview-rules-from=base). Merge them first "
            "or pass --secreview-rules-from=head on trusted branches."
        )
        return
    for name, raw in sorted(blobs.items()):
        found.sources.append(RuleSource(name, repo / name, raw, base_sha))
    on_disk = _md_files(path) if path.is_dir() else ([path] if path.is_file() else [])
    changed = [
        p for p in on_disk
        if (r := _relative_to(p, repo)) is not None and blobs.get(r) != p.read_bytes()
    ]
    if changed:
        found.notes.append(
            f"{len(changed)} rule file(s) under {rel} differ from the base revision "
            f"{base_sha[:12]}; the base versions were used (--secreview-rules-from=base)"
        )
