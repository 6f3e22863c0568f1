"""Build the prompts from the files in ``prompts/``.

The static part (method, rule instructions, tool declarations) comes first and is identical
for every item of a rule, so provider-side prompt caching applies; what varies per item (the
hunks, the file, deterministic findings) comes after, in the first user message.
"""

from __future__ import annotations

import json
import re
import secrets
from functools import cache
from importlib import resources
from typing import Any

from ..rules.matcher import BatchTarget, FileHunks, Target
from ..severity import one_line
from .findings import Finding

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

#: Bumped whenever a prompt file changes meaning; part of the evaluation cache key.
PROMPT_VERSION = "2"


@cache
def load(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    return resources.files(__package__ + ".prompts").joinpath(f"{name}.md").read_text()


def render(template: str, **values: str) -> str:
    """Fill ``{key}`` placeholders in ONE pass: text inserted from the pull request is never
    scanned again, so it cannot smuggle in a placeholder (e.g. ``{boundary}``)."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        return values[key] if key in values else match.group(0)

    return _PLACEHOLDER.sub(fill, template)


def new_boundary(*untrusted: str) -> str:
    """A random delimiter that none of ``untrusted`` contains, so content cannot forge it."""
    while True:
        boundary = secrets.token_hex(12)
        if not any(boundary in text for text in untrusted):
            return boundary


def system_prompt(target: Target, boundary: str) -> str:
    """The reviewer's method and the rule: identical across every item of the rule except
    for the boundary, which is per session."""
    rule = target.rule
    return render(
        load("system"),
        boundary=boundary,
        rule_id=rule.id,
        rule_title=rule.title,
        rule_severity=rule.severity.value,
        rule_cwe=f", {rule.cwe}" if rule.cwe else "",
        rule_instructions=rule.instructions,
    )


def _file_line(part: FileHunks) -> str:
    file = part.file
    was = (f", was {one_line(file.old_path)}"
           if file.old_path and file.old_path != file.path else "")
    return f"{one_line(file.path)} ({file.kind.value}{was})"


def hunks_text(target: Target) -> str:
    """The hunks in front of the model, as git printed them. A batch of several files puts a
    ``File:`` line before each file's hunks: every hunk line starts with ``@@``, ``+``, ``-``,
    a space or a backslash, so a file's content cannot forge one."""
    if not isinstance(target, BatchTarget):
        return "\n".join(h.text.rstrip("\n") for h in target.hunks)
    blocks = []
    for part in target.parts:
        body = "\n".join(h.text.rstrip("\n") for h in part.hunks)
        blocks.append(f"File: {_file_line(part)}\n{body}")
    return "\n".join(blocks)


def task_prompt(
    target: Target,
    *,
    hunks: str,
    boundary: str,
    base_sha: str,
    head_sha: str,
    max_turns: int,
    deterministic: tuple[Finding, ...],
    pr_context: str = "",
) -> str:
    """The first user message: the file, its matched hunks and what patterns found."""
    file = target.file
    listed = "\n".join(
        f"- {f.path}:{f.line} {f.severity.value} {f.title}" for f in deterministic
    ) or "- none"
    flows = flow_evidence(deterministic, boundary)
    context = ""
    if pr_context:
        context = (
            "Pull request title and description (untrusted):\n"
            f"<<<UNTRUSTED {boundary}\n{pr_context}\nUNTRUSTED {boundary}>>>\n\n"
        )
    if isinstance(target, BatchTarget):
        paths = dict.fromkeys(_file_line(p) for p in target.parts)
        return render(
            load("task_batch"),
            rule_id=target.rule.id,
            file_count=str(len(paths)),
            file_list="\n".join(f"- {p}" for p in paths),
            base_sha=base_sha,
            head_sha=head_sha,
            max_turns=str(max_turns),
            boundary=boundary,
            hunks=hunks,
            pr_context=context,
            deterministic=listed,
        )
    return render(
        load("task"),
        rule_id=target.rule.id,
        path=one_line(file.path),
        change_kind=file.kind.value,
        old_path_note=f", was {one_line(file.old_path)}"
        if file.old_path and file.old_path != file.path else "",
        base_sha=base_sha,
        head_sha=head_sha,
        max_turns=str(max_turns),
        boundary=boundary,
        hunks=hunks,
        pr_context=context,
        deterministic=listed,
        flows=flows,
    )


def flow_evidence(findings: tuple[Finding, ...], boundary: str) -> str:
    """The taint engine's paths as starting evidence: the model verifies each one (its code
    text comes from the pull request, so it sits inside the untrusted block)."""
    with_flow = [f for f in findings if f.flow]
    if not with_flow:
        return ""
    paths = []
    for number, finding in enumerate(with_flow, 1):
        steps = "\n".join(f"  {i}. {one_line(s.path)}:{s.line} [{s.kind}] {one_line(s.text)}"
                          for i, s in enumerate(finding.flow, 1))
        paths.append(f"path {number}: ends at {one_line(finding.path)}:{finding.line} "
                     f"({finding.cwe or finding.rule})\n{steps}")
    return (
        "\nDataflow paths the taint engine found: your starting evidence. Verify each path "
        "with the tools. If you confirm it, report it at its sink line with an exploit "
        "scenario and a fix; if it is not exploitable (a check or sanitizer the engine "
        "missed), do not report it. Then look for what the engine cannot see.\n"
        f"<<<UNTRUSTED {boundary}\n" + "\n".join(paths) + f"\nUNTRUSTED {boundary}>>>\n"
    )


def prompt_tools_instructions(
    specs: list[dict[str, Any]], final_tool: str = "report_findings",
    final_args: str = '{"findings": []}',
) -> str:
    """Instructions for prompt-based tool use, listing each tool and its JSON schema; the
    review ends with a call to ``final_tool``."""
    listing = "\n".join(
        f"- `{s['name']}`: {s['description']}\n  args: {json.dumps(s['parameters'])}"
        for s in specs
    )
    return render(load("prompt_tools"), tool_list=listing, final_tool=final_tool,
                  final_args=final_args)


def single_shot_prompt(
    context: str, boundary: str, final_tool: str = "report_findings",
    final_args: str = '{"findings": [...]}',
) -> str:
    """The last-resort prompt: everything gathered up front, one answer (a ``final_tool``
    call)."""
    return render(load("single_shot"), context=context, boundary=boundary,
                  final_tool=final_tool, final_args=final_args)
