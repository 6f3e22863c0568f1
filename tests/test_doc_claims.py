"""What the documentation says the plugin does, run for real.

Each test runs the behaviour a page describes (the plugin through pytester in a real temporary
git repository) and, where the page states a value (a default, a line of a summary, a path),
reads that value from the page itself: when the page and the behaviour drift apart, a test
fails. Claims that other test files already run are not repeated here; the pages name those
tests (``test_docs_links.py`` checks that every test a page names exists).
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.core.findings import context_fingerprint, fingerprint
from pytest_secreview.options import SPECS, OptionSpec, load_settings
from pytest_secreview.rules.loader import bundled_rules_dir
from pytest_secreview.rules.scanner_spec import NO_SEMGREP_CONFIG
from tests.conftest import DEBUG_RULE, ReviewRepo
from tests.fake_providers import FakeServer, FakeServers, openai_no_findings
from tests.test_baseline import DANGER
from tests.test_docs_links import _flat, _tokens

Build = Callable[..., ReviewRepo]

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

REPORT = Path("secreview-artifacts") / "report"


# -- reading the pages ----------------------------------------------------------------------



def code_spans(page: Path) -> list[str]:
    """Every inline code span of ``page``, as a reader sees it (a span that wraps across
    lines reads with single spaces)."""
    return [" ".join(t.content.split()) for t in _flat(_tokens(page)) if t.type == "code_inline"]


def table_rows(page: Path, header: tuple[str, ...]) -> list[list[str]]:
    """The body rows (each cell's markdown) of the table of ``page`` whose header is
    ``header``."""
    tables: list[list[list[str]]] = []
    row: list[str] = []
    cell = False
    for token in _tokens(page):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            cell = True
        elif token.type == "inline" and cell:
            row.append(token.content)
            cell = False
        elif token.type == "tr_close":
            tables[-1].append(row)
    found = [rows[1:] for rows in tables if rows and tuple(rows[0]) == header]
    assert len(found) == 1, f"{page.name}: one table with the header {header}"
    return found[0]


def _spans(markdown: str) -> list[str]:
    return re.findall(r"`([^`]+)`", markdown)


# -- the option table of docs/configuration.md against options.SPECS ------------------------

OPTION_HEADER = ("option", "default", "meaning")


def option_rows() -> list[tuple[list[str], str, str, str]]:
    """Each row of the option table: its flags, its option cell, default and meaning."""
    rows = table_rows(DOCS / "configuration.md", OPTION_HEADER)
    return [([span.split()[0] for span in _spans(option)], option, default, meaning)
            for option, default, meaning in rows]


def option_row(cli: str) -> tuple[str, str]:
    """The default and meaning cells of the row that names ``cli``."""
    (found,) = [(default, meaning) for flags, _o, default, meaning in option_rows()
                if cli in flags]
    return found


def _shown(default: Any) -> str:
    """A default as the table writes it."""
    if isinstance(default, Enum):
        return str(default.value).lower()
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default)


def _option_problems(spec: OptionSpec, flags: list[str], option: str, default: str,
                     meaning: str) -> list[str]:
    problems = [f"{spec.cli}: the row does not name {name}"
                for name in (spec.cli, *spec.aliases) if name not in flags]
    braces = re.search(r"\{([^}]*)\}", next(s for s in _spans(option) if s.startswith(spec.cli)))
    # The words it takes: its choices, or the ones its metavar names (``{true,false}``).
    words = spec.choices or tuple((spec.metavar or "").strip("{}").split(","))
    if braces and tuple(braces.group(1).split(",")) != words:
        problems.append(f"{spec.cli}: the table offers {{{braces.group(1)}}}, the option "
                        f"takes {{{','.join(words)}}}")
    stated = default.replace("`", "").split(",")[0].split()[0]
    if spec.flag and stated != "off":
        problems.append(f"{spec.cli}: a switch, off unless given; the table says {default!r}")
    elif spec.default is not None and stated != _shown(spec.default):
        problems.append(f"{spec.cli}: default {_shown(spec.default)!r}, the table says "
                        f"{default!r}")
    elif spec.default is None and not spec.flag and stated in ("off", "0"):
        problems.append(f"{spec.cli}: no default value, the table says {default!r}")
    if ("*(gate" in meaning) != spec.gate:
        problems.append(f"{spec.cli}: gate={spec.gate}, the table "
                        f"{'marks' if '*(gate' in meaning else 'does not mark'} it *(gate)*")
    if not spec.from_ini and "command line or env only" not in meaning:
        problems.append(f"{spec.cli}: never read from an ini file; the table does not say "
                        "'command line or env only'")
    return problems


def test_the_option_table_states_each_options_flags_choices_default_and_gate() -> None:
    """A user copies the flag, picks a value from the braces and trusts the default column:
    each comes from the option table of ``pytest_secreview/options.py``."""
    by_flag = {name: spec for spec in SPECS for name in (spec.cli, *spec.aliases)}
    seen: list[str] = []
    problems: list[str] = []
    for flags, option, default, meaning in option_rows():
        problems += [f"the table names {flag}, which is no option" for flag in flags
                     if flag != "--secreview" and flag not in by_flag]
        specs = list(dict.fromkeys(by_flag[f] for f in flags if f in by_flag))
        for spec in specs:
            seen.append(spec.name)
            problems += _option_problems(spec, flags, option, default, meaning)
    problems += [f"{spec.cli} is missing from the table" for spec in SPECS
                 if spec.name not in seen]
    problems += [f"{name} has {seen.count(name)} rows" for name in set(seen)
                 if seen.count(name) > 1]
    assert not problems, "docs/configuration.md's option table: " + "; ".join(problems)


def test_the_option_table_check_catches_a_wrong_default_and_a_missing_gate() -> None:
    """The check above is not vacuous: a row with another default, another choice or no
    gate marker is reported."""
    (spec,) = [s for s in SPECS if s.name == "unreviewed"]
    flags = [spec.cli]
    good = (f"`{spec.cli} {{fail,warn,skip}}`", "`warn`", "what ... *(gate)*")
    assert _option_problems(spec, flags, *good) == []
    assert len(_option_problems(spec, flags, f"`{spec.cli} {{fail,skip}}`", "`fail`",
                                "what ...")) == 3


#: Two values of each repeatable option.
TWO_VALUES = {
    "rules": ("rules/a", "rules/b"),
    "semgrep-config": ("team-a", "team-b"),  # directories the test makes
    "advisories": ("osv-a", "osv-b"),  # directories the test makes
    "model": ("openai:model-a", "openai:model-b"),
    "prices": ("model-a input=1 output=2", "model-b input=3 output=4"),
}


def test_a_repeatable_options_variable_takes_several_values_as_the_page_says(
    pytester: pytest.Pytester,
) -> None:
    """docs/configuration.md ("Options"): the separator of each repeatable option's
    environment variable, read from the page."""
    page = " ".join((DOCS / "configuration.md").read_text(encoding="utf-8").split())
    match = re.search(r"separated by `(.)` \(`(.)` on Windows\), except `(.)` for "
                      r"`(SECREVIEW_\w+)` and `(.)` for `(SECREVIEW_\w+)`", page)
    assert match, "docs/configuration.md says how a variable holds several values"
    default = match.group(1) if os.pathsep == ":" else match.group(2)
    named = {match.group(4): match.group(3), match.group(6): match.group(5)}
    for name in (*TWO_VALUES["semgrep-config"], *TWO_VALUES["advisories"]):
        (pytester.path / name).mkdir()
    repeatable = [spec for spec in SPECS if spec.multiple]
    assert sorted(spec.name for spec in repeatable) == sorted(TWO_VALUES)
    for spec in repeatable:
        raw = named.get(spec.env, default).join(TWO_VALUES[spec.name])
        settings = load_settings(pytester.parseconfig(), env={spec.env: raw})
        assert len(getattr(settings, spec.setting_field)) == 2, (spec.env, raw)


# -- scanner-semgrep without --secreview-semgrep-config ------------------------------------

SEMGREP_RULE = str(bundled_rules_dir() / "scanner-semgrep.md")
SEMGREP_NOTE = f"scanner-semgrep made no item: {NO_SEMGREP_CONFIG}"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServers() as running:
        yield running.start()


@pytest.mark.parametrize("with_model", [False, True], ids=["no-model", "model"])
def test_semgrep_without_a_config_makes_no_item_and_every_summary_says_so(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer, with_model: bool,
) -> None:
    """docs/configuration.md (the option's row) and docs/rules.md (what you see when a
    scanner cannot run): no item, so ``--secreview-unreviewed=fail`` does not fail a team that
    has not configured semgrep, and the terminal summary, summary.md and summary.json say
    that semgrep did not run and how to configure it; with a model too, and without a general
    review rule."""
    _default, meaning = option_row("--secreview-semgrep-config")
    assert "that rule makes no item" in meaning, meaning
    (situation,) = [row for row in table_rows(DOCS / "rules.md", ("situation", "outcome"))
                    if "without `--secreview-semgrep-config`" in row[0]]
    assert "no item" in situation[1] and "summary" in situation[1], situation
    (quoted,) = [q for q in _spans(situation[1]) if q.startswith("scanner-semgrep made")]
    assert SEMGREP_NOTE.startswith(quoted.removesuffix("...").rstrip()), quoted
    review_repo(rules={"debug": DEBUG_RULE}, base={"app.py": "x = 1\n"},
                pr={"app.py": "import os\n\n\ndef run(cmd):\n    os.system(cmd)\n",
                    "tests/test_app.py": "def test_run():\n    pass\n"})
    model = (("--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url)
             if with_model else ())
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules", "--secreview-rules",
                                SEMGREP_RULE, "--secreview-unreviewed=fail", *model)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    result.assert_outcomes(passed=1)  # debug[app.py]: no scanner-semgrep item
    assert "scanner-semgrep[" not in out
    assert SEMGREP_NOTE in out
    # The other note of the same kind (docs/how-it-works.md, "Default exclusions").
    assert "1 changed file(s) out of the non-credential rules by default: 1 test code" in out
    assert f"- {SEMGREP_NOTE}" in (pytester.path / REPORT / "summary.md").read_text()
    summary = json.loads((pytester.path / REPORT / "summary.json").read_text())
    assert SEMGREP_NOTE in summary["notes"]
    assert not server.requests  # nothing needed the model


# -- the baseline's counts in the terminal and summary.md -----------------------------------

CALLS = ("a = dangerous(1)", "b = dangerous(2)", "c = dangerous(3)")
RISKY = textwrap.dedent("""\
    ---
    title: Risky call
    severity: high
    applies_to:
      paths: ["app/more.py"]
    detect:
      - pattern: "risky\\\\("
        message: A risky call
    ---
    """)


def test_the_baseline_lines_the_docs_show_are_the_ones_a_review_prints(
    pytester: pytest.Pytester, review_repo: Build, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """docs/configuration.md ("An entry without a note still mutes") and docs/outputs.md
    (summary.md's counts) quote the lines a review with a baseline prints: three findings
    muted by the baseline, one entry without a note. Every span of those pages that quotes
    the baseline's count appears verbatim in the terminal or in summary.md."""
    quoted = [span for page in ("configuration.md", "outputs.md")
              for span in code_spans(DOCS / page)
              if "muted by baseline entries without a note" in span]
    assert len(quoted) >= 3, quoted  # the terminal's line, summary.md's, its whole Items line
    baseline = tmp_path_factory.mktemp("ci") / "baseline.json"
    entries = [{"fingerprint": fingerprint("danger", "app/jobs.py", call),
                "context": context_fingerprint(fingerprint("danger", "app/jobs.py", call), ""),
                "rule": "danger", "path": "app/jobs.py", "line": line,
                "note": "accepted in SEC-7" if line > 1 else ""}
               for line, call in enumerate(CALLS, 1)]
    baseline.write_text(json.dumps({"version": 1, "findings": entries}))
    repo = review_repo(rules={"danger": DANGER, "risky": RISKY},
                       pr={"app/jobs.py": "\n".join(CALLS) + "\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules",
                                f"--secreview-baseline={baseline}")
    result.assert_outcomes(passed=1)
    terminal = " ".join(result.stdout.str().split())
    markdown = (pytester.path / REPORT / "summary.md").read_text()
    printed = terminal + "\n" + markdown
    assert [span for span in quoted if span not in printed] == []
    assert any(span.startswith("Items: ") and span in markdown for span in quoted), quoted

    # "Suppressions hide nothing: ... in the summary's counts (`findings: 2 HIGH · 3
    # suppressed`)": two findings that count beside the three muted ones.
    (counts,) = [span for span in code_spans(DOCS / "configuration.md")
                 if re.fullmatch(r"findings: \d+ HIGH · \d+ suppressed", span)]
    repo.write("app/more.py", "risky(1)\nrisky(2)\n")
    repo.commit("two more")
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", "secreview/rules",
                       f"--secreview-baseline={baseline}").assert_outcomes(passed=3)
    assert counts in (pytester.path / REPORT / "summary.md").read_text()


# -- the evaluation cache's default directory -----------------------------------------------

MODEL_RULE = textwrap.dedent("""\
    ---
    title: Query building
    severity: critical
    grep:
      any: ["execute"]
    ---
    Look for SQL built from request data.
    """)


def test_the_evaluation_cache_is_under_pytests_cache_directory_by_default(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    """docs/models.md ("Evaluation cache", default ``.pytest_cache/d/secreview``) and the
    option table (``secreview/`` in pytest's cache dir): a re-run of an unchanged pull request
    makes no model call; with pytest's cache plugin off (``-p no:cacheprovider``) and no
    ``--secreview-cache-dir`` there is no cache."""
    page = (DOCS / "models.md").read_text()
    match = re.search(r"`--secreview-cache-dir`, default `([^`]+)`", page)
    assert match, "docs/models.md states the cache's default directory"
    stated = pytester.path / match.group(1)
    default, _meaning = option_row("--secreview-cache-dir")
    assert default.startswith("`secreview/` in pytest's cache dir"), default
    review_repo(rules={"sql": MODEL_RULE}, pr={"db.py": "cur.execute(q)\n"})
    args = ("--secreview", "--base", "main", "--secreview-rules", "secreview/rules",
            "--secreview-model", "openai:gpt-4.1", "--secreview-api-base", server.url)
    server.queue(openai_no_findings(), openai_no_findings())
    pytester.runpytest(*args).assert_outcomes(passed=1)
    assert len(server.requests) == 1
    assert stated.is_dir() and any(p.is_file() for p in stated.rglob("*")), stated
    again = pytester.runpytest(*args)
    again.assert_outcomes(passed=1)
    assert "cache: 1 item(s) reused" in again.stdout.str()
    assert len(server.requests) == 1  # the re-run asked nothing
    pytester.runpytest(*args, "-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert len(server.requests) == 2  # no cache without pytest's cache directory


# -- the deterministic review says so before the outcomes ----------------------------------

INSTRUCTIONS_ONLY = textwrap.dedent("""\
    ---
    title: Authorization review
    severity: high
    ---
    Check that every new view checks the caller's permissions.
    """)


def test_without_a_model_every_summary_says_the_review_was_deterministic_first(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    """docs/how-it-works.md ("No model: the deterministic review"): the line it quotes heads
    the terminal summary's results and summary.md's sections, and is ``review_kind`` in
    summary.json."""
    section = (DOCS / "how-it-works.md").read_text().split("## No model")[1].split("\n## ")[0]
    (quoted,) = [s for s in re.findall(r"`([^`]+)`", " ".join(section.split()))
                 if s.startswith("deterministic review")]
    # The page writes the counts as N and the rule list as (...).
    pattern = re.escape(quoted).replace("N", r"\d+").replace(re.escape("(...)"), r"\(.+?\)")
    review_repo(rules={"debug": DEBUG_RULE, "authz": INSTRUCTIONS_ONLY},
                pr={"app.py": "debug = True\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", "secreview/rules")
    result.assert_outcomes(passed=1)
    lines = result.stdout.lines
    (kind,) = [i for i, line in enumerate(lines) if re.match(pattern, line)]
    assert kind < next(i for i, line in enumerate(lines) if line.startswith("items: "))
    markdown = (pytester.path / REPORT / "summary.md").read_text().splitlines()
    (md_kind,) = [i for i, line in enumerate(markdown) if re.match("> " + pattern, line)]
    assert md_kind < next(i for i, line in enumerate(markdown) if line.startswith("### "))
    summary = json.loads((pytester.path / REPORT / "summary.json").read_text())
    assert re.match(pattern, summary["review_kind"]) and "(authz)" in summary["review_kind"]


# -- JUnit properties, JSON metadata and the run binding ------------------------------------

def _bullet(page: Path, start: str) -> str:
    """The list item of ``page`` that starts with ``start``, its lines joined."""
    text = page.read_text(encoding="utf-8")
    match = re.search(rf"^- {re.escape(start)}.*?(?=^- |^\n|\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"{page.name} has a list item starting {start!r}"
    return " ".join(match.group().split())


def test_junit_properties_and_json_metadata_are_the_ones_the_page_names(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    """docs/outputs.md ("Results"): every testcase carries exactly the ``secreview_*``
    properties the JUnit bullet names, classed under its rule id; ``metadata.secreview`` of the
    JSON report holds the keys the JSON bullet names, and no other."""
    import xml.etree.ElementTree as ET

    junit_bullet = _bullet(DOCS / "outputs.md", "**JUnit**")
    properties = {s for s in _spans(junit_bullet) if s.startswith("secreview_")}
    assert len(properties) >= 6, junit_bullet
    json_bullet = _bullet(DOCS / "outputs.md", "**JSON**")
    keys = {s for s in _spans(json_bullet) if re.fullmatch(r"[a-z_]+", s)}
    # "holds `rule`, ... and `not_reviewed` (why ...); with several models also ...".
    always = set(_spans(json_bullet.split(" holds ")[1].split(" (")[0]))
    assert len(always) == 8, always
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n", "b.py": "x = 1\n"})
    junit, report = pytester.path / "junit.xml", pytester.path / "report.json"
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", "secreview/rules", f"--junitxml={junit}",
                       "--json-report", f"--json-report-file={report}").assert_outcomes(passed=2)
    cases = list(ET.parse(junit).getroot().iter("testcase"))  # noqa: S314 - our own file
    assert len(cases) == 2
    for case in cases:
        assert case.get("classname") == "debug"
        assert {p.get("name") for p in case.iter("property")} == properties
    for test in json.loads(report.read_text())["tests"]:
        meta = test["metadata"]["secreview"]
        assert always <= set(meta) <= keys, (sorted(meta), sorted(keys))


@pytest.mark.parametrize("key", [None, "0123456789abcdef" * 4], ids=["no-key", "run-key"])
def test_the_run_binding_is_written_beside_the_summary_with_the_run_key(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch,
    key: str | None,
) -> None:
    """docs/outputs.md: with ``SECREVIEW_RUN_KEY`` set the report directory also holds
    ``run-binding.json`` (the name the page states), signed; a plain run writes none."""
    (name,) = re.findall(r"`SECREVIEW_RUN_KEY` set, also \*\*`([^`]+)`\*\*",
                         " ".join((DOCS / "outputs.md").read_text().split()))
    monkeypatch.delenv("SECREVIEW_RUN_KEY", raising=False)
    if key is not None:
        monkeypatch.setenv("SECREVIEW_RUN_KEY", key)
    review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", "secreview/rules").assert_outcomes(passed=1)
    binding = pytester.path / REPORT / name
    assert binding.is_file() == (key is not None)
    if key is not None:
        assert json.loads(binding.read_text())["hmac"]
        assert key not in binding.read_text()


# -- what is posted on the pull request by default ------------------------------------------

def test_the_pr_comment_defaults_to_the_summary_with_a_token_and_a_pr(
    pytester: pytest.Pytester, review_repo: Build, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The option table: ``--secreview-comment`` defaults to ``summary`` when a token and a
    pull request are known (one summary comment, no inline comment), and posts nothing
    without a token."""
    from tests.fake_github import FakeGitHub, make_token

    default, _meaning = option_row("--secreview-comment")
    assert default == "`summary` with a token and a PR", default
    repo = review_repo(rules={"debug": DEBUG_RULE}, pr={"app.py": "debug = True\n"})
    diff = repo.git("diff", "main...HEAD", "--", "app.py")
    token = make_token()
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules")
    for name in ("GITHUB_TOKEN", "SECREVIEW_GITHUB_TOKEN", "SECREVIEW_COMMENT"):
        monkeypatch.delenv(name, raising=False)
    with FakeGitHub(token=token, files={"app.py": diff[diff.index("@@"):]},
                    head_sha=repo.git("rev-parse", "HEAD").strip()) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.api_url)
        monkeypatch.setenv("GITHUB_REPOSITORY", github.repository)
        monkeypatch.setenv("SECREVIEW_PR", str(github.number))
        pytester.runpytest(*args).assert_outcomes(passed=1)
        assert not github.calls("POST") and not github.calls("PATCH")  # no token
        monkeypatch.setenv("GITHUB_TOKEN", token)
        pytester.runpytest(*args).assert_outcomes(passed=1)
        (summary,) = github.summary_comments()
        assert "Debug mode enabled" in summary["body"]
        assert github.review_comments == []  # inline comments only with inline or all


# -- the limits the pages state are the code's ----------------------------------------------

def _limits() -> list[tuple[str, str, float]]:
    """(page, pattern whose group is the number the page states, the code's value). Each
    limit's behaviour is run by the test file of its feature; this pins the number a reader
    plans with (how much is kept, cut, refused) to the constant that enforces it."""
    from pytest_secreview.agent.guidance import MAX_INSTRUCTIONS_CHARS
    from pytest_secreview.agent.prompt import MAX_LISTED_FILES
    from pytest_secreview.agent.report_tool import MAX_LINE_SHIFT
    from pytest_secreview.analysis.session import MAX_FILE_BYTES as TAINT_MAX_BYTES
    from pytest_secreview.audit.evidence import MAX_ITEMS, MAX_PER_FILE_CATEGORY
    from pytest_secreview.audit.statement import MAX_CHARS
    from pytest_secreview.diff.parser import DEFAULT_MAX_FILE_BYTES
    from pytest_secreview.evaluation.deterministic import MAX_STREAMED_FINDINGS
    from pytest_secreview.fix.run import MAX_FIXES_PER_ITEM
    from pytest_secreview.fix.tool import MAX_CHANGED_LINES, MAX_PATCH_CHARS, MAX_PATCH_FILES
    from pytest_secreview.rules.model import Coverage, ScannerUse
    from pytest_secreview.scanners.session import SCAN_TIMEOUT
    from pytest_secreview.scanners.workspace import MAX_FILE_BYTES as SCANNER_MAX_BYTES
    from pytest_secreview.tools.globs import MAX_BRACE_EXPANSIONS
    from pytest_secreview.tools.output import MAX_OUTPUT_CHARS

    mib = 1 << 20
    return [
        ("how-it-works.md", r"\((\d+) named, the rest counted", MAX_LISTED_FILES),
        ("how-it-works.md", r"on another line within (\d+) lines", MAX_LINE_SHIFT),
        ("how-it-works.md", r"at most ([\d,]+) findings are kept per file", MAX_STREAMED_FINDINGS),
        ("how-it-works.md", r"capped \((\d+) per file and category", MAX_PER_FILE_CATEGORY),
        ("how-it-works.md", r"per file and category, ([\d,]+) in all", MAX_ITEMS),
        ("how-it-works.md", r"each capped at ([\d,]+) characters with `\[TRUNCATED\]`",
         MAX_CHARS),
        ("how-it-works.md", r"the question is untrusted input: capped at ([\d,]+) characters",
         MAX_CHARS),
        ("configuration.md", r"are capped at ([\d,]+) characters each", MAX_CHARS),
        ("configuration.md", r"at most ([\d,]+) characters \*\(gate\)\*",
         MAX_INSTRUCTIONS_CHARS),
        ("configuration.md", r"A file over ([\d,]+) characters is a usage error",
         MAX_INSTRUCTIONS_CHARS),
        ("how-it-works.md", r"at most (\d+) files, [\d,]+ changed lines", MAX_PATCH_FILES),
        ("how-it-works.md", r"at most \d+ files, ([\d,]+) changed lines", MAX_CHANGED_LINES),
        ("how-it-works.md", r"changed lines, ([\d,]+) characters", MAX_PATCH_CHARS),
        ("how-it-works.md", r"at most (\d+) patches are asked for per item", MAX_FIXES_PER_ITEM),
        ("how-it-works.md", r"A file whose diff is over (\d+) MiB", DEFAULT_MAX_FILE_BYTES / mib),
        ("how-it-works.md", r"too large to review \(over (\d+) MiB of diff\)",
         DEFAULT_MAX_FILE_BYTES / mib),
        ("rules.md", r"analyse \(larger than (\d+) MiB", TAINT_MAX_BYTES / mib),
        ("rules.md", r"a symlink or over (\d+) MiB", SCANNER_MAX_BYTES / mib),
        ("rules.md", r"(\d+) min time limit", SCAN_TIMEOUT / 60),
        ("rules.md", r"changed files per item \(default (\d+)\)", ScannerUse.files_per_item),
        ("rules.md", r"hunk characters per item \(default ([\d,]+)\)", ScannerUse.chars_per_item),
        ("rules.md", r"lines_per_item: (\d+)", Coverage.lines_per_item),
        ("rules.md", r"max_items: (\d+)", Coverage.max_items),
        ("how-it-works.md", r"`lines_per_item: (\d+)` changed lines", Coverage.lines_per_item),
        ("how-it-works.md", r"`chars_per_item: (\d+)`", Coverage.chars_per_item),
        ("how-it-works.md", r"`max_items: (\d+)`", Coverage.max_items),
        ("security.md", r"truncated at ([\d,]+) characters with a marker", MAX_OUTPUT_CHARS),
        ("security.md", r"at most (\d+) alternatives", MAX_BRACE_EXPANSIONS),
    ]


def test_the_limits_the_pages_state_are_the_ones_the_code_enforces() -> None:
    texts = {page: " ".join((DOCS / page).read_text(encoding="utf-8").split())
             for page in {page for page, _p, _v in _limits()}}
    problems = []
    for page, pattern, value in _limits():
        found = re.findall(pattern, texts[page])
        if not found:
            problems.append(f"{page}: no {pattern!r}")
        problems += [f"{page}: {pattern!r} states {n}, the code {value:g}"
                     for n in found if float(n.replace(",", "")) != value]
    assert not problems, "; ".join(problems)


# -- selecting review items with pytest's own options ---------------------------------------

def test_the_review_runs_beside_your_tests_and_is_selected_by_marker_rule_or_path(
    pytester: pytest.Pytester, review_repo: Build,
) -> None:
    """docs/how-it-works.md: without paths only the review items run; ``pytest tests/
    --secreview`` runs the tests and the review in one session; every review item carries the
    ``secreview`` marker, and ``-k`` selects by rule or by path."""
    review_repo(rules={"debug": DEBUG_RULE},
                base={"tests/test_ok.py": "def test_ok():\n    assert True\n"},
                pr={"app/a.py": "debug = True\n", "app/b.py": "x = 1\n"})
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules")
    pytester.runpytest(*args).assert_outcomes(passed=2)  # debug[app/a.py], debug[app/b.py]
    both = pytester.runpytest(*args, "tests/")
    both.assert_outcomes(passed=3)
    assert "test_ok.py" in both.stdout.str()
    pytester.runpytest(*args, "tests/", "-m", "secreview").assert_outcomes(passed=2,
                                                                           deselected=1)
    pytester.runpytest(*args, "tests/", "-m", "not secreview").assert_outcomes(passed=1,
                                                                               deselected=2)
    by_path = pytester.runpytest(*args, "-k", "app/a.py", "-v")
    by_path.assert_outcomes(passed=1, deselected=1)
    assert "debug[app/a.py] PASSED" in by_path.stdout.str()
    pytester.runpytest(*args, "-k", "debug").assert_outcomes(passed=2)


# -- a model without a known price ----------------------------------------------------------

def test_an_unpriced_model_costs_unknown_and_a_budget_refuses_it(
    pytester: pytest.Pytester, review_repo: Build, server: FakeServer,
) -> None:
    """docs/models.md: "An unknown price is reported as "unknown", not $0", and "A model with
    no known price is a usage error when a budget is set (add one with
    ``--secreview-prices``)"."""
    page = " ".join((DOCS / "models.md").read_text(encoding="utf-8").split())
    assert 'An unknown price is reported as "unknown", not $0' in page
    assert "A model with no known price is a usage error when a budget is set" in page
    review_repo(rules={"sql": MODEL_RULE}, pr={"db.py": "cur.execute(q)\n"})
    args = ("--secreview", "--base", "main", "-p", "no:cacheprovider", "--secreview-rules",
            "secreview/rules", "--secreview-model", "openai:house-model-7",
            "--secreview-api-base", server.url)
    refused = pytester.runpytest(*args, "--secreview-max-cost", "1")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert ("add one with --secreview-prices 'house-model-7 input=N output=N'"
            in refused.stderr.str())
    assert not server.requests
    server.queue(openai_no_findings(usage={"prompt_tokens": 100, "completion_tokens": 5,
                                           "total_tokens": 105}))
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1)
    assert "estimated cost unknown" in result.stdout.str()
    assert "**Total cost unknown**" in (pytester.path / REPORT / "summary.md").read_text()
    server.queue(openai_no_findings())
    priced = pytester.runpytest(*args, "--secreview-max-cost", "1", "--secreview-prices",
                                "house-model-7 input=1 output=2")
    assert priced.ret == pytest.ExitCode.OK  # the price makes the budget usable
