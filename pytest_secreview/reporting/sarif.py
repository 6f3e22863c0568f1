"""SARIF 2.1.0 for GitHub code scanning, made from the session's :class:`Report`.

GitHub reads a subset of SARIF (its "SARIF support for code scanning" page). What it needs and
what it shows shaped the choices here:

- every rule carries ``shortDescription``, ``fullDescription`` and ``help.text`` (required there,
  never empty), ``help.markdown``, ``tags`` starting with ``security`` (at most 10 are shown),
  ``precision`` and ``security-severity`` as a *string* number, which makes its results security
  alerts: over 9.0 is critical, 7.0-8.9 high, 4.0-6.9 medium, 0.1-3.9 low, 0.0 none;
- results point at repository-relative, percent-encoded URIs under ``%SRCROOT%``, with whole-line
  regions, and carry our stable fingerprint in ``partialFingerprints`` under ``secreview/v2``:
  the finding's context fingerprint (rule, path, normalised line and the function or route it
  stands in), so an alert dismissed in code scanning stays dismissed when lines move, and comes
  back when the line is copied elsewhere or its function's header changes (GitHub's own
  ``primaryLocationLineHash`` is added by ``upload-sarif`` from the checkout);
- at most 25,000 results per run are accepted, and the gzip-compressed file must stay under
  10 MB: results are kept worst first within both budgets and the rest are counted in a
  notification;
- what was *not* reviewed, and every review that errored, is a ``toolExecutionNotification`` so
  code scanning's tool status says what was not checked, and ``executionSuccessful`` is false
  when any item errored.

The output is deterministic: the same report gives the same JSON (no timestamps, stable order).
Every text taken from the report is stripped of control characters and redacted.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from hashlib import sha256
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from ..atomic import write_text_atomic
from ..core.findings import PR_PATH
from ..core.severity import Severity
from ..tools.redaction import redact, sanitize, strip_control
from .model import FindingReport, Report, RuleReport
from .sarif_flow import code_flow

__all__ = [
    "FINGERPRINT_KEY",
    "LEVEL",
    "PRECISION",
    "SECURITY_SEVERITY",
    "to_sarif",
    "write_sarif",
]

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/pytest-secreview/pytest-secreview"
SRCROOT = "%SRCROOT%"
#: Key of our fingerprint in ``partialFingerprints``; bump the version if its recipe changes.
FINGERPRINT_KEY = "secreview/v2"

#: ``properties.security-severity`` per severity (GitHub: >9.0 critical, 7.0-8.9 high,
#: 4.0-6.9 medium, 0.1-3.9 low). INFO is 0.0, which GitHub treats as "no security severity".
SECURITY_SEVERITY: dict[Severity, str] = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
    Severity.INFO: "0.0",
}
#: ``result.level`` and ``defaultConfiguration.level`` per severity.
LEVEL: dict[Severity, str] = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
_PROBLEM_SEVERITY: dict[Severity, str] = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "recommendation",
    Severity.INFO: "recommendation",
}
#: Rules have no precision metadata, and a rule's descriptor must not change from run to run,
#: so every rule says "medium": pattern and model findings are usually right but deserve a
#: look. GitHub only uses it to order alerts.
PRECISION = "medium"

# GitHub's documented limits (runs: 20/file, results: 25,000/run, tags: 20/rule with 10 shown,
# name: 255 chars, descriptions: 1024 chars; the gzip-compressed file: 10 MB).
MAX_RESULTS = 25_000
MAX_TAGS = 10
# JSON of findings compresses far better than 2:1, so this keeps the gzip under 10 MB.
MAX_RESULTS_BYTES = 20 * 1024 * 1024
_NAME_CHARS = 255
_DESCRIPTION_CHARS = 1024
_TEXT_CHARS = 4000
_CODE_CHARS = 20_000
_TRUNCATED = " …[truncated]"

# Any run of digits in a ``cwe`` value: "CWE-89", "cwe89", "89", "CWE-89, CWE-564".
_CWE = re.compile(r"(?<!\d)(\d{1,5})(?!\d)")
_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?\Z"
)

# Notification descriptors, referenced by index from toolExecutionNotifications.
_NOTIFICATIONS: tuple[tuple[str, str], ...] = (
    ("secreview/not-reviewed", "A changed file or a rule was not reviewed."),
    ("secreview/review-error", "A review could not be completed (an error, not a pass)."),
    ("secreview/results-omitted", "Results were left out to stay within upload limits."),
    ("secreview/note", "A note about the review."),
)
_NOTIFICATION_INDEX = {id_: i for i, (id_, _) in enumerate(_NOTIFICATIONS)}


def _clean(text: str | None, limit: int = _TEXT_CHARS) -> str:
    """Control characters stripped, secrets redacted, and cut to ``limit`` characters."""
    cleaned = sanitize(text or "")
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - len(_TRUNCATED)] + _TRUNCATED
    return cleaned


def artifact_uri(path: str) -> str:
    """A repository-relative path as a relative URI reference: percent-encoded UTF-8
    (spaces, unicode, ``%``, ``#``, ``?``, ``:``), ``/`` kept, no leading slash."""
    return quote(redact(path).lstrip("/"), safe="/")


def _cwe_ids(cwe: str | None) -> list[int]:
    return list(dict.fromkeys(int(num) for num in _CWE.findall(cwe or "")))


def cwe_tags(cwe: str | None) -> list[str]:
    """``"CWE-89"`` (or ``"cwe-89, CWE-564"``, or ``"89"``) as ``external/cwe/cwe-89`` tags."""
    return [f"external/cwe/cwe-{num}" for num in _cwe_ids(cwe)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _rule_descriptor(rule: RuleReport) -> dict[str, Any]:
    title = _clean(rule.title, _DESCRIPTION_CHARS) or rule.id
    description = _clean(rule.description, _DESCRIPTION_CHARS) or title
    help_text, help_markdown = _help(rule, title, description)
    tag = [
        "security",
        _clean(rule.category, 100).lower(),
        *cwe_tags(rule.cwe),
        *(f"external/owasp/{_clean(o, 60).lower()}" for o in _owasp(rule.owasp)),
    ]
    descriptor: dict[str, Any] = {
        "id": rule.id,
        "name": _clean(rule.id, _NAME_CHARS),
        "shortDescription": {"text": title},
        "fullDescription": {"text": description},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "help": {"text": help_text, "markdown": help_markdown},
        "properties": {
            "tags": _unique(tag)[:MAX_TAGS],
            "precision": PRECISION,
            "problem.severity": _PROBLEM_SEVERITY[rule.severity],
            "security-severity": SECURITY_SEVERITY[rule.severity],
            "severity": rule.severity.value,
            "source": _clean(rule.source, 500),
        },
    }
    link = _http_uri(rule.documentation_link)
    if link:
        descriptor["helpUri"] = link
    return descriptor


def _owasp(owasp: str | None) -> list[str]:
    return [part.strip().replace(" ", "-") for part in (owasp or "").split(",") if part.strip()]


def _http_uri(value: str | None) -> str | None:
    """``value`` when it is an absolute http(s) URI (the schema's ``format: uri``)."""
    if not value:
        return None
    value = strip_control(value).strip()
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc and " " not in value:
        return value
    return None


def _help(rule: RuleReport, title: str, description: str) -> tuple[str, str]:
    """The rule's help as plain text and as markdown (GitHub shows markdown when present)."""
    body = _clean(rule.help) or description
    facts: list[tuple[str, str, str]] = [("Severity", rule.severity.value, rule.severity.value)]
    if rule.category:
        facts.append(("Category", _clean(rule.category, 100), _clean(rule.category, 100)))
    for num in _cwe_ids(rule.cwe):
        cwe_link = f"https://cwe.mitre.org/data/definitions/{num}.html"
        facts.append(("CWE", f"CWE-{num}", f"[CWE-{num}]({cwe_link})"))
    if rule.owasp:
        facts.append(("OWASP", _clean(rule.owasp, 100), _clean(rule.owasp, 100)))
    link = _http_uri(rule.documentation_link)
    if link:
        facts.append(("Documentation", link, f"<{link}>"))
    text = "\n".join([f"{title}", "", body, "", *(f"{k}: {plain}" for k, plain, _ in facts)])
    markdown = "\n".join(
        [f"**{title}**", "", body, "", *(f"- **{k}:** {md}" for k, _, md in facts)]
    )
    return text, markdown


def _synthetic_rule(rule_id: str, findings: list[FindingReport]) -> RuleReport:
    """A descriptor for findings whose rule is not in ``report.rules`` (GitHub wants one)."""
    worst = max(findings, key=lambda f: f.severity.rank)
    return RuleReport(
        id=rule_id, title=rule_id, source="", severity=worst.severity,
        category=worst.category, cwe=worst.cwe,
    )


def _region(finding: FindingReport) -> dict[str, int]:
    start = max(finding.line, 1)
    end = max(finding.end_line or start, start)
    # Whole lines: column 1 to the end of ``endLine`` (no endColumn, by SARIF's default).
    return {"startLine": start, "startColumn": 1, "endLine": end}


def _location(path: str, region: dict[str, int] | None = None) -> dict[str, Any]:
    if path == PR_PATH:
        # About the whole change (the intent audit): a logical place, not a file to link to.
        return {"logicalLocations": [{"name": "pull request", "kind": "resource"}]}
    physical: dict[str, Any] = {
        "artifactLocation": {"uri": artifact_uri(path), "uriBaseId": SRCROOT}
    }
    if region is not None:
        physical["region"] = region
    return {"physicalLocation": physical}


def _message(finding: FindingReport) -> str:
    # GitHub shows the message's first sentence as the alert's title.
    title = _clean(finding.title, 300).strip()
    explanation = _clean(finding.explanation).strip()
    if not explanation:
        return title or finding.rule
    sep = " " if title.endswith((".", "!", "?", ":")) else ". "
    return f"{title}{sep}{explanation}" if title else explanation


def _fix(finding: FindingReport, region: dict[str, int]) -> dict[str, Any] | None:
    """The suggestion as a replacement of the reported lines. The region ends before the last
    line's newline, so one trailing newline of the suggestion is dropped. A blank suggestion
    is no fix: reading it as "delete these lines" would be a guess."""
    if not (finding.suggestion or "").strip() or finding.path == PR_PATH:
        return None
    code = _clean(finding.suggestion, _CODE_CHARS).removesuffix("\n")
    return {
        "description": {"text": _clean(finding.recommendation) or "Suggested replacement"},
        "artifactChanges": [{
            "artifactLocation": _location(finding.path)["physicalLocation"]["artifactLocation"],
            "replacements": [{"deletedRegion": dict(region), "insertedContent": {"text": code}}],
        }],
    }


def _result(
    finding: FindingReport, rule_index: int, fingerprint: str
) -> dict[str, Any]:
    region = _region(finding)
    properties: dict[str, Any] = {
        "severity": finding.severity.value,
        "source": _clean(finding.source, 200),
    }
    if finding.confidence is not None:  # a finding that stated none gets no invented number
        properties["confidence"] = finding.confidence
    if finding.below_min_confidence:
        properties["below_min_confidence"] = True
    if finding.rules:  # one problem several rules reported: ruleId is the first of them
        properties["rules"] = [_clean(r, 200) for r in finding.rules]
        properties["reports"] = finding.reports
    for key in ("category", "cwe", "exploit_scenario", "recommendation"):
        value = getattr(finding, key)
        if value:
            properties[key] = _clean(value)
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVEL[finding.severity],
        "message": {"text": _message(finding)},
        "locations": [_location(finding.path, region)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": properties,
    }
    fix = _fix(finding, region)
    if fix is not None:
        result["fixes"] = [fix]
    if finding.triage:
        properties["triage"] = finding.triage
        if finding.triage_reason:
            properties["triage_reason"] = _clean(finding.triage_reason)
        if finding.triage_confidence is not None:
            properties["triage_confidence"] = finding.triage_confidence
    suppressions = _suppressions(finding)
    if suppressions:
        # Kept, not hidden: code scanning shows it as dismissed, with the reason.
        result["suppressions"] = suppressions
    flow = code_flow(finding.flow, _location, _clean)
    if flow is not None:
        result["codeFlows"] = [flow]
    return result


def _suppressions(finding: FindingReport) -> list[dict[str, Any]]:
    """Why it does not count: dismissed by the model or in the baseline (``external``), or a
    comment in the code (``inSource``; one the pull request added says so)."""
    out: list[dict[str, Any]] = []
    if finding.dismissed:
        out.append({"kind": "external", "status": "accepted",
                    "justification": _clean(finding.triage_reason) or "dismissed by the model"})
    if finding.suppression is not None:
        entry: dict[str, Any] = {
            "kind": "inSource" if finding.suppression == "inline" else "external",
            "status": "accepted", "justification": _clean(finding.suppression_reason)}
        if finding.suppression_added:
            entry["properties"] = {"addedByPullRequest": True}
        out.append(entry)
    return out


def _fingerprints(findings: list[FindingReport]) -> list[str]:
    """Each finding's context fingerprint (identical lines in one context already carry an
    occurrence number, see ``core.findings.number_occurrences``), else its own; for one
    without either, a stand-in from rule, path and title. An ordinal among equals keeps
    distinct results distinct either way."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        own = f.context_fingerprint or f.fingerprint
        base = (_clean(own, 200) if own else
                sha256(f"{f.rule}\0{f.path}\0{f.title}".encode()).hexdigest()[:32])
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}:{seen[base]}")
    return out


def _notification(
    kind: str, level: str, text: str, *, path: str | None = None,
    rule: str | None = None, rule_index: dict[str, int] | None = None,
) -> dict[str, Any]:
    note: dict[str, Any] = {
        "descriptor": {"id": kind, "index": _NOTIFICATION_INDEX[kind]},
        "level": level,
        "message": {"text": text},
    }
    if path:
        note["locations"] = [_location(path)]
    if rule and rule_index is not None and rule in rule_index:
        note["associatedRule"] = {"id": rule, "index": rule_index[rule]}
    return note


def _notifications(
    report: Report, rule_index: dict[str, int], omitted: int
) -> list[dict[str, Any]]:
    errored = {(i.path, i.rule) for i in report.items if i.outcome == "error"}
    notes = []
    for entry in report.not_reviewed:
        is_error = (entry.path, entry.rule) in errored
        what = f"{entry.path} (rule {entry.rule})" if entry.rule else entry.path
        verb = "review failed" if is_error else "not reviewed"
        notes.append(_notification(
            "secreview/review-error" if is_error else "secreview/not-reviewed",
            "error" if is_error else "warning",
            _clean(f"{what} {verb}: {entry.reason}"),
            path=entry.path, rule=entry.rule, rule_index=rule_index,
        ))
    if omitted:
        notes.append(_notification(
            "secreview/results-omitted", "warning",
            f"{omitted} result(s) left out of this SARIF log to stay within GitHub's upload "
            "limits (25,000 results per run, 10 MB compressed); the least severe were dropped. "
            "The JSON report has every finding.",
        ))
    for text in report.notes:
        notes.append(_notification("secreview/note", "note", _clean(text)))
    return notes


def _driver(report: Report, rules: list[dict[str, Any]]) -> dict[str, Any]:
    driver: dict[str, Any] = {"name": "pytest-secreview", "informationUri": INFORMATION_URI}
    version = _clean(report.tool_version, 100)
    # GitHub prefers semanticVersion; it must be SemVer 2.0, else plain ``version``.
    driver["semanticVersion" if _SEMVER.match(version) else "version"] = version
    driver["rules"] = rules
    driver["notifications"] = [
        {"id": id_, "shortDescription": {"text": text}} for id_, text in _NOTIFICATIONS
    ]
    return driver


def _root_uri(repo_root_uri: str | None) -> str | None:
    if repo_root_uri is None:
        return None
    if not urlsplit(repo_root_uri).scheme:
        raise ValueError(
            f"repo_root_uri must be an absolute URI such as 'file:///github/workspace/', "
            f"got {repo_root_uri!r}; pass Path(root).resolve().as_uri()"
        )
    # SARIF requires a base URI to end with a slash, or relative URIs resolve one level up.
    return repo_root_uri if repo_root_uri.endswith("/") else repo_root_uri + "/"


def to_sarif(
    report: Report,
    *,
    repo_root_uri: str | None = None,
    category: str | None = "pytest-secreview",
) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a JSON-safe dict) that GitHub code scanning accepts.

    ``repo_root_uri`` (an absolute URI such as ``Path(root).as_uri()``) resolves ``%SRCROOT%``;
    without it the base is left for the consumer (GitHub: the repository root).
    ``category`` becomes ``automationDetails.id`` (``"<category>/"``), which GitHub uses to tell
    analyses of one commit apart; pass a distinct category per shard when a review is split
    across CI jobs, or ``None`` to let ``upload-sarif`` derive it from the workflow and matrix.
    """
    root = _root_uri(repo_root_uri)
    findings = sorted(report.findings, key=FindingReport.sort_key)
    rule_reports = {r.id: r for r in report.rules}
    missing: dict[str, list[FindingReport]] = {}
    for f in findings:
        if f.rule not in rule_reports:
            missing.setdefault(f.rule, []).append(f)
    for rule_id, of_rule in missing.items():
        rule_reports[rule_id] = _synthetic_rule(rule_id, of_rule)
    ordered = sorted(rule_reports.values(), key=lambda r: r.id)
    rule_index = {r.id: i for i, r in enumerate(ordered)}

    results: list[dict[str, Any]] = []
    size = 0
    for finding, fingerprint in zip(findings, _fingerprints(findings), strict=True):
        result = _result(finding, rule_index[finding.rule], fingerprint)
        size += len(json.dumps(result, ensure_ascii=False).encode())
        if len(results) >= MAX_RESULTS or size > MAX_RESULTS_BYTES:
            break
        results.append(result)
    omitted = len(findings) - len(results)

    base: dict[str, Any] = {
        "description": {"text": "The root of the repository under review."}
    }
    if root:
        base["uri"] = root
    invocation: dict[str, Any] = {
        "executionSuccessful": report.outcomes.get("error", 0) == 0,
        "toolExecutionNotifications": _notifications(report, rule_index, omitted),
    }
    if root:
        invocation["workingDirectory"] = {"uri": root}

    run: dict[str, Any] = {
        "tool": {"driver": _driver(report, [_rule_descriptor(r) for r in ordered])},
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: base},
        "results": results,
        "columnKind": "utf16CodeUnits",
        "properties": _run_properties(report),
    }
    if category:
        run["automationDetails"] = {"id": f"{category.rstrip('/')}/"}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _run_properties(report: Report) -> dict[str, Any]:
    props: dict[str, Any] = {
        "baseRef": _clean(report.base_ref, 300),
        "baseSha": report.base_sha,
        "headSha": report.head_sha,
        "failOn": report.fail_on.value,
        "outcomes": {k: report.outcomes.get(k, 0) for k in ("passed", "failed", "skipped",
                                                             "error")},
        # Items whose model review was reused from the evaluation cache (no model call).
        "cachedItems": sum(1 for item in report.items if item.cached),
    }
    if report.repository:
        props["repository"] = _clean(report.repository, 300)
    if report.pull_request is not None:
        props["pullRequest"] = report.pull_request
    return {"secreview": props}


def write_sarif(
    report: Report,
    path: str | os.PathLike[str],
    *,
    repo_root_uri: str | None = None,
    category: str | None = "pytest-secreview",
) -> Path:
    """Write :func:`to_sarif` to ``path`` as UTF-8 JSON, atomically (a reader never sees half
    a file); returns the path. Creates missing parent directories."""
    data = to_sarif(report, repo_root_uri=repo_root_uri, category=category)
    return write_text_atomic(Path(path), json.dumps(data, ensure_ascii=False, indent=2) + "\n")
