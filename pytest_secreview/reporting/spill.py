"""Each item's artifacts written as soon as its outcome is final (``Summary.spill``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .artifacts import ArtifactWriter


class ItemSpill:
    """Writes each item's artifacts as soon as its outcome is final (``Summary.spill``), so a
    review of thousands of items does not hold every item's task and evaluation until the
    session ends. After a write fails it writes nothing more: the remaining artifacts are
    written (or the failure reported) with the other outputs at the end."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._writer: ArtifactWriter | None = None
        self.error: str | None = None

    def __call__(self, nodeid: str, artifact: dict[str, Any], outcome: str) -> bool:
        if self.error is not None:
            return False
        try:
            if self._writer is None:
                # Loaded with the first finished item: collection stays free of the tools
                # layer that redaction lives in.
                from .artifacts import ArtifactWriter

                self._writer = ArtifactWriter(self._root, own=True)
            self._writer.write_item(nodeid, artifact, outcome)
        except OSError as exc:
            self.error = str(exc)
            return False
        return True
