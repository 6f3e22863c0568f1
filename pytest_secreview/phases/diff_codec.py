"""The parsed diff as JSON and back, exactly: every hunk keeps git's text, from which the
line numbers are derived again on load (one parser, :class:`~..diff.model.Hunk`)."""

from __future__ import annotations

from typing import Any

from ..diff.model import ChangeKind, Diff, FileDiff, Hunk


def diff_to_json(diff: Diff) -> dict[str, Any]:
    """``diff`` as JSON-safe data (the inverse of :func:`diff_from_json`)."""
    return {
        "base_sha": diff.base_sha,
        "head_sha": diff.head_sha,
        "files": [{
            "path": f.path, "old_path": f.old_path, "kind": f.kind.value, "binary": f.binary,
            "old_mode": f.old_mode, "new_mode": f.new_mode, "similarity": f.similarity,
            "too_large": f.too_large, "submodule": f.submodule,
            "hunks": [{"old_start": h.old_start, "old_count": h.old_count,
                       "new_start": h.new_start, "new_count": h.new_count,
                       "header": h.header, "text": h.text} for h in f.hunks],
        } for f in diff.files],
    }


def diff_from_json(data: dict[str, Any]) -> Diff:
    """The :class:`Diff` :func:`diff_to_json` wrote. Raises ``KeyError``/``ValueError``/
    ``TypeError`` on a malformed file (the caller names the file)."""
    files = []
    for f in data["files"]:
        hunks = tuple(Hunk(int(h["old_start"]), int(h["old_count"]), int(h["new_start"]),
                           int(h["new_count"]), str(h["header"]), text=str(h["text"]))
                      for h in f["hunks"])
        files.append(FileDiff(
            path=str(f["path"]), old_path=f["old_path"], kind=ChangeKind(f["kind"]),
            hunks=hunks, binary=bool(f["binary"]), old_mode=f["old_mode"],
            new_mode=f["new_mode"], similarity=f["similarity"], too_large=bool(f["too_large"]),
            submodule=bool(f["submodule"]),
        ))
    return Diff(base_sha=str(data["base_sha"]), head_sha=str(data["head_sha"]),
                files=tuple(files))
