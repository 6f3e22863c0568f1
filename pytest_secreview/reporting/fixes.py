"""Fix mode's outputs: the "Proposed fixes" section of the summary, and its files in the
artifacts directory (controller only): one ``.patch`` per kept fix, ``fixes/all.patch`` with
all of them, and ``fixes/index.json`` with every proposal, kept or dropped, and why. Nothing
is applied, committed or pushed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GitError
from ..fix.apply import combine
from ..fix.result import COMBINED_NAME, FIXES_DIR, FixResult
from .artifacts import ArtifactWriter, dump_json
from .markdown_text import escape_text, inline_code

if TYPE_CHECKING:
    from .model import Report


def write_fixes(writer: ArtifactWriter, report: Report, repo: Path) -> list[str]:
    """Write the patches of ``report`` (``repo`` combines them); return lines for the
    terminal summary (none when fix mode produced nothing)."""
    fixes = [fix for item in report.items for fix in item.fixes]
    if not fixes:
        return []
    kept = [f for f in fixes if f.status == "kept" and f.patch_file]
    for fix in kept:
        writer.write_text(str(fix.patch_file), fix.patch)
    left_out: list[str] = []
    if kept:
        try:
            combined, skipped = combine(repo, report.head_sha, [f.patch for f in kept])
        except GitError as exc:
            combined, skipped = "", list(range(len(kept)))
            left_out.append(f"fixes: {COMBINED_NAME} not combined: {exc}")
        writer.write_text(f"{FIXES_DIR}/{COMBINED_NAME}", combined)
        if skipped:
            left_out.append(f"fixes: {len(skipped)} kept patch(es) left out of "
                            f"{COMBINED_NAME}, they touch lines another patch changes: "
                            + ", ".join(str(kept[i].patch_file) for i in skipped[:10]))
    writer.write_text(f"{FIXES_DIR}/index.json", dump_json(
        [{k: v for k, v in f.to_json().items() if k != "patch"} for f in fixes]))
    verified = sum(1 for f in kept if f.verified)
    where = writer.root / FIXES_DIR
    return [f"fixes: {len(kept)} patch(es) kept ({verified} verified by the deterministic "
            f"checks), {len(fixes) - len(kept)} dropped; written to {where} (never applied "
            "or pushed)", *left_out]


#: Proposals listed in the PR comment; the rest are in ``fixes/index.json``.
_LISTED = 30


def fixes_block(report: Report) -> str | None:
    """The comment's "Proposed fixes" section (None outside fix mode)."""
    fixes = [fix for item in report.items for fix in item.fixes]
    if not fixes:
        return None
    kept = [f for f in fixes if f.status == "kept"]
    verified = sum(1 for f in kept if f.verified)
    lines = ["### Proposed fixes", "",
             f"{len(kept)} patch(es) kept ({verified} verified: the deterministic checks no "
             f"longer report the finding), {len(fixes) - len(kept)} dropped. The patches are "
             f"in the artifacts directory under `{FIXES_DIR}/`; nothing was committed or "
             "pushed.", ""]
    lines += [_line(f) for f in sorted(fixes, key=lambda f: (f.status != "kept", f.path,
                                                                f.line, f.rule))[:_LISTED]]
    if len(fixes) > _LISTED:
        lines.append(f"- … and {len(fixes) - _LISTED} more in `{FIXES_DIR}/index.json`")
    return "\n".join(lines)


def _line(fix: FixResult) -> str:
    where = inline_code(f"{fix.path}:{fix.line}", 300)
    title = escape_text(fix.title, 200, one_line=True)
    if fix.status != "kept":
        return f"- ⚪ {where} {title}: dropped: {escape_text(fix.reason, 400, one_line=True)}"
    how = "verified" if fix.verified else "unverified (a model's finding)"
    extra = " · offered as a suggestion" if fix.suggestion else ""
    return (f"- ✅ {where} {title}: kept, {how} · "
            f"{inline_code(str(fix.patch_file), 200)}{extra}")
