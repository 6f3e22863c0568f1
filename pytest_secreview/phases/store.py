"""The phases' artifact files under ``<artifacts>/phases/``: where each lives, writing them,
and reading them back with errors that name the file and the command to run first.

Every file records the range it belongs to (``base_sha``, ``head_sha``) and the SHA-256 of
the file it was made from, so a phase never mixes the artifacts of two reviews: a file that
another run replaced since is "stale" and refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..phase_names import command
from ..reporting.artifacts import ArtifactWriter

#: Bumped when a file's shape changes: an older file is refused, not misread.
FORMAT = 1
SUBDIR = "phases"
#: The file each phase writes (the evaluate phase also writes the report's summary.json).
FILES = {"diff": "diff.json", "rules": "rules.json", "evaluate": "evaluate.json",
         "comment": "comment.json"}
#: The evaluate phase's JUnit file when the job named none (``secreview report --junitxml``).
JUNIT = "junit.xml"


class PhaseError(ConfigError):
    """A phase's input is missing, unreadable, or belongs to another review."""


def phase_dir(root: Path) -> Path:
    """``<artifacts>/phases``."""
    return root / SUBDIR


def phase_file(root: Path, phase: str) -> Path:
    """The artifact file ``phase`` writes."""
    return phase_dir(root) / FILES[phase]


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_phase(root: Path, phase: str, data: dict[str, Any]) -> Path:
    """Write ``phase``'s file (deterministic JSON: sorted keys) and return its path.

    Not redacted, unlike the rest of the artifacts directory: the next phase must see the
    diff exactly as git printed it, or a redacted secret would never be found."""
    body = {"phase": phase, "format": FORMAT, **data}
    # Through the artifacts writer: a directory it creates gets its .gitignore of "*", so
    # the unredacted diff is never committed (and never reviewed by a later run).
    return ArtifactWriter(root, own=True).write_text(
        f"{SUBDIR}/{FILES[phase]}",
        json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def read_phase(root: Path, phase: str, *, needed_by: str) -> dict[str, Any]:
    """``phase``'s file as written by :func:`write_phase`.

    Raises :class:`PhaseError` naming the file and the command that makes it when it is
    missing, is not JSON, or is another phase's or another version's file."""
    path = phase_file(root, phase)
    first = f"run `{command(phase)}` first (with the same --secreview-artifacts/--artifacts)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PhaseError(f"{needed_by} needs {path}, which does not exist: {first}") from None
    except (OSError, ValueError) as exc:
        raise PhaseError(f"{needed_by} cannot read {path} ({exc}): {first}") from None
    if not isinstance(data, dict) or data.get("phase") != phase or data.get("format") != FORMAT:
        raise PhaseError(f"{path} is not a {phase} artifact of this version of pytest-secreview "
                         f"(format {FORMAT}): {first}")
    return data


def check_made_from(data: dict[str, Any], key: str, source: Path, *, phase: str,
                    needed_by: str) -> None:
    """Refuse ``data`` when the file it was made from (``source``, whose SHA-256 it recorded
    under ``key``) has changed since: another run of an earlier phase replaced it."""
    if data.get(key) != sha256_of(source):
        raise PhaseError(f"{needed_by}: {source} changed after `{command(phase)}` read it (the "
                         f"artifacts belong to two different runs); run `{command(phase)}` "
                         "again")


def check_range(data: dict[str, Any], base_sha: str, head_sha: str, *, what: Path,
                phase: str, needed_by: str) -> None:
    """Refuse ``data`` (read from ``what``) when it is about another range."""
    for key, expected in (("head_sha", head_sha), ("base_sha", base_sha)):
        found = data.get(key)
        if found != expected:
            raise PhaseError(
                f"{needed_by}: {what} is for {key} {str(found)[:12]}, but the review is of "
                f"{expected[:12]}; run `{command(phase)}` again for this range")
