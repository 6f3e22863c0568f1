"""The markdown summary: content, determinism, escaping of hostile text, the size limit."""

from __future__ import annotations

import functools
import random
import re

import pytest

from pytest_secreview.core.severity import Severity
from pytest_secreview.reporting.markdown import to_markdown
from pytest_secreview.reporting.markdown_finding import render_comment_template
from pytest_secreview.reporting.markdown_text import code_block, escape_text, inline_code, safe_url
from pytest_secreview.reporting.model import (
    EvidenceReport,
    NotReviewed,
    Report,
    RiskEvidenceReport,
    RuleReport,
    Usage,
)
from tests.fake_github import make_finding, make_report, make_token

ZWSP = "\u200b"
ALLOWED_TAGS = {"<details>", "</details>", "<summary>", "</summary>", "<b>", "</b>",
                "<sub>", "</sub>"}
LINK_BASE = "https://github.com/octo/repo"


def outside_code(markdown: str) -> str:
    """The text outside fenced code blocks; fails if a fence is left open."""
    kept: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        match = re.match(r"^(`{3,})", line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and re.fullmatch(rf"{fence}`*\s*", line):
            fence = None
        elif fence is None:
            kept.append(line)
    assert fence is None, "a code fence was left open"
    return "\n".join(kept)


def assert_inert(markdown: str) -> None:
    """No raw HTML but ours, no foreign link, no live mention in the prose."""
    prose = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside_code(markdown))
    for tag in re.findall(r"</?[A-Za-z][^>\s]*[^>]*>", prose):
        assert tag in ALLOWED_TAGS, tag
    assert "<!--" not in prose
    for target in re.findall(r"(?<!\\)\]\(([^)]*)\)", prose):
        assert target.startswith((LINK_BASE, "https://cheatsheetseries.owasp.org/")), target
    assert not re.search(r"(?<![\w\\])@[A-Za-z0-9]", prose)
    assert not re.search(r"(?<!\\)\$", prose)
    assert not re.search(r"https?://(?!github\.com/octo/repo|cheatsheetseries)", prose)


HOSTILE = [
    pytest.param("</details><img src=x onerror=alert(1)>", id="html"),
    pytest.param("```\n# injected heading\n```", id="fence"),
    pytest.param("ping @org/team and @alice", id="mention"),
    pytest.param("[click](https://evil.example/x) ![img](https://evil.example/i.png)", id="link"),
    pytest.param("see https://evil.example and www.evil.example", id="autolink"),
    pytest.param("closes #12 and GH-3", id="reference"),
    pytest.param("- [ ] task\n> quote\n| a | b |\n---", id="block-syntax"),
    pytest.param("<!-- pytest-secreview:summary -->", id="marker"),
    pytest.param("$\\href{https://evil.example}{click}$", id="math"),
    pytest.param("\x1b[31mred\x1b[0m\rcarriage \u202eevil", id="control"),
]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_is_inert_in_every_field(hostile: str) -> None:
    finding = make_finding(title=hostile, explanation=hostile, exploit_scenario=hostile,
                           recommendation=hostile, suggestion=hostile, category=hostile,
                           path=f"src/{hostile}.py")
    report = make_report([finding], notes=[hostile],
                         not_reviewed=[NotReviewed(path=hostile, reason=hostile)])
    text = to_markdown(report, link_base=LINK_BASE,
                       resolved=[{"title": hostile, "path": hostile, "severity": "HIGH"}])
    assert_inert(text)
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text


def _evidence(n: int, truncated: int = 0, text: str = "requests.post(url)",
              category: str = "network", signal: str = "HTTP client call",
              path: str = "app/net.py") -> RiskEvidenceReport:
    return RiskEvidenceReport(
        categories=[category], counts={category: n + truncated}, truncated=truncated,
        items=[EvidenceReport(category=category, signal=signal, path=path, line=i + 1,
                              side="added", text=text) for i in range(n)])


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_is_inert_in_the_evidence_no_model_judged(hostile: str) -> None:
    evidence = _evidence(2, text=hostile, category=hostile, signal=hostile, path=hostile)
    text = to_markdown(make_report([], risk_evidence=evidence), link_base=LINK_BASE)
    assert "### Intent audit: risk evidence, not judged" in text
    assert_inert(text)
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text


@pytest.mark.parametrize(("listed", "truncated", "more"), [
    (5, 15, "- … and 15 more in the JSON report"),  # the caps kept 15 matches out of items
    (20, 3, "- … and 8 more in the JSON report"),  # 5 past the 15 listed, and 3
    (15, 0, None),
])
def test_the_evidence_no_model_judged_counts_what_it_does_not_list(
        listed: int, truncated: int, more: str | None) -> None:
    text = to_markdown(make_report([], risk_evidence=_evidence(listed, truncated)))
    assert text.count("HTTP client call") == min(listed, 15)
    assert (more in text) if more else ("more in the JSON report" not in text)
    assert text.startswith("## 🟢 ")  # evidence with no verdict turns nothing red or yellow


def test_no_evidence_block_without_a_signal() -> None:
    assert "Intent audit" not in to_markdown(make_report([], risk_evidence=_evidence(0)))


def test_hostile_title_cannot_close_our_details_block() -> None:
    finding = make_finding(severity="LOW", title="</details> ``` <img src=x> @org/team")
    text = to_markdown(make_report([finding]))
    assert text.count("<details>") == text.count("</details>") == 1
    assert "&lt;/details&gt;" in text and "&lt;img src=x&gt;" in text
    assert "@" + ZWSP + "org/team" in text
    assert "\\`\\`\\`" in text


def test_suggestion_is_a_plain_code_block_longer_than_its_backticks() -> None:
    code = 'run(["ls", "--", name])\n```\nmore ````` ticks'
    text = to_markdown(make_report([make_finding(suggestion=code)]))
    assert "```suggestion" not in text
    assert "``````python\n" + code + "\n``````" in text
    outside_code(text)


def test_content_verdict_links_and_documentation() -> None:
    finding = make_finding(path="src/my app.py", line=10, end_line=12, cwe="CWE-78")
    low = make_finding(severity="LOW", title="Minor", rule="other-rule", path="b.py", line=1)
    text = to_markdown(make_report([finding, low]), link_base=LINK_BASE + "/")
    assert text.startswith("## 🔴 pytest-secreview: 1 finding at or above CRITICAL")
    assert (f"[`src/my app.py:10-12`]({LINK_BASE}/blob/{'c0ffee' + '0' * 34}/"
            "src/my%20app.py#L10-L12)") in text
    assert ("📖 [Learn more: OS command injection](https://cheatsheetseries.owasp.org/"
            "cheatsheets/OS_Command_Injection_Defense_Cheat_Sheet.html)") in text
    assert text.count("📖") == 1  # other-rule has no documentation link
    # Worst first; the LOW group is collapsed.
    assert text.index("CRITICAL (1)") < text.index("LOW (1)")
    assert "<details><summary><b>🔵 LOW (1)</b></summary>" in text
    for part in ("**Exploit scenario:**", "**Recommendation:**", "`CWE-78`",
                 "confidence 1.00", "Items: 0 passed, 2 failed, 0 skipped, 0 errors"):
        assert part in text


def test_plain_locations_without_link_base_and_no_link_for_dot_segments() -> None:
    text = to_markdown(make_report([make_finding(path="a/b.py", line=4)]))
    assert "`a/b.py:4`" in text and "/blob/" not in text
    sneaky = to_markdown(make_report([make_finding(path="../../settings", line=1)]),
                         link_base=LINK_BASE)
    assert "/blob/" not in sneaky


def test_documentation_link_comes_from_the_rule_not_the_model() -> None:
    rule = RuleReport(id="command-injection", title="Cmd", source="x", severity=Severity.HIGH,
                      documentation_link="javascript:alert(1)")
    finding = make_finding(explanation="Docs: [here](https://evil.example/docs)")
    text = to_markdown(make_report([finding], rules=[rule]))
    assert "📖" not in text and "](https://evil" not in text


@pytest.mark.parametrize(("report_kwargs", "icon", "headline"), [
    pytest.param({}, "🟢", "0 findings at or above CRITICAL", id="green"),
    pytest.param({"not_reviewed": [NotReviewed(path="x.bin", reason="binary file")]}, "🟡",
                 "0 findings at or above CRITICAL, 1 not reviewed", id="yellow"),
    pytest.param({"outcomes": {"passed": 1, "failed": 0, "skipped": 0, "error": 2}}, "🔴",
                 "0 findings at or above CRITICAL, 2 items could not be evaluated", id="error"),
])
def test_headline_is_never_green_when_something_was_not_checked(
        report_kwargs: dict[str, object], icon: str, headline: str) -> None:
    text = to_markdown(make_report([], **report_kwargs))
    assert text.startswith(f"## {icon} pytest-secreview: {headline}\n")


def test_resolved_findings_are_struck_through() -> None:
    gone = make_finding(severity="HIGH", title="Old bug", path="old.py", line=5)
    text = to_markdown(make_report([]), resolved=[gone, {"title": "Other", "path": "z.py"}])
    assert "### ✅ Resolved since the last run (2)" in text
    assert "- ~~🟠 HIGH · Old bug~~ — `old.py:5` · rule `command-injection`" in text
    assert "- ~~⚪ INFO · Other~~ — `z.py`" in text


def test_not_reviewed_groups_identical_reasons() -> None:
    entries = [NotReviewed(path=f"img{i}.png", reason="binary file") for i in range(12)]
    entries += [NotReviewed(path="a.py", rule="r1", reason="no model configured"),
                NotReviewed(path="b.py", rule="r1", reason="no model configured")]
    text = to_markdown(make_report([], not_reviewed=entries))
    assert "### ⚠️ Not reviewed (14)" in text
    assert "- **binary file** (12): `img0.png`, `img1.png`" in text
    assert ", … and 2 more" in text
    assert "- **no model configured** (2): `a.py` (rule `r1`), `b.py` (rule `r1`)" in text


@pytest.mark.parametrize(("cost", "shown"), [(None, "cost unknown"), (1.5, "cost \\$1.5000")])
def test_usage_and_cost(cost: float | None, shown: str) -> None:
    usage = Usage(model_calls=3, tool_calls=4, input_tokens=12345, output_tokens=67,
                  cost_usd=cost)
    text = to_markdown(make_report([], usage=usage))
    assert "3 model calls · 4 tool calls · 12,345 input tokens" in text
    assert shown in text


def test_output_is_deterministic_whatever_the_finding_order() -> None:
    findings = [make_finding(severity=sev, title=f"t{i}", path=f"p{i % 3}.py", line=i)
                for i, sev in enumerate(["LOW", "CRITICAL", "INFO", "HIGH", "MEDIUM"] * 4)]
    first = to_markdown(make_report(findings), link_base=LINK_BASE)
    shuffled = list(findings)
    random.Random(3).shuffle(shuffled)
    assert to_markdown(make_report(shuffled), link_base=LINK_BASE) == first


@functools.cache
def _huge_report() -> Report:
    severities = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]
    findings = [make_finding(severity=severities[i % 5], title=f"Finding {i}",
                             path=f"src/module_{i:04d}.py", line=i + 1,
                             explanation="x " * 1500, suggestion="y = 1\n" * 200)
                for i in range(600)]
    notes = [f"note {i} " + "z" * 400 for i in range(100)]
    return make_report(findings, notes=notes,
                       not_reviewed=[NotReviewed(path=f"f{i}", reason=f"reason {i % 60}")
                                     for i in range(5000)])


def test_huge_report_fits_with_a_note_lowest_severities_first() -> None:
    report = _huge_report()
    text = to_markdown(report, full_report="in the `secreview` artifact")
    assert len(text) <= 65_536
    assert "This summary was shortened to fit 65,536 characters" in text
    assert "The full report is in the `secreview` artifact." in text
    outside_code(text)
    # CRITICAL findings keep their details longest; INFO ones lose them first.
    assert "#### 🔴 **CRITICAL** · Finding 0\n" in text
    assert "#### ⚪ **INFO**" not in text
    assert text == to_markdown(report, full_report="in the `secreview` artifact")


@pytest.mark.parametrize("limit", [300, 2_000, 20_000])
def test_any_limit_is_respected(limit: int) -> None:
    text = to_markdown(_huge_report(), max_chars=limit)
    assert len(text) <= limit
    assert "The full report is" in text


def test_secrets_built_at_run_time_are_redacted_everywhere() -> None:
    secret = make_token()
    finding = make_finding(title=f"token {secret}", explanation=f"value={secret}",
                           suggestion=f'TOKEN = "{secret}"', path=f"conf/{secret}.py")
    report = make_report([finding], notes=[f"leak {secret}"],
                         not_reviewed=[NotReviewed(path="x", reason=f"error with {secret}")])
    text = to_markdown(report, resolved=[{"title": secret, "path": secret}],
                       link_base=LINK_BASE)
    assert secret not in text
    assert secret[4:20] not in text
    assert "REDACTED" in text


def test_a_secret_split_by_a_terminal_escape_is_redacted() -> None:
    # Control characters are removed before redaction reads the text: the escape that split
    # the token in the source cannot keep it from being recognised once it is joined.
    secret = make_token()
    split = secret[:10] + "\x1b[0m" + secret[10:]
    for text in (escape_text(f"value {split}"), inline_code(split), code_block(split)):
        assert secret not in text and secret[4:20] not in text
        assert "REDACTED" in text


def test_escape_text_keeps_prose_readable() -> None:
    assert escape_text("1. first\n- item\n# head") == "1\\. first\n\\- item\n\\# head"
    assert escape_text("a & b < c") == "a &amp; b &lt; c"
    assert escape_text("costs $5 *now*") == "costs \\$5 \\*now\\*"
    assert escape_text("x\n\n\n\ny") == "x\n\ny"
    assert escape_text("one\ntwo", one_line=True) == "one two"


@pytest.mark.parametrize(("text", "expected"), [
    ("plain", "`plain`"),
    ("a`b", "``a`b``"),
    ("`edge`", "`` `edge` ``"),
    ("", "` `"),
])
def test_inline_code(text: str, expected: str) -> None:
    assert inline_code(text) == expected


def test_code_block_fence_outgrows_content() -> None:
    assert code_block("````", "x") == "`````x\n````\n`````"


@pytest.mark.parametrize(("url", "expected"), [
    ("https://example.com/a(b)'c", "https://example.com/a%28b%29%27c"),
    ("https://example.com/a b", None),
    ("javascript:alert(1)", None),
    ("https://x.example/\n", "https://x.example/"),
    (None, None),
])
def test_safe_url(url: str | None, expected: str | None) -> None:
    assert safe_url(url) == expected


def test_comment_template_fills_placeholders_safely() -> None:
    finding = make_finding(path="a`b.py", line=7, title="<b>bold</b> @team")
    text = render_comment_template("**Bug** in `{path}` line {line}: {title}. {unknown}",
                                   finding)
    assert text == ("**Bug** in ``a`b.py`` line 7: &lt;b&gt;bold&lt;/b&gt; @" + ZWSP
                    + "team. {unknown}")
