"""The artifacts directory: the diff and the rules used, one task file and one
evaluation file per item (what was sent to the model without file bodies, the transcript of
tool calls, findings, usage), and the report. Everything written is redacted."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from ..atomic import UnsafeOutputPath, check_output_path, write_text_atomic
from ..diff.model import Diff
from ..rules.loader import RuleSource
from ..tools.redaction import sanitize

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def redact_data(value: Any) -> Any:
    """``value`` with every string redacted and stripped of control characters."""
    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, dict):
        return {str(k): redact_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(v) for v in value]
    return value


def dump_json(data: Any) -> str:
    """Deterministic, redacted JSON text."""
    return json.dumps(redact_data(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def item_dir_name(nodeid: str) -> str:
    """A file-system-safe, unique directory name for a node id."""
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    return f"{_UNSAFE.sub('_', nodeid)[-80:].strip('_')}-{digest}"


def render_diff(diff: Diff) -> str:
    """The reviewed diff as patch text (hunks as git printed them)."""
    out = [f"# merge base {diff.base_sha}\n# head {diff.head_sha}\n"]
    for file in diff.files:
        old = file.old_path or file.path
        out.append(f"diff --git a/{old} b/{file.path}\n# {file.kind.value}"
                   + (" (binary)" if file.binary else "")
                   + (" (too large, not reviewed)" if file.too_large else "") + "\n")
        out.extend(h.text if h.text.endswith("\n") else h.text + "\n" for h in file.hunks)
    return "".join(out)


#: Written into an artifacts directory the plugin creates (as pytest does for its cache):
#: its output is never committed, so a later review never reviews it.
GITIGNORE = "# created by pytest-secreview: review output, never committed or reviewed\n*\n"


class ArtifactWriter:
    """Writes into one artifacts directory; created on first use.

    With ``own=True`` the directory is the plugin's: when it creates it (or finds one it
    wrote before, without the file) it adds a ``.gitignore`` of ``*``. A directory of the
    team's (``--secreview-artifacts=docs``) is never ignored wholesale.
    """

    def __init__(self, root: Path, *, own: bool = False) -> None:
        self.root = root
        self._own = own
        self._claimed = False

    def _claim(self) -> None:
        if self._claimed:
            return
        check_output_path(self.root)
        created = not self.root.exists()
        self.root.mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        earlier = (self.root / "diff.patch").is_file() and (self.root / "items").is_dir()
        if self._own and (created or earlier) and not ignore.exists():
            write_text_atomic(ignore, GITIGNORE)
        self._claimed = True

    def write_text(self, relative: str, text: str) -> Path:
        """Write redacted ``text`` to ``root/relative`` (never through a link, never outside
        ``root``: see :func:`~pytest_secreview.atomic.write_text_atomic`)."""
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise UnsafeOutputPath(f"{relative!r}: an artifact name must stay inside "
                                   f"{self.root}; this is a bug in pytest-secreview")
        self._claim()
        return write_text_atomic(
            self.root / relative,
            sanitize(text) if not relative.endswith(".json") else text)

    def write_inputs(self, diff: Diff, sources: list[RuleSource]) -> None:
        """The diff and a copy of every rule file used (from the revision it was read from)."""
        self.write_text("diff.patch", render_diff(diff))
        index = []
        for source in sorted(sources, key=lambda s: s.display):
            target = f"rules/{source.display}"
            self.write_text(target, source.raw.decode("utf-8", "replace"))
            index.append({"rule_file": source.display, "revision": source.revision or "disk"})
        self.write_text("rules/index.json", dump_json(index))

    def write_item(self, nodeid: str, artifact: dict[str, Any], outcome: str) -> None:
        """``items/<node>/task.json`` and ``items/<node>/evaluation.json``."""
        base = f"items/{item_dir_name(nodeid)}"
        self.write_text(f"{base}/task.json", dump_json(artifact.get("task", {})))
        evaluation = {**artifact.get("evaluation", {}), "outcome": outcome}
        self.write_text(f"{base}/evaluation.json", dump_json(evaluation))
