"""The outcome of fix mode for one finding: a JSON-safe value that travels with the item's
report (xdist workers to the controller) into the report, the comment and the artifacts."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from typing import Any

from ..core.findings import Finding

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

#: Where the patches go inside the artifacts directory.
FIXES_DIR = "fixes"
COMBINED_NAME = "all.patch"


@dataclass(frozen=True)
class FixResult:
    """One finding's proposed fix: kept (it applies and, when a deterministic check can
    tell, removes the finding) or dropped, and why."""

    rule: str
    path: str
    line: int
    title: str
    fingerprint: str
    status: str  # "kept" or "dropped"
    reason: str
    #: True when the deterministic checks re-ran on the patched file and no longer report
    #: the finding, or (a model's own finding, no check to re-run) the model, reading the
    #: patched revision with the tools, judged it gone; False otherwise.
    verified: bool = False
    explanation: str = ""
    patch: str = ""  # the applied patch as git writes it (kept patches only)
    patch_file: str | None = None  # relative to the artifacts directory (kept patches only)
    suggestion: bool = False  # offered as a GitHub suggestion on the commented lines

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (see :meth:`from_json`)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FixResult:
        """Inverse of :meth:`to_json`."""
        return cls(**data)


def patch_file_name(finding: Finding) -> str:
    """``fixes/<rule>-<path>-<line>-<digest>.patch``: stable for a finding, unique per one."""
    key = f"{finding.rule}\0{finding.path}\0{finding.line}\0{finding.fingerprint}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    stem = _UNSAFE.sub("_", f"{finding.rule}-{finding.path}-{finding.line}").strip("_")[-80:]
    return f"{FIXES_DIR}/{stem}-{digest}.patch"


def kept(finding: Finding, reason: str, *, verified: bool, explanation: str, patch: str,
         suggestion: bool) -> FixResult:
    """A kept patch for ``finding``."""
    return FixResult(finding.rule, finding.path, finding.line, finding.title,
                     finding.fingerprint, "kept", reason, verified, explanation, patch,
                     patch_file_name(finding), suggestion)


def dropped(finding: Finding, reason: str, explanation: str = "") -> FixResult:
    """A proposal (or its absence) that was not kept, and why."""
    return FixResult(finding.rule, finding.path, finding.line, finding.title,
                     finding.fingerprint, "dropped", reason, explanation=explanation)
