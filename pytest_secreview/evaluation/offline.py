"""The deterministic review of a range without pytest: one diff, the rules, and every
target's deterministic findings.

This is the one entry point for everything that needs "what the free layer finds in this
change" outside a pytest session: the MCP server's ``review_diff``, ``secreview bench`` and the
detection benchmarks. It runs exactly what a pytest item's setup runs with no model configured,
so a figure measured through it is a figure of the product.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.decide import Policy, decide
from ..core.findings import Finding
from ..core.severity import Severity
from ..diff.git import load_diff
from ..diff.model import Diff
from ..errors import RuleError
from ..rules.loader import find_rule_files
from ..rules.matcher import DataflowTarget, PreparedDiff
from ..rules.model import Rule
from ..rules.parse import parse_rules
from ..scanners.builtin import DependencySettings
from ..scanners.session import ScannerSession
from ..suppression.apply import Quiet
from ..triage.gaps import BinaryContent, read_binary
from ..triage.ignore import read_ignore_file
from ..triage.links import read_links
from ..triage.plan import TriagePlan, plan_triage, taint_files, with_dataflow_target
from .deterministic import scan_unreviewed
from .evaluate import evaluate
from .files import taint_session
from .record import item_record


@dataclass(frozen=True)
class RangeReview:
    """What the deterministic layer reports for one range."""

    diff: Diff
    rules: tuple[Rule, ...]
    findings: tuple[Finding, ...]  # worst first, then by location; suppressed ones marked
    rule_errors: tuple[str, ...] = ()  # one line per rule file that did not parse
    not_reviewed: tuple[tuple[str, str], ...] = ()  # (path, reason)
    #: (path, what it is): binary media, by name and content, that the rules scanned and
    #: that is not code (:func:`~..triage.gaps.judge_binary`), so not in ``not_reviewed``.
    not_code: tuple[tuple[str, str], ...] = ()
    needs_model: tuple[tuple[str, str], ...] = ()  # (rule id, path) left for a model
    triage: TriagePlan | None = None  # which rules run where; the general review's batches


def load_rules(
    repo: Path, base_sha: str, rules: Sequence[str] = (), rules_from: str = "base"
) -> tuple[list[Rule], list[str]]:
    """The rules a review of ``repo`` would use (same defaults and trust as the plugin) and
    one error line per rule file that did not parse."""
    files = find_rule_files(rules, repo, rules_from, base_sha, repo)
    parsed = parse_rules(files.sources)
    return ([rule for _, rule in parsed if isinstance(rule, Rule)],
            [str(rule) for _, rule in parsed if isinstance(rule, RuleError)])


def review_range(
    repo: Path,
    base: str,
    head: str = "HEAD",
    rules: Sequence[str] = (),
    rules_from: str = "base",
    semgrep_configs: Sequence[Path] = (),
    advisories: Sequence[Path] = (),
    osv_url: str | None = None,
    use_taint: bool = True,
    use_scanners: bool = True,
    parsed_rules: Sequence[Rule] | None = None,
    paths: Collection[str] | None = None,
    fail_on: Severity = Severity.CRITICAL,
) -> RangeReview:
    """Deterministic findings of every rule on ``merge-base(base, head)..head`` in ``repo``
    (``use_taint=False`` leaves out the rules' dataflow sections and ``use_scanners=False``
    the external scanners' rules, for measurements against those scanners; ``advisories``
    and ``osv_url`` are the vulnerable-dependency rule's advisory source).

    ``parsed_rules`` are rules already loaded (then ``rules`` and ``rules_from`` are not
    read); ``paths`` limits the review to those changed files (fix mode re-checks a patched
    file this way). Suppressions are decided by :func:`~..core.decide.decide` under
    ``fail_on``, as in a pytest run whose author's write access is not established: one
    the range adds mutes only findings below it.

    Raises :class:`~pytest_secreview.errors.SecreviewError` subclasses with actionable
    messages (unknown ref, not a repository, no rule files).
    """
    diff = load_diff(repo, base, head, paths=paths)
    if parsed_rules is None:
        parsed, errors = load_rules(repo, diff.base_sha, rules, rules_from)
    else:
        parsed, errors = list(parsed_rules), []
    if not use_scanners:
        parsed = [rule for rule in parsed if rule.scanner is None]
    prepared = PreparedDiff.with_defaults(diff.files,
                                          read_links(repo, diff.head_sha, diff.files).aliases)
    prepared.index(parsed)
    scanners = ScannerSession(
        repo=repo, head_sha=diff.head_sha, base_sha=diff.base_sha,
        targets=lambda rule: [t.file.path for t in prepared.targets(rule)],
        semgrep_configs=semgrep_configs,
        dependencies=DependencySettings(tuple(advisories), osv_url),
    )
    # The base revision's .secreviewignore, judged as in a pytest run (triage/ignore.py).
    ignore = read_ignore_file(repo, diff.base_sha)
    plan = plan_triage(diff, prepared, parsed, ignore=ignore)
    findings: list[Finding] = []
    needs_model: list[tuple[str, str]] = []
    taint_failed: dict[str, str] = {}
    # Whole head and base files for the rules' dataflow (taint:) sections, read once.
    taint = taint_session(repo, diff, parsed) if use_taint else None
    # The code's own `secreview: ignore[rule] reason` comments count here as in a pytest run.
    quiet = Quiet(repo, diff)
    dataflow = taint_files(diff) if taint is not None else None
    for rule in parsed:
        for target in with_dataflow_target(rule, plan.targets(rule, prepared),
                                           plan.dataflow_files(rule, dataflow), prepared):
            evaluation = evaluate(target, None, scanners=scanners, taint=taint)
            # Decided as in a pytest run whose author's write access is not established.
            quieted = quiet.apply(evaluation.findings, rule.id,
                                  [part.file for part in target.parts])
            record = item_record(f"{rule.id}[{target.label}]",
                                 replace(evaluation, findings=quieted.findings,
                                         changes=(*evaluation.changes, *quieted.changes)),
                                 rule=rule.id, category=rule.category,
                                 path=target.file.path)
            findings.extend(decide(record, Policy(fail_on=fail_on)).findings)
            for part in target.parts:
                if taint is not None and taint.not_reviewed(part.file.path):
                    taint_failed[part.file.path] = taint.not_reviewed(part.file.path) or ""
            if (evaluation.not_reviewed and rule.needs_model
                    and not isinstance(target, DataflowTarget)):
                needs_model.extend((rule.id, p.file.path) for p in target.parts)
    for file in diff.files:
        if file.unreviewed_reason:
            # Too large or binary to git: the plugin's UnreviewedItem scan, the same findings.
            scanning = [r for r in parsed if not ignore.excludes(r, file.path)
                        and not prepared.excludes(r, file.path)]
            streamed, _cut = scan_unreviewed(repo, diff.base_sha, diff.head_sha, file,
                                             scanning)
            findings.extend(streamed)
    # What each binary file named like media really is: the plugin's gaps' classification.
    content = read_binary(repo, diff.head_sha, diff.files)
    not_code = tuple((path, seen.not_code) for path, seen in sorted(content.items())
                     if seen.not_code is not None)
    media = {path for path, _ in not_code}
    not_reviewed = tuple(
        (f.path, content.get(f.path, BinaryContent(None)).reason(
            f.unreviewed_reason or _why_not(f.binary, f.too_large, f.submodule)))
        for f in diff.files if not f.reviewable and f.kind.value != "deleted"
        and ignore.pattern_of(f.path) is None and f.path not in media
    ) + tuple(sorted(taint_failed.items()))
    return RangeReview(
        diff=diff,
        rules=tuple(parsed),
        findings=tuple(sorted(findings, key=Finding.sort_key)),
        rule_errors=tuple(errors),
        not_reviewed=not_reviewed,
        not_code=not_code,
        needs_model=tuple(dict.fromkeys(needs_model)),
        triage=plan,
    )


def _why_not(binary: bool, too_large: bool, submodule: bool) -> str:
    if too_large:
        return "the file's diff is too large to review"
    if binary:
        return "binary file"
    if submodule:
        return "submodule"
    return "not reviewable"
