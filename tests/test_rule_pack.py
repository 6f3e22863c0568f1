"""The bundled rule pack (``rules/*.md``), tested the way semgrep tests its rules.

Every rule has a directory of annotated cases under ``tests/rule_cases/<rule-id>/`` (see
``tests/rulecases.py`` for the annotation syntax). The tests check that each rule parses
with complete metadata, that its ``detect`` patterns fire exactly on the ``ruleid`` lines and
never on the ``ok`` lines (of every case, not only its own), that its matcher creates an item
for every vulnerable case, every removed safeguard and every deterministic finding, that
ordinary changes create no items, and that no secret exists literally in the repository.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.severity import Severity
from pytest_secreview.diff.model import ChangeKind, FileDiff, Hunk
from pytest_secreview.errors import RuleError
from pytest_secreview.evaluation.deterministic import run_detect
from pytest_secreview.rules.matcher import PathFilter, Target, match_file
from pytest_secreview.rules.model import Rule
from pytest_secreview.rules.parse import parse_rule
from pytest_secreview.safe_regex import SafePattern

from .rulecases import (
    BENIGN_DIR,
    CASES_DIR,
    PLACEHOLDERS,
    ROOT,
    Case,
    added_file,
    git_patch,
    load_cases,
    load_rules,
    modified_file,
    pack_rule_files,
    parse_case_text,
    rules_by_id,
    substitute,
)

RULE_FILES = pack_rule_files()
RULE_IDS = [path.stem for path in RULE_FILES]
#: Rules with grep and cases; the general review rule (``coverage:``) is tested on its own
#: corpus in tests/test_coverage.py.
SPECIFIC_IDS = [rule.id for rule in load_rules()]
CASES = load_cases()
OWN_CASES = [case for case in CASES if case.rule_dir != BENIGN_DIR]
PAIRS = [case for case in CASES if case.before is not None]

MIN_RULES = 16
#: Removed safeguards the pack must catch deterministically (a deleted line is the finding).
REMOVED_SAFEGUARD_RULES = {
    "missing-authorization",  # @login_required, @PreAuthorize, auth middleware, guards
    "xss",  # escape(), html.escape, bleach.clean, DOMPurify.sanitize
    "path-traversal",  # secure_filename, realpath/startswith checks, IsLocal
    "tls-verification-disabled",  # verify=True, delegating checkServerTrusted
    "csrf-protection-disabled",  # CsrfViewMiddleware, CSRFProtect, csurf
}
#: Languages a web service is written in, each with its file extensions: every language needs cases.
REQUIRED_LANGUAGES = {
    "Python": {".py"},
    "JavaScript/TypeScript": {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"},
    "Go": {".go"},
    "Java": {".java"},
    "YAML": {".yml", ".yaml"},
}
LANGUAGE_OF = {ext: name for name, exts in REQUIRED_LANGUAGES.items() for ext in exts}
#: Detect messages that describe credential *shapes*; the rest are generic assignments.
_GENERIC_CREDENTIAL_MESSAGES = {
    "Credential assigned from a string literal",
    "Password embedded in a connection URL",
    "Credential as the fallback value of a configuration lookup",
    # Its unless (hex digests, words) is what tells a key from a hash: judged in run_detect.
    "Bare 40-character secret key next to a credential name (AWS secret access key shape)",
}
_OWASP = re.compile(r"^A(0[1-9]|10):2021-[A-Z][A-Za-z ,-]+$")
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)

Location = tuple[str, int]  # ("+", head line) for added lines, ("-", anchor) for removed lines


def _rule(rule_id: str) -> Rule:
    return rules_by_id()[rule_id]


def _detect_side(rule: Rule) -> dict[str, str]:
    return {d.message: "-" if d.on == "removed" else "+" for d in rule.detect}


def _findings(rule: Rule, case: Case) -> list[Finding]:
    """What the plugin reports deterministically: detect runs only on files the rule's
    ``applies_to`` selects (excluded paths never become items)."""
    if not PathFilter(rule).selects(case.path):
        return []
    head = "\n".join(case.after.lines).encode()  # the file at head, as the review reads it
    return run_detect(rule, case.file_diff, head=lambda: head)


def _locations(rule: Rule, findings: Iterable[Finding]) -> set[Location]:
    side = _detect_side(rule)
    return {(side[f.title], f.line) for f in findings}


def _line_text(case: Case, location: Location) -> str:
    side, number = location
    lines = case.file_diff.added_lines if side == "+" else case.file_diff.removed_lines
    texts = [ln.text.strip() for ln in lines if ln.anchor == number]
    return " | ".join(texts) or "?"


def _describe(case: Case, locations: Iterable[Location]) -> str:
    return "\n".join(
        f"    {'added' if side == '+' else 'removed'} line {number}: "
        + _line_text(case, (side, number))
        for side, number in sorted(locations)
    )


def _compare(rule: Rule, case: Case) -> list[str]:
    """Problems between the findings of ``rule`` on ``case`` and the case's annotations."""
    actual = _locations(rule, _findings(rule, case))
    expected = case.expected_findings(rule.id)
    problems = []
    if missing := expected - actual:
        problems.append(
            f"{rule.id}: no finding on these 'ruleid' lines of {case.id}:\n"
            + _describe(case, missing)
        )
    if unexpected := actual - expected:
        flagged_ok = unexpected & case.safe_locations(rule.id)
        what = "'ok' lines" if flagged_ok == unexpected else "unannotated or 'ok' lines"
        problems.append(
            f"{rule.id}: findings on {what} of {case.id} (annotate them 'ruleid: {rule.id}' "
            "if they are real):\n" + _describe(case, unexpected)
        )
    return problems


def _target(rule: Rule, case: Case) -> Target | None:
    return match_file(rule, case.file_diff)


def _hunk_holds(hunk: Hunk, location: Location) -> bool:
    side, number = location
    lines = hunk.added if side == "+" else hunk.removed
    return any(line.anchor == number for line in lines)


def _removals_only(file: FileDiff) -> FileDiff:
    """``file`` with every added line dropped: what the matcher sees of the deletions alone."""
    hunks = tuple(
        Hunk(h.old_start, h.old_count, h.new_start, h.new_count, h.header, (), h.removed,
             h.text)
        for h in file.hunks if h.removed
    )
    return replace(file, hunks=hunks)


# --------------------------------------------------------------------------------------
# (a) every rule parses, with the metadata every report carries


@pytest.mark.parametrize("path", RULE_FILES, ids=RULE_IDS)
def test_rule_parses_with_complete_metadata(path: Path) -> None:
    rule = parse_rule(path.read_bytes(), f"rules/{path.name}")
    assert rule.id == path.stem, "the file must be named <id>.md"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id), "ids are lowercase-hyphenated"
    assert len(rule.title) >= 10 and len(rule.description) >= 40
    assert rule.category, "category is carried into every finding"
    assert rule.cwe and re.fullmatch(r"CWE-\d+", rule.cwe)
    assert rule.owasp and _OWASP.match(rule.owasp), (
        f"owasp {rule.owasp!r} is not like A03:2021-Injection"
    )
    assert rule.documentation_link and rule.documentation_link.startswith("https://")
    assert isinstance(rule.severity, Severity)
    assert rule.instructions or rule.detect, "a rule needs reviewer instructions or detect patterns"
    assert rule.comment_template, "every rule has a '## GitHub Comment' template"
    assert rule.grep_any or rule.grep_all or rule.grep_removed or rule.paths or rule.coverage, (
        "a rule without grep or paths would create an item for every changed file"
    )
    messages = [d.message for d in rule.detect]
    assert len(messages) == len(set(messages)), "detect messages must be unique within a rule"
    for detect in rule.detect:
        assert detect.recommendation, f"detect {detect.message!r} needs a recommendation"
        assert detect.severity.rank <= rule.severity.rank, (
            f"detect {detect.message!r} claims more than a confirmed violation of the rule"
        )


@pytest.mark.parametrize("path", RULE_FILES, ids=RULE_IDS)
def test_reviewer_instructions_have_the_expected_sections(path: Path) -> None:
    rule = parse_rule(path.read_bytes(), f"rules/{path.name}")
    if not rule.needs_model:
        assert rule.detect, "a deterministic-only rule must have detect patterns"
        return
    headings = {h.lower() for h in _HEADING.findall(rule.instructions)}
    assert "do not report" in headings, "say what NOT to report (pre-existing, test-only code)"
    assert "report" in headings, "say how to report: severity, exploit scenario, concrete fix"
    assert headings & {"how to review", "what to review"}, "say how to trace source to sink"
    body = rule.instructions.lower()
    for tool in ("read_file", "search_files"):
        assert tool in body, f"the instructions should tell the reviewer to use {tool}"
    assert "exploit" in body or "attack" in body or "payload" in body


#: Fields a ``## GitHub Comment`` template may reference, as ``{name}`` (those of a Finding).
COMMENT_FIELDS = {
    "path", "line", "title", "explanation", "recommendation", "severity", "rule", "cwe",
}


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_comment_template_renders_with_finding_fields(rule_id: str) -> None:
    template = _rule(rule_id).comment_template or ""
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    assert fields <= COMMENT_FIELDS, f"unknown placeholders {fields - COMMENT_FIELDS}"
    assert {"path", "line"} <= fields, "the comment should say where"
    rendered = template.format(**{name: f"<{name}>" for name in COMMENT_FIELDS})
    assert "<path>" in rendered and "{" not in rendered


def test_pack_size_and_unique_ids() -> None:
    rules = [parse_rule(p.read_bytes(), f"rules/{p.name}") for p in RULE_FILES]
    ids = [rule.id for rule in rules]
    assert len(ids) == len(set(ids)), "rule ids must be unique"
    assert len(rules) >= MIN_RULES, f"the pack has {len(rules)} rules, expected >= {MIN_RULES}"
    assert any(not r.needs_model for r in rules), "some rule should be deterministic-only"
    assert sum(r.severity is Severity.CRITICAL for r in rules) >= 3


def test_a_broken_rule_names_file_and_key() -> None:
    # the pack is parsed by the same code that rejects unknown keys
    raw = RULE_FILES[0].read_bytes().replace(b"\ntitle:", b"\ntitel: x\ntitle:", 1)
    with pytest.raises(RuleError, match=r"rules/broken\.md.*titel"):
        parse_rule(raw, "rules/broken.md")


def test_pack_covers_removed_safeguards() -> None:
    rules = load_rules()
    with_removed_grep = {r.id for r in rules if r.grep_removed}
    with_removed_detect = {r.id for r in rules if any(d.on == "removed" for d in r.detect)}
    assert len(with_removed_grep) >= 10, sorted(with_removed_grep)
    missing = REMOVED_SAFEGUARD_RULES - with_removed_detect
    assert not missing, f"these rules need an `on: removed` detect: {sorted(missing)}"
    for rule in rules:
        if any(d.on == "removed" for d in rule.detect):
            assert rule.grep_removed, f"{rule.id}: an `on: removed` detect needs grep.removed"


# --------------------------------------------------------------------------------------
# (d) every rule has cases; case directories and annotations name real rules


def test_every_rule_has_a_case_directory() -> None:
    with_cases = {case.rule_dir for case in CASES}
    missing = sorted(set(SPECIFIC_IDS) - with_cases)
    assert not missing, f"rules without cases in {CASES_DIR.relative_to(ROOT)}: {missing}"


def test_case_directories_and_annotations_name_rules() -> None:
    known = set(RULE_IDS)
    dirs = {p.name for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert not dirs - known - {BENIGN_DIR}, f"case directories for unknown rules: {dirs - known}"
    unknown = {(case.id, rid) for case in CASES for rid in case.annotated_rules() - known}
    assert not unknown, f"annotations naming unknown rules: {sorted(unknown)}"


# --------------------------------------------------------------------------------------
# (b) detect findings land exactly on the `ruleid` lines, never on `ok` lines


@pytest.mark.parametrize("case", OWN_CASES, ids=[c.id for c in OWN_CASES])
def test_detect_findings_match_annotations(case: Case) -> None:
    rule = _rule(case.rule_dir)
    problems = _compare(rule, case)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_other_rules_find_only_what_is_annotated(case: Case) -> None:
    others = [rule for rule in load_rules() if rule.id != case.rule_dir]
    problems = [p for rule in others for p in _compare(rule, case)]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------------------
# (c) the matcher creates an item for every vulnerable case and every finding


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matcher_selects_annotated_hunks(case: Case) -> None:
    for rule in load_rules():
        target = _target(rule, case)
        if case.forbids_item(rule.id):
            assert target is None, (
                f"{rule.id} creates an item for {case.id}, which must create none "
                "(a 'noitem' annotation, or an ordinary change under _benign/): "
                f"{[h.header for h in target.hunks] if target else ''}"
            )
            continue
        wanted = case.match_locations(rule.id)
        if not wanted:
            continue
        assert target is not None, f"{rule.id} creates no item for {case.id}"
        unselected = {loc for loc in wanted if not any(_hunk_holds(h, loc) for h in target.hunks)}
        assert not unselected, (
            f"{rule.id}: annotated lines of {case.id} are in hunks the matcher did not select:\n"
            + _describe(case, unselected)
        )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_finding_comes_with_an_item(case: Case) -> None:
    # A detect pattern that the grep misses would produce a finding that is never reported.
    for rule in load_rules():
        findings = _findings(rule, case)
        if not findings:
            continue
        target = _target(rule, case)
        assert target is not None, f"{rule.id} finds {len(findings)} issue(s) but creates no item"
        orphans = {
            loc for loc in _locations(rule, findings)
            if not any(_hunk_holds(h, loc) for h in target.hunks)
        }
        assert not orphans, f"{rule.id}: findings outside the selected hunks:\n" + _describe(
            case, orphans
        )


@pytest.mark.parametrize("case", PAIRS, ids=[c.id for c in PAIRS])
def test_removed_safeguard_alone_creates_the_item(case: Case) -> None:
    removals = _removals_only(case.file_diff)
    before = case.before
    assert before is not None
    rules = sorted({a.rule_id for a in before.annotations if a.kind in ("ruleid", "match")})
    for rule_id in rules:
        rule = _rule(rule_id)
        assert rule.grep_removed, f"{rule_id}: a removal case needs grep.removed"
        target = match_file(rule, removals)
        assert target is not None, f"{rule_id}: deleting the safeguard alone creates no item"
        wanted = {loc for loc in case.match_locations(rule_id) if loc[0] == "-"}
        assert all(any(_hunk_holds(h, loc) for h in target.hunks) for loc in wanted)


@pytest.mark.parametrize("rule_id", SPECIFIC_IDS)
def test_rule_has_vulnerable_and_safe_cases(rule_id: str) -> None:
    rule = _rule(rule_id)
    own = [case for case in CASES if case.rule_dir == rule_id]
    vulnerable = [case.id for case in own if case.is_vulnerable_for(rule_id)]
    safe = [
        case.id for case in own
        if not case.is_vulnerable_for(rule_id) and not _findings(rule, case)
    ]
    assert vulnerable, f"{rule_id}: add a case with 'ruleid:' or 'match:' annotations"
    assert safe, f"{rule_id}: add a safe case file that produces no finding"
    if rule.grep_removed:
        removal = [
            case.id for case in own
            if case.before is not None
            and any(side == "-" for side, _ in case.match_locations(rule_id))
        ]
        assert removal, f"{rule_id}: add a .before/.after case that deletes a safeguard"


@pytest.mark.parametrize("rule_id", SPECIFIC_IDS)
def test_every_detect_pattern_is_exercised(rule_id: str) -> None:
    rule = _rule(rule_id)
    fired: set[str] = set()
    for case in CASES:
        expected = case.expected_findings(rule_id)
        side = _detect_side(rule)
        fired |= {f.title for f in _findings(rule, case) if (side[f.title], f.line) in expected}
    unexercised = [d.message for d in rule.detect if d.message not in fired]
    assert not unexercised, f"{rule_id}: no 'ruleid' case for detect patterns {unexercised}"


# --------------------------------------------------------------------------------------
# (e) languages


def test_cases_cover_the_languages_of_a_web_service() -> None:
    suffixes = {case.suffix for case in OWN_CASES}
    missing = [lang for lang, exts in REQUIRED_LANGUAGES.items() if not suffixes & exts]
    assert not missing, f"no case files in {missing}"


@pytest.mark.parametrize("rule_id", SPECIFIC_IDS)
def test_multi_language_rules_have_cases_in_several_languages(rule_id: str) -> None:
    rule = _rule(rule_id)
    applies = {LANGUAGE_OF[e] for e in rule.file_extensions if e in LANGUAGE_OF}
    covered = {
        LANGUAGE_OF[case.suffix] for case in CASES
        if case.rule_dir == rule_id
        and case.is_vulnerable_for(rule_id)
        and case.suffix in LANGUAGE_OF
    }
    code_languages = applies - {"YAML"}
    if len(code_languages) >= 3:
        assert len(covered & code_languages) >= 3, (
            f"{rule_id} applies to {sorted(code_languages)} but has vulnerable cases only in "
            f"{sorted(covered)}"
        )


# --------------------------------------------------------------------------------------
# secrets never appear literally


def _secret_shapes() -> list[tuple[str, SafePattern]]:
    shapes = []
    for rule_id in ("hardcoded-secrets", "private-key-committed"):
        for detect in _rule(rule_id).detect:
            if detect.message not in _GENERIC_CREDENTIAL_MESSAGES:
                shapes.append((f"{rule_id}: {detect.message}", detect.pattern))
    return shapes


def _repository_text_files() -> list[Path]:
    files = [*RULE_FILES, Path(__file__), Path(__file__).parent / "rulecases.py"]
    files += [p for p in CASES_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return files


def test_no_secret_is_written_literally_in_the_repository() -> None:
    shapes = _secret_shapes()
    assert len(shapes) >= 7
    hits = []
    for path in _repository_text_files():
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            hits += [f"{path.relative_to(ROOT)}:{number}: {name}" for name, p in shapes
                     if p.search(line)]
    assert not hits, "secret-shaped literals (use a {{PLACEHOLDER}}):\n" + "\n".join(hits)


def test_placeholders_are_real_shapes_and_all_used() -> None:
    shapes = _secret_shapes()
    for name in ("AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "GITHUB_PAT", "SLACK_TOKEN", "GCP_API_KEY",
                 "STRIPE_SECRET_KEY", "PRIVATE_KEY_BLOCK", "OPENSSH_PRIVATE_KEY_BLOCK"):
        value = PLACEHOLDERS[name]
        assert any(p.search(line) for _, p in shapes for line in value.splitlines()), name
    case_files = [p for p in _repository_text_files() if CASES_DIR in p.parents]
    raw = "\n".join(p.read_text("utf-8") for p in case_files)
    unused = sorted(name for name in PLACEHOLDERS if "{{" + name + "}}" not in raw)
    assert not unused, f"placeholders no case uses: {unused}"


def test_unknown_placeholder_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown placeholder"):
        substitute("key = '{{NO_SUCH_SECRET}}'")
    # GitHub Actions expressions are not placeholders
    assert substitute("${{ secrets.TOKEN }}") == "${{ secrets.TOKEN }}"


# --------------------------------------------------------------------------------------
# the case harness itself


def test_annotations_attach_to_the_next_code_line() -> None:
    text = parse_case_text(
        "a = 1\n# ruleid: sql-injection, xss\n  // ok: ssrf\nb = 2\n{/* match: xss */}\nc\n"
        "<!-- noitem: ssrf -->\n",
        "inline",
    )
    assert text.lines == ("a = 1", "b = 2", "c")
    assert text.lines_for("ruleid", "sql-injection") == {2}
    assert text.lines_for("ruleid", "xss") == {2}
    assert text.lines_for("ok", "ssrf") == {2}
    assert text.lines_for("match", "xss") == {3}
    assert [a.kind for a in text.annotations if a.rule_id == "ssrf"] == ["ok", "noitem"]
    with pytest.raises(ValueError, match="not followed by a code line"):
        parse_case_text("x\n# ruleid: xss\n", "dangling")


def test_modified_file_hunks_and_anchors() -> None:
    before = tuple(f"line {i}" for i in range(1, 21))
    after = list(before)
    del after[2]  # remove base line 3
    after[14] = "changed"  # base line 16 becomes head line 15
    del after[-1]  # remove base line 20 at the end of the file
    diff = modified_file("f.py", before, tuple(after))
    assert diff.kind is ChangeKind.MODIFIED
    assert [h.header for h in diff.hunks] == ["@@ -1,6 +1,5 @@", "@@ -13,8 +12,7 @@"]
    removed = {line.number: line.anchor for line in diff.removed_lines}
    assert removed == {3: 3, 16: 15, 20: 18}  # the next surviving head line, or the last one
    assert [(ln.number, ln.text) for ln in diff.added_lines] == [(15, "changed")]
    assert diff.hunks[0].text.splitlines()[3] == "-line 3"


def test_cases_agree_with_the_plugins_diff_parser() -> None:
    # The harness builds FileDiffs itself (difflib); the plugin parses `git diff`. Feeding the
    # harness's hunks back through the real parser must give the same lines and anchors, so the
    # line numbers asserted above are the ones users see.
    parser = pytest.importorskip("pytest_secreview.diff.parser")
    parse = getattr(parser, "parse_diff_text", None)
    if parse is None:
        pytest.skip("pytest_secreview.diff.parser has no parse_diff_text")
    for case in CASES:
        mine = case.file_diff
        (theirs,) = [f for f in parse(git_patch(mine)) if f.path == mine.path]
        assert theirs.kind is mine.kind, case.id
        assert [h.header for h in theirs.hunks] == [h.header for h in mine.hunks], case.id
        assert [(ln.number, ln.text, ln.anchor) for ln in theirs.added_lines] == [
            (ln.number, ln.text, ln.anchor) for ln in mine.added_lines
        ], case.id
        assert [(ln.number, ln.text, ln.anchor) for ln in theirs.removed_lines] == [
            (ln.number, ln.text, ln.anchor) for ln in mine.removed_lines
        ], case.id


def test_end_of_file_removal_is_anchored_inside_the_head_file() -> None:
    parser = pytest.importorskip("pytest_secreview.diff.parser")
    patch = (
        "diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n"
        "@@ -1,3 +1,2 @@\n a\n b\n-@login_required\n"
    )
    (file,) = parser.parse_diff_text(patch)
    (line,) = file.removed_lines
    assert line.anchor == 2  # the last head line, as tests/rulecases.py computes it


# --------------------------------------------------------------------------------------
# no model, no false comfort: request data on the line of a sink is CRITICAL by pattern

#: (rule, path, line): request data reaches the sink as written; the pack alone must fail it.
CRITICAL_WITHOUT_A_MODEL = [
    ("code-injection", "app.py", 'result = eval(request.args["expr"])'),
    ("code-injection", "app.py", "exec(request.form.get('code'))"),
    ("code-injection", "app.py", "value = eval(f\"{request.args['x']} + 1\")"),
    ("code-injection", "server.js", "const v = eval(req.query.expr);"),
    ("code-injection", "server.js", 'const f = new Function("a", req.body.src);'),
    ("command-injection", "app.py", 'os.system("ping -c1 " + request.args["host"])'),
    ("command-injection", "app.py", "os.popen(request.args['cmd'])"),
    ("command-injection", "app.py",
     "subprocess.run(f\"ping {request.args['host']}\", shell=True)"),
    ("command-injection", "worker.js", "exec(`git log ${req.query.ref}`, cb);"),
    ("unsafe-deserialization", "app.py", "obj = pickle.loads(request.data)"),
    ("unsafe-deserialization", "app.py", "obj = pickle.loads(base64.b64decode(request.data))"),
    ("unsafe-deserialization", "app.py", "cfg = yaml.load(request.data)"),
    ("unsafe-deserialization", "app.py", "cfg = yaml.load(request.data, Loader=yaml.Loader)"),
    ("unsafe-deserialization", "app.py", "cfg = yaml.unsafe_load(request.get_data())"),
    ("sql-injection", "app.py", "cur.execute(f\"SELECT * FROM t WHERE id={request.args['id']}\")"),
    ("sql-injection", "app.py", 'cur.execute("SELECT * FROM t WHERE id = " + request.args["id"])'),
    ("sql-injection", "repo.js", "pool.query(`SELECT * FROM t WHERE id = ${req.query.id}`);"),
]
#: Lines a single-line pattern cannot decide (or that are safe): never CRITICAL by pattern.
NOT_CRITICAL_BY_PATTERN = [
    ("app.py", "value = eval(expression)"),
    ("app.py", "value = eval(build_expression(request.args))"),
    ("app.py", 'os.system("ls " + shlex.quote(request.args["d"]))'),
    ("app.py", 'subprocess.run(["ping", "-c1", "--", request.args["host"]], check=True)'),
    ("app.py", "obj = pickle.loads(blob)"),
    ("app.py", "cfg = yaml.load(request.data, Loader=yaml.SafeLoader)"),
    ("app.py", "cfg = yaml.safe_load(request.data)"),
    ("app.py", 'cur.execute("SELECT * FROM t WHERE id = %s", (request.args["id"],))'),
    ("app.py", "settings = ast.literal_eval(request.args['s'])"),
    ("worker.js", 'execFile("git", ["log", "--", req.query.ref], cb);'),
    ("server.js", "const p = JSON.parse(req.body.payload);"),
]


def _pack_findings(path: str, line: str) -> list[Finding]:
    file = added_file(path, (line,))
    return [f for rule in load_rules() if PathFilter(rule).selects(path)
            for f in run_detect(rule, file)]


@pytest.mark.parametrize(("rule_id", "path", "line"), CRITICAL_WITHOUT_A_MODEL)
def test_request_data_reaching_a_sink_is_critical_without_a_model(
    rule_id: str, path: str, line: str
) -> None:
    found = [f for f in _pack_findings(path, line) if f.rule == rule_id]
    assert any(f.severity is Severity.CRITICAL for f in found), (
        f"{rule_id} reports {[(f.severity.value, f.title) for f in found]} on {line!r}"
    )


@pytest.mark.parametrize(("path", "line"), NOT_CRITICAL_BY_PATTERN)
def test_lines_a_pattern_cannot_decide_are_not_critical(path: str, line: str) -> None:
    critical = [f.title for f in _pack_findings(path, line) if f.severity is Severity.CRITICAL]
    assert not critical, f"{line!r} is CRITICAL by pattern: {critical}"
