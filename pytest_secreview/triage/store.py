"""The model triage's result, shared through the session directory: the controller runs the
model triage once, before any worker collects, and every process reads the same file, so
pytest-xdist workers collect identical items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from .plan import AddedRule

FILE_NAME = "model-triage.json"


def save_model_triage(session_dir: Path, added: list[AddedRule], record: dict[str, Any]) -> None:
    """Write the result atomically (a reader never sees half a file)."""
    data = {"added": [{"rule": a.rule, "paths": list(a.paths), "reason": a.reason}
                      for a in added], "record": record}
    write_text_atomic(session_dir / FILE_NAME, json.dumps(data, sort_keys=True))


def load_model_triage(session_dir: Path | None) -> tuple[list[AddedRule], dict[str, Any] | None]:
    """The saved result, or nothing when no model triage ran in this session."""
    if session_dir is None:
        return [], None
    try:
        data = json.loads((session_dir / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], None
    added = [AddedRule(str(a["rule"]), tuple(str(p) for p in a["paths"]), str(a["reason"]))
             for a in data.get("added", [])]
    return added, data.get("record")
