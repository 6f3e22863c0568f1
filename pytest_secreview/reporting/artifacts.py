"""The artifacts directory: the diff and the rules used, one task file and one
evaluation file per item (what was sent to the model without file bodies, the transcript of
tool calls, findings, usage), and the report. Everything written is redacted."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..atomic import UnsafeOutputPath, check_output_path, write_chunks_atomic, write_text_atomic
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


#: The one JSON layout of every artifact and report file.
_ENCODER = json.JSONEncoder(indent=2, sort_keys=True, ensure_ascii=False)


def dump_json(data: Any) -> str:
    """Deterministic, redacted JSON text."""
    return _ENCODER.encode(redact_data(data)) + "\n"


def json_chunks(data: Any) -> Iterator[str]:
    """:func:`dump_json`'s text, piece by piece. ``json.dumps`` with an indent gathers
    every piece in a list before joining them (36 MiB of small strings for a 5 MB
    ``summary.json``); written as they come, only the redacted data is held."""
    yield from _ENCODER.iterencode(redact_data(data))
    yield "\n"


def item_dir_name(nodeid: str) -> str:
    """A file-system-safe, unique directory name for a node id."""
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    return f"{_UNSAFE.sub('_', nodeid)[-80:].strip('_')}-{digest}"


def diff_chunks(diff: Diff) -> Iterator[str]:
    """The reviewed diff as patch text (hunks as git printed them), one changed file at a
    time."""
    yield f"# merge base {diff.base_sha}\n# head {diff.head_sha}\n"
    for file in diff.files:
        old = file.old_path or file.path
        yield "".join([f"diff --git a/{old} b/{file.path}\n# {file.kind.value}"
                       + (" (binary)" if file.binary else "")
                       + (" (too large, not reviewed)" if file.too_large else "") + "\n",
                       *(h.text if h.text.endswith("\n") else h.text + "\n"
                         for h in file.hunks)])


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
        return self._write(relative, lambda target: write_text_atomic(
            target, sanitize(text) if not relative.endswith(".json") else text))

    def _write(self, relative: str, write: Callable[[Path], Path]) -> Path:
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise UnsafeOutputPath(f"{relative!r}: an artifact name must stay inside "
                                   f"{self.root}; this is a bug in pytest-secreview")
        self._claim()
        return write(self.root / relative)

    def write_chunks(self, relative: str, chunks: Iterable[str]) -> Path:
        """Write ``chunks`` to ``root/relative``, each redacted on its own and written as it
        comes (the same checks as :meth:`write_text`): the text is never held whole. A
        secret is found within its chunk: give chunks no secret crosses (a file's hunks)."""
        return self._write(relative, lambda target: write_chunks_atomic(
            target, (sanitize(chunk) for chunk in chunks)))

    def write_json(self, relative: str, data: Any) -> Path:
        """Write ``data`` as redacted JSON (:func:`dump_json`'s text) to ``root/relative``,
        streamed to the file (the same checks as :meth:`write_text`)."""
        return self._write(relative, lambda target: write_chunks_atomic(target,
                                                                        json_chunks(data)))

    def write_inputs(self, diff: Diff, sources: list[RuleSource]) -> None:
        """The diff and a copy of every rule file used (from the revision it was read from)."""
        # One changed file at a time: the patch of a large pull request (20 MB for 4,000
        # files) redacted whole held it several times over (300 MiB at the peak).
        self.write_chunks("diff.patch", diff_chunks(diff))
        index = []
        for source in sorted(sources, key=lambda s: s.display):
            target = f"rules/{source.display}"
            self.write_text(target, source.raw.decode("utf-8", "replace"))
            index.append({"rule_file": source.display, "revision": source.revision or "disk"})
        self.write_json("rules/index.json", index)

    def write_item(self, nodeid: str, artifact: dict[str, Any], outcome: str) -> None:
        """``items/<node>/task.json`` and ``items/<node>/evaluation.json``."""
        base = f"items/{item_dir_name(nodeid)}"
        self.write_json(f"{base}/task.json", artifact.get("task", {}))
        evaluation = {**artifact.get("evaluation", {}), "outcome": outcome}
        self.write_json(f"{base}/evaluation.json", evaluation)
