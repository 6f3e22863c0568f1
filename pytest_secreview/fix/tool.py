"""The ``propose_patch`` tool: its one definition (a pydantic model, from which the schema
declared to the model is derived) and the checks on the patch text.

The patch comes from a model that read the pull request: it is untrusted. It may only modify
files the pull request changed, in place (no new, deleted, renamed or binary files, no mode
changes), through ``a/`` and ``b/`` paths that stay inside the repository and that the tool
gate would let the model read; it is capped in size. A patch that breaks these rules goes
back to the model as the tool's error, so it can send a corrected one.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..agent.report_tool import invalid_arguments
from ..llm.messages import ToolSpec
from ..tools.gate import deny_reason
from ..tools.schema import described, tool_schema

#: A fix is a small edit: past this the patch is refused (and the model told).
MAX_PATCH_CHARS = 20_000
MAX_PATCH_FILES = 5
MAX_CHANGED_LINES = 300

TOOL_NAME = "propose_patch"


class ProposedPatch(BaseModel):
    """The arguments of ``propose_patch``."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False,
                              json_schema_extra={"description": "One fix, or none."})

    patch: str | None = Field(
        default=None, max_length=MAX_PATCH_CHARS,
        description="A unified diff against the head revision (git format: 'diff --git a/P "
        "b/P', '--- a/P', '+++ b/P', '@@' hunks with 3 lines of context) that fixes the "
        "finding and changes nothing else. Omit it when no safe fix exists.")
    explanation: str = Field(
        min_length=3, max_length=1000,
        description="One or two sentences: what the patch changes and why that removes the "
        "vulnerability (or why no fix is proposed).")


PROPOSE_PATCH = ToolSpec(
    name=TOOL_NAME,
    description=described((
        "End the task: propose the smallest patch that fixes the finding, as a unified diff "
        "against the head revision (or no patch, with the reason). Call exactly once, after "
        "reading the code."
    ), ProposedPatch),
    parameters=tool_schema(ProposedPatch),
)

#: Example arguments shown in the text protocols (prompt-based and single-shot).
EXAMPLE_ARGS = ('{"patch": "diff --git a/app.py b/app.py\\n--- a/app.py\\n+++ b/app.py\\n'
                '@@ -1,3 +1,3 @@\\n ...", "explanation": "..."}')

_FENCE = re.compile(r"^\s*```[A-Za-z]*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)
_GIT_HEADER = re.compile(r"^diff --git a/(?P<old>\S+) b/(?P<new>\S+)$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
#: Extended header lines that create, delete, rename, copy or re-mode a file, or carry
#: binary data: a fix edits text in place, nothing else.
_REFUSED = ("new file mode", "deleted file mode", "old mode", "new mode", "rename from",
            "rename to", "copy from", "copy to", "similarity index", "dissimilarity index",
            "GIT binary patch", "Binary files", "literal ", "delta ")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def parse_arguments(args: dict[str, Any]) -> ProposedPatch:
    """The validated arguments, or ``ValueError`` with a message for the model."""
    try:
        return ProposedPatch.model_validate(args)
    except ValidationError as exc:
        raise invalid_arguments(TOOL_NAME, exc) from None


def clean_patch(text: str, allowed: Collection[str]) -> tuple[str, tuple[str, ...]]:
    """``text`` as a patch git may apply, and the paths it modifies; ``ValueError`` (written
    for the model) when it is not a plain in-place edit of files in ``allowed``."""
    fenced = _FENCE.match(text)
    if fenced:  # models like to wrap diffs in a code fence
        text = fenced.group("body")
    text = text.replace("\r\n", "\n")
    if _CONTROL.search(text):
        raise ValueError("the patch holds control characters or binary data; send a text diff")
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    paths: list[str] = []
    hunks = changed = 0
    in_hunk = False
    for number, line in enumerate(lines, start=1):
        where = f"patch line {number}"
        if in_hunk and line.startswith("--- ") and lines[number:number + 1] and (
                lines[number].startswith("+++ ")):
            in_hunk = False  # the next file of a diff without 'diff --git' lines
        if line.startswith("diff --git "):
            header = _GIT_HEADER.match(line)
            if header is None or header.group("old") != header.group("new"):
                raise ValueError(f"{where}: expected 'diff --git a/PATH b/PATH' with the same "
                                 "path twice (a fix edits files in place)")
            in_hunk = False
        elif line.startswith(("--- ", "+++ ")) and not in_hunk:
            paths.append(_path(line[4:], "a/" if line[0] == "-" else "b/", allowed, where))
        elif line.startswith(_REFUSED) and not in_hunk:
            raise ValueError(f"{where}: {line.split(' ')[0]!r}: a fix may only edit the text of "
                             "existing files (no new, deleted, renamed, binary or mode changes)")
        elif line.startswith("index ") and not in_hunk:
            continue
        elif _HUNK.match(line):
            if not paths:
                raise ValueError(f"{where}: a hunk before the '--- a/PATH' and '+++ b/PATH' "
                                 "lines")
            hunks += 1
            in_hunk = True
        elif in_hunk and line[:1] in (" ", "+", "-", "\\", ""):
            changed += line[:1] in ("+", "-")
        else:
            raise ValueError(f"{where}: {line[:60]!r} is not part of a unified diff; send the "
                             "diff only, no prose")
    if not hunks:
        raise ValueError("the patch has no '@@' hunk; send a unified diff of the fix")
    if changed > MAX_CHANGED_LINES:
        raise ValueError(f"the patch changes {changed} lines; a fix changes at most "
                         f"{MAX_CHANGED_LINES}: keep it to the vulnerable code")
    touched = tuple(dict.fromkeys(paths))
    if len(touched) > MAX_PATCH_FILES:
        raise ValueError(f"the patch edits {len(touched)} files; at most {MAX_PATCH_FILES}")
    return "\n".join(lines) + "\n", touched


def _path(raw: str, prefix: str, allowed: Collection[str], where: str) -> str:
    raw = raw.split("\t", 1)[0]  # "--- a/x.py\t(timestamp)" from some diff tools
    if raw == "/dev/null":
        raise ValueError(f"{where}: /dev/null: a fix may not create or delete files")
    if not raw.startswith(prefix):
        raise ValueError(f"{where}: {raw[:80]!r} must start with {prefix!r} (git's format)")
    path = raw[len(prefix):]
    parts = path.split("/")
    if (not path or path.startswith("/") or "\\" in path or '"' in path
            or any(p in ("", ".", "..") for p in parts) or parts[0] == ".git"):
        raise ValueError(f"{where}: {path[:80]!r} is not a plain repository-relative path")
    if path not in allowed:
        raise ValueError(f"{where}: {path[:80]!r} is not a file this pull request changes; a "
                         "fix may only edit those: " + ", ".join(sorted(allowed)[:10]))
    denied = deny_reason(path)
    if denied is not None:
        raise ValueError(f"{where}: {path[:80]!r} may not be edited ({denied})")
    return path
