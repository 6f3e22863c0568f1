"""Fix mode for one item: a patch proposed for each confirmed finding, checked, kept or
dropped with a reason; kept patches that fit the finding's lines become its suggestion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..agent.output import sum_usage
from ..agent.prompt import hunks_text, new_boundary
from ..core.findings import Finding
from ..core.severity import Severity
from ..diff.model import Diff
from ..errors import GitError, SecreviewError
from ..evaluation.evaluate import Evaluation, Reviewer
from ..rules.matcher import Target
from ..rules.model import Rule
from ..tools import build_registry, redact
from ..tools.gate import deny_reason
from ..usage import ReviewUsage
from .apply import read_blob
from .confirm import check_fix
from .propose import Proposal, propose
from .recheck import Rechecker
from .result import FixResult, dropped, kept

#: Findings of one item a patch is asked for; the rest are listed as not attempted.
MAX_FIXES_PER_ITEM = 10


def suggestion_for(head: str, patched: str, line: int, end_line: int | None) -> str | None:
    """The replacement for lines ``line..end_line`` of ``head`` when the patch changes
    nothing outside them (a GitHub suggestion replaces exactly the commented lines), else
    None."""
    old = head.split("\n")
    new = patched.split("\n")
    start, end = line - 1, end_line or line
    tail = len(old) - end
    if end > len(old) or len(new) < start + tail:
        return None
    if old[:start] != new[:start] or old[end:] != new[len(new) - tail:]:
        return None
    replacement = "\n".join(new[start:len(new) - tail])
    # A blank suggestion (the lines deleted) is not offered: the comments skip blank ones.
    return replacement if replacement.strip() else None


class Fixer:
    """Proposes and checks patches for one review (one per process)."""

    def __init__(self, *, agent: Reviewer | None, repo: Path, diff: Diff, rules: Sequence[Rule],
                 threshold: Severity, semgrep_configs: Sequence[Path] = ()) -> None:
        # Several models: the first one fixes.
        self.reviewer = agent.primary if agent is not None else None
        self.repo = repo
        self.diff = diff
        self.threshold = threshold
        # A fix may edit the text of files the pull request changed, nothing else.
        self.allowed = frozenset(f.path for f in diff.files
                                 if f.reviewable and f.kind.value != "deleted")
        self.rechecker = Rechecker(repo, diff.base_sha, diff.head_sha, rules, threshold,
                                   semgrep_configs)

    def fix(self, target: Target, evaluation: Evaluation, failing: Sequence[Finding]
            ) -> Evaluation:
        """``evaluation`` with a :class:`FixResult` per finding that fails the item
        (``failing``, as :func:`~..core.decide.decide` said), the fix runs' usage added, and
        the suggestion of every finding whose verified patch fits."""
        chosen = list(failing)
        if not chosen or self.reviewer is None:
            return evaluation
        usage = ReviewUsage(prices=self.reviewer.prices, on_cost=(
            self.reviewer.budget.add if self.reviewer.budget is not None else None))
        results: list[FixResult] = []
        suggestions: dict[str, str] = {}
        hunks = redact(hunks_text(target))
        for index, finding in enumerate(chosen):
            if index >= MAX_FIXES_PER_ITEM:
                results.append(dropped(finding, f"not attempted: fix mode proposes at most "
                                       f"{MAX_FIXES_PER_ITEM} patches per item"))
                continue
            result, suggestion = self._one(target, finding, hunks, usage)
            results.append(result)
            if suggestion is not None:
                suggestions[finding.fingerprint] = suggestion
        findings = tuple(replace(f, suggestion=suggestions[f.fingerprint])
                         if f.fingerprint in suggestions else f for f in evaluation.findings)
        return replace(evaluation, findings=findings, fixes=tuple(r.to_json() for r in results),
                       usage=_with_fix_usage(evaluation.usage, usage.finish()))

    def _one(self, target: Target, finding: Finding, hunks: str, usage: ReviewUsage
             ) -> tuple[FixResult, str | None]:
        if finding.path not in self.allowed or deny_reason(finding.path) is not None:
            return dropped(finding, "not attempted: the finding is on a file this pull "
                           "request does not change as text, or one the model may not read"), None
        reviewer = self.reviewer
        assert reviewer is not None
        try:
            if reviewer.budget is not None:
                reviewer.budget.check(f"a fix for {finding.rule} on {finding.path}")
            registry = build_registry(self.repo, base_sha=self.diff.base_sha,
                                      head_sha=self.diff.head_sha, tree=reviewer.tree)
        except SecreviewError as exc:
            return dropped(finding, f"not attempted: {exc}"), None
        proposal = propose(
            reviewer.loop_for(target), registry, finding, repo=self.repo,
            head_sha=self.diff.head_sha, hunks=hunks, boundary=new_boundary(hunks),
            allowed=self.allowed, usage=usage,
            max_turns=target.rule.max_turns or reviewer.max_turns,
            max_output_tokens=reviewer.max_output_tokens, max_tool_calls=reviewer.max_tool_calls,
            temperature=reviewer.temperature,
        )
        return self._judge(target, finding, proposal, usage)

    def _judge(self, target: Target, finding: Finding, proposal: Proposal, usage: ReviewUsage
               ) -> tuple[FixResult, str | None]:
        applied = proposal.applied
        if applied is None:
            return dropped(finding, proposal.problem or "no patch", proposal.explanation), None
        if finding.path not in proposal.paths:
            # Whatever it does elsewhere, it cannot fix a finding in a file it leaves as is.
            return dropped(finding, "the patch does not change the file of the finding",
                           proposal.explanation), None
        try:
            check = self.rechecker.recheck(finding, applied.commit, proposal.paths)
        except (GitError, SecreviewError, OSError) as exc:
            return dropped(finding, f"the patch applies, but the checks could not re-run: {exc}",
                           proposal.explanation), None
        if check.gone is False:
            return dropped(finding, "the patch applies but the deterministic checks still "
                           "report the finding on the patched file", proposal.explanation), None
        if check.introduced:
            new = check.introduced[0]
            return dropped(finding, f"the patch applies but introduces a new finding: "
                           f"{new.path}:{new.line} {new.severity.value} {new.title} "
                           f"({new.rule})", proposal.explanation), None
        gone: bool | None = check.gone
        reason = ("applies to the head revision; the deterministic checks no longer report "
                  "the finding")
        if gone is None:
            # A model's own finding: no check can re-run, so the model is asked, with the
            # tools over the patched revision, whether the problem is still there.
            gone, reason = self._model_check(target, finding, applied.commit, applied.diff,
                                             usage)
        suggestion = None
        if gone and proposal.paths == (finding.path,):
            head = read_blob(self.repo, self.diff.head_sha, finding.path)
            patched = read_blob(self.repo, applied.commit, finding.path)
            if head is not None and patched is not None:
                suggestion = suggestion_for(head, patched, finding.line, finding.end_line)
        return kept(finding, reason, verified=bool(gone), explanation=proposal.explanation,
                    patch=applied.diff, suggestion=suggestion is not None), suggestion

    def _model_check(self, target: Target, finding: Finding, patched: str, patch: str,
                     usage: ReviewUsage) -> tuple[bool, str]:
        """Whether the model clears the patched revision of ``finding``, and the kept
        patch's reason saying so."""
        reviewer = self.reviewer
        assert reviewer is not None
        unverified = "applies to the head revision; unverified: "
        try:
            if reviewer.budget is not None:
                reviewer.budget.check(f"checking the fix for {finding.rule} on {finding.path}")
            tools = build_registry(self.repo, base_sha=self.diff.base_sha, head_sha=patched)
        except SecreviewError as exc:
            return False, f"{unverified}the model could not check the patch: {exc}"
        judged = check_fix(reviewer.loop_for(target), tools, finding, patch, usage=usage,
                           max_output_tokens=reviewer.max_output_tokens)
        if judged.cleared:
            return True, ("applies to the head revision; the model, reading the patched "
                          f"revision, judged the finding gone: {judged.reason}")
        if judged.cleared is False:
            return False, (f"{unverified}the model, reading the patched revision, judged the "
                           f"finding still there: {judged.reason}")
        return False, f"{unverified}{judged.reason}"


def _with_fix_usage(usage: dict[str, Any], fix: dict[str, Any]) -> dict[str, Any]:
    """The item's usage with the fix runs' counts and cost added, and kept apart as ``fix``."""
    if not fix.get("model_calls"):
        return {**usage, "fix": fix}
    return {**usage, **sum_usage([usage, fix]), "fix": fix}
