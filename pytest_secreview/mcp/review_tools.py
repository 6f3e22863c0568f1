"""The review tools the MCP server adds to the repository tools: ``list_rules``,
``explain_rule`` and ``review_diff``.

They are ordinary :class:`~pytest_secreview.tools.registry.Tool` objects registered in the same
:class:`~pytest_secreview.tools.registry.ToolRegistry` as ``read_file`` and friends, so every
call goes through one path: argument validation, control-character stripping, secret
redaction and the output cap. Nothing here imports the MCP SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..audit.evidence import collect_evidence
from ..evaluation.offline import RangeReview, load_rules, review_range
from ..rules.model import Rule
from ..tools.errors import ToolError
from ..tools.registry import Tool
from ..tools.schema import ToolArgs

#: Characters of a rule's instructions shown by ``explain_rule`` (the output cap applies too).
_MAX_INSTRUCTIONS = 20_000


class ListRulesArgs(ToolArgs):
    """``list_rules`` takes no arguments."""


class ExplainRuleArgs(ToolArgs):
    """Arguments of ``explain_rule``."""

    rule_id: str = Field(min_length=1, max_length=200, description="A rule id from list_rules.")


class ReviewDiffArgs(ToolArgs):
    """``review_diff`` takes no arguments: the range is fixed when the server starts."""




@dataclass(frozen=True)
class ReviewScope:
    """What the review tools look at: the repository, the range and the rule selection
    (the same meaning as ``--base``, ``--secreview-rules`` and ``--secreview-rules-from``)."""

    repo: Path
    base: str
    head: str = "HEAD"
    rules: tuple[str, ...] = ()
    rules_from: str = "base"


def _rule_line(rule: Rule) -> str:
    extra = ", ".join(x for x in (rule.category, rule.cwe) if x)
    kind = "needs a model" if rule.instructions.strip() else "deterministic only"
    tail = f" [{extra}]" if extra else ""
    return f"{rule.id} ({rule.severity.value}, {kind}){tail}: {rule.title}"


def format_rule(rule: Rule) -> str:
    """A rule's metadata and reviewer instructions as text."""
    lines = [
        f"id: {rule.id}",
        f"title: {rule.title}",
        f"source: {rule.source}",
        f"severity: {rule.severity.value}",
    ]
    for label, value in (
        ("description", rule.description),
        ("category", rule.category),
        ("cwe", rule.cwe),
        ("owasp", rule.owasp),
        ("documentation_link", rule.documentation_link),
    ):
        if value:
            lines.append(f"{label}: {value}")
    for label, values in (
        ("applies_to.paths", rule.paths),
        ("applies_to.exclude", rule.exclude),
        ("applies_to.file_extensions", rule.file_extensions),
    ):
        if values:
            lines.append(f"{label}: {', '.join(values)}")
    for detect in rule.detect:
        lines.append(
            f"detect ({detect.severity.value}, {detect.on} lines): {detect.message}"
        )
    instructions = rule.instructions.strip()
    if instructions:
        if len(instructions) > _MAX_INSTRUCTIONS:
            instructions = instructions[:_MAX_INSTRUCTIONS] + "\n[TRUNCATED]"
        lines += ["", "instructions:", instructions]
    else:
        lines += ["", "instructions: none (deterministic checks only)"]
    return "\n".join(lines)


def format_review(review: RangeReview) -> str:
    """The deterministic findings of a range, one block per finding, then what was not
    reviewed and which (rule, file) pairs need a model."""
    diff = review.diff
    head = (
        f"Deterministic review of {diff.base_sha[:12]}..{diff.head_sha[:12]}: "
        f"{len(diff.files)} changed file(s), {len(review.rules)} rule(s), "
        f"{len(review.findings)} finding(s)."
    )
    lines = [head]
    for finding in review.findings:
        lines.append("")
        lines.append(
            f"{finding.path}:{finding.line}: {finding.severity.value} [{finding.rule}] "
            f"{finding.title}"
        )
        added = ", added by this change" if finding.suppression_added else ""
        details = (
            finding.suppression
            and f"suppressed ({finding.suppression}{added}): {finding.suppression_reason}",
            finding.explanation,
            finding.recommendation and f"fix: {finding.recommendation}",
        )
        lines += [f"  {text}" for text in details if text]
    if review.not_reviewed:
        lines += ["", "Not reviewed:"]
        lines += [f"  {path}: {why}" for path, why in review.not_reviewed]
    if review.not_code:
        lines += ["", "Not code (binary media, by name and content; scanned for credentials):"]
        lines += [f"  {path}: {what}" for path, what in review.not_code]
    if review.needs_model:
        lines += ["", "Left for a model (the agentic review; run pytest --secreview with a model):"]
        lines += [f"  {rule} on {path}" for rule, path in review.needs_model]
    if review.rule_errors:
        lines += ["", "Rule files that did not load:"]
        lines += [f"  {error}" for error in review.rule_errors]
    # The intent audit's deterministic evidence: what kinds of change this is, for comparing
    # with what its description says.
    lines += ["", "Risk signals (intent audit evidence):", collect_evidence(diff).describe()]
    return "\n".join(lines)


class ReviewTools:
    """``list_rules``, ``explain_rule`` and ``review_diff`` over one :class:`ReviewScope`.

    ``base_sha`` is the merge base the rules are read from (the trusted side of the range).
    """

    def __init__(self, scope: ReviewScope, *, base_sha: str) -> None:
        self.scope = scope
        self.base_sha = base_sha

    def _rules(self) -> tuple[list[Rule], list[str]]:
        return load_rules(self.scope.repo, self.base_sha, self.scope.rules, self.scope.rules_from)

    def list_rules(self, _args: ListRulesArgs) -> str:
        """One line per rule: id, severity, whether it needs a model, title."""
        rules, errors = self._rules()
        lines = [f"{len(rules)} rule(s):"]
        lines += [_rule_line(rule) for rule in sorted(rules, key=lambda r: r.id)]
        if errors:
            lines += ["", "Rule files that did not load:", *errors]
        return "\n".join(lines)

    def explain_rule(self, args: ExplainRuleArgs) -> str:
        """The rule's metadata and instructions; an unknown id lists the known ones."""
        rules, _ = self._rules()
        for rule in rules:
            if rule.id == args.rule_id:
                return format_rule(rule)
        known = ", ".join(sorted(rule.id for rule in rules))
        raise ToolError(f"no rule with id {args.rule_id[:80]!r}; known rules: {known}")

    def review_diff(self, _args: ReviewDiffArgs) -> str:
        """The deterministic findings of the range, via the one offline entry point."""
        scope = self.scope
        return format_review(
            review_range(scope.repo, scope.base, scope.head, scope.rules, scope.rules_from)
        )

    def tools(self) -> Sequence[Tool]:
        """The three tools, ready to register."""
        return [
            Tool(
                name="list_rules",
                description=(
                    "List the security rules this review uses (id, severity, whether a model "
                    "is needed, title). Rules are read from the base revision by default."
                ),
                function=self.list_rules,
                args_model=ListRulesArgs,
            ),
            Tool(
                name="explain_rule",
                description=(
                    "Show one rule's metadata (severity, CWE, OWASP, paths, deterministic "
                    "patterns) and the reviewer instructions it gives."
                ),
                function=self.explain_rule,
                args_model=ExplainRuleArgs,
            ),
            Tool(
                name="review_diff",
                description=(
                    "Run the deterministic security checks (no model) on the change under "
                    "review, merge-base(base, head)..head, and list each finding as "
                    "'path:line: SEVERITY [rule] title', then the change's risk signals "
                    "(network, subprocess, environment, install hooks, ...)."
                ),
                function=self.review_diff,
                args_model=ReviewDiffArgs,
            ),
        ]
