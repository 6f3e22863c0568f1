"""What users install: the source tree under test, snapshot into a git repository, and the
sdist and wheel built from it offline, the way pip builds them.

The snapshot holds the tracked and the untracked-but-not-ignored files, so work not yet
committed is what gets built and tested. Building happens in the snapshot, never in the
working tree (a build writes ``build/`` and ``*.egg-info``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def source_files(root: Path = ROOT) -> list[str]:
    """The tree's files as a clone plus uncommitted work would hold them (relative paths)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, check=True, timeout=60,
    ).stdout.decode()
    return sorted(p for p in listed.split("\0") if p and (root / p).is_file())


#: Fixed author, committer and dates: the same files give the same commit.
FIXED_GIT_ENV = {"GIT_AUTHOR_NAME": "snapshot", "GIT_AUTHOR_EMAIL": "snapshot@localhost",
                 "GIT_COMMITTER_NAME": "snapshot", "GIT_COMMITTER_EMAIL": "snapshot@localhost",
                 "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                 "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM": "1"}


def snapshot(destination: Path, root: Path = ROOT) -> str:
    """Commit the tree of ``root`` as a clone with its uncommitted work would hold it
    (:func:`source_files`) into a new repository ``destination``; returns the commit."""
    destination.mkdir(parents=True, exist_ok=True)
    for rel in source_files(root):
        target = destination / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    env = {**os.environ, **FIXED_GIT_ENV, "HOME": str(destination.parent)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=destination, env=env, check=True,
                       capture_output=True, timeout=120)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=destination, check=True,
                          capture_output=True, text=True, timeout=30).stdout.strip()


@dataclass(frozen=True)
class Built:
    """The sdist and the wheel built from it (``python -m build``: the wheel comes from the
    unpacked sdist, so a file the sdist lacks is missing from the wheel too)."""

    sdist: Path
    wheel: Path

    def wheel_names(self) -> set[str]:
        with zipfile.ZipFile(self.wheel) as archive:
            return set(archive.namelist())

    def sdist_names(self) -> set[str]:
        import tarfile

        with tarfile.open(self.sdist) as archive:
            top = archive.getnames()[0].split("/")[0]
            return {name[len(top) + 1:] for name in archive.getnames()
                    if archive.getmember(name).isfile()}


def build(source: Path, outdir: Path) -> Built:
    """Build the sdist, then the wheel from it, offline (no build isolation: the build
    backend is the one installed beside the tests)."""
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir), str(source)],
        check=False, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, f"the build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    (sdist,) = outdir.glob("*.tar.gz")
    (wheel,) = outdir.glob("*.whl")
    return Built(sdist, wheel)
