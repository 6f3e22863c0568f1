"""The model path as a scripted model sees it: what its tools say when they hide or cut
something, the line numbers of the hunks it is shown, and the checks on what it reports.

A real HTTP server on 127.0.0.1 plays the model (Anthropic Messages wire format), and the
tools run on a real temporary git repository; each test reads the tool results and prompts
the review actually sent back to the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_secreview.agent.prompt import system_prompt
from pytest_secreview.diff.git import load_diff
from pytest_secreview.evaluation.review import ModelReviewer, share_rules
from pytest_secreview.llm.base import ChatModel, LLMSettings
from pytest_secreview.llm.routing import resolve_model
from pytest_secreview.rules.matcher import PreparedDiff
from pytest_secreview.rules.parse import parse_rule
from pytest_secreview.tools import ToolLimits, build_registry
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Reply,
    anthropic_message,
    anthropic_tool_use,
    fast_retry,
)
from tests.gitutil import GitRepo

RULE = b"""---
title: Command injection
severity: high
cwe: CWE-78
grep:
  any: ["subprocess"]
---
Trace request parameters into shell commands.
"""


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("src/auth/login.py", "def login(user):\n    return user\n")
    repo.write("src/api/views.py", "def view(request):\n    return request\n")
    repo.write("src/other/misc.py", "def misc():\n    return 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/auth/login.py", "import subprocess\n\ndef login(user):\n"
                                    "    subprocess.run('id ' + user, shell=True)\n"
                                    "    return user\n")
    repo.write("src/api/views.py", "def view(request):\n    return request.args\n")
    repo.write("config/deploy.pem", "not a real key, but named like one\n")
    repo.write(".aws/credentials", "[default]\nnote = stand-in\n")
    repo.write(".aws/config", "[default]\nregion = eu-west-1\n")
    repo.commit("login runs a command")
    return repo


def _model(server: FakeServer) -> ChatModel:
    retry, _sleep = fast_retry()
    env = {"ANTHROPIC_API_KEY": "test-anthropic-key"}
    return resolve_model("anthropic:claude-sonnet-4-5", LLMSettings(api_base=server.url), env,
                         retry=retry)


def _review(repo: GitRepo, server: FakeServer, path: str = "src/auth/login.py",
            **kw: Any) -> Any:
    """The review of the rule's item for ``path``."""
    diff = load_diff(repo.path, "main", "HEAD")
    rule = parse_rule(RULE, "rules/cmdi.md")
    (target,) = [t for t in PreparedDiff(diff.files).targets(rule) if t.file.path == path]
    return ModelReviewer(repo=repo.path, diff=diff, model=_model(server), **kw)(target, ())


def _task(server: FakeServer) -> str:
    """The first user message of the review."""
    content = server.requests[0].json["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def _calls(*calls: tuple[str, dict[str, Any]]) -> Reply:
    return Reply(json=anthropic_message(
        [anthropic_tool_use(f"t{i}", name, args) for i, (name, args) in enumerate(calls)],
        "tool_use"))


def _report(findings: list[dict[str, Any]]) -> Reply:
    return Reply(json=anthropic_message(
        [anthropic_tool_use("done", "report_findings", {"findings": findings})], "tool_use"))


def _tool_results(server: FakeServer, request: int) -> list[str]:
    """The tool results the review sent back in request number ``request``."""
    last = server.requests[request].json["messages"][-1]
    texts = []
    for block in last["content"]:
        content = block.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        # Drop the untrusted-data markers around the result.
        texts.append("\n".join(line for line in str(content).splitlines()
                               if "UNTRUSTED " not in line))
    return texts


# -- item 4: tools that never hide silently -------------------------------------------------

def test_brace_globs_list_and_search_the_files_they_name(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    server = fake_servers.start().queue(
        _calls(("list_files", {"pattern": "src/{auth,api}/*.py"}),
               ("search_files", {"pattern": "return", "glob": "*/{auth,other}/*.py"})),
        _report([]),
    )
    _review(repo, server)
    listing, search = _tool_results(server, 1)
    assert listing.splitlines() == [
        "2 tracked files match 'src/{auth,api}/*.py':", "src/api/views.py", "src/auth/login.py"]
    assert "src/auth/login.py:5:     return user" in search
    assert "src/other/misc.py:2:     return 1" in search
    assert "matching lines in 2 files" in search and "searched 2 of 2 files" in search


def test_what_the_gate_withholds_is_named_with_the_reason(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    server = fake_servers.start().queue(
        _calls(("search_files", {"pattern": "default|key"}),
               ("list_files", {"pattern": "*"})),
        _report([]),
    )
    _review(repo, server)
    for text in _tool_results(server, 1):
        assert "3 matching paths withheld by the security gate (secret-bearing files" in text
        assert "  config/deploy.pem: private key or keystore" in text
        # A directory withheld as a whole is named once, with its file count and why.
        assert "  .aws/ (2 files): AWS credentials and configuration" in text
        assert "stand-in" not in text and "eu-west-1" not in text


def test_git_diff_takes_paths(fake_servers: FakeServers, repo: GitRepo) -> None:
    server = fake_servers.start().queue(
        _calls(("git_diff", {"paths": ["src/api"]}),
               ("git_diff", {"paths": [".aws/credentials"]})),
        _report([]),
    )
    _review(repo, server)
    one, denied = _tool_results(server, 1)
    assert "1 files changed, limited to 1 paths" in one
    assert "+    return request.args" in one and "login.py" not in one
    assert "denied by the security gate: AWS credentials" in denied


def test_every_cut_of_git_diff_says_how_to_read_the_rest(repo: GitRepo) -> None:
    repo.write("src/big.py", "".join(f"value_{n} = {n}\n" for n in range(400)))
    repo.commit("big")
    head = repo.git("rev-parse", "HEAD").strip()
    base = repo.git("rev-parse", "main").strip()
    registry = build_registry(repo.path, base_sha=base, head_sha=head,
                              limits=ToolLimits(max_output_chars=5000))
    text = registry.call("git_diff", {}).text
    assert len(text) <= 5000
    # The big file's diff is cut inside: the note names the head line to read on from, and
    # the files after it with the exact call that shows them.
    cut = text[text.index("[... cut to fit the 5,000-character result limit"):]
    line = int(cut.split("cut after its new line ", 1)[1].split(":", 1)[0])
    assert f'read_file(path="src/big.py", offset={line + 1})' in cut
    # Line N of the file is "value_{N-1}": the last line shown is the one the note names.
    assert f"+value_{line - 1} = {line - 1}\n" in text and f"value_{line} = " not in text
    assert 'git_diff(paths=["src/other/misc.py"])' not in cut  # unchanged files are not named
    assert "src/auth/login.py" in text.split("[... cut", 1)[0]
    rest = registry.call("git_diff", {"paths": ["src/big.py"]}).text
    assert "diff --git a/src/big.py b/src/big.py" in rest


def test_git_diff_cut_names_every_file_not_shown(repo: GitRepo) -> None:
    repo.write("src/aaa.py", "".join(f"first_{n} = {n}\n" for n in range(150)))
    repo.write("src/zzz1.py", "one = 1\n")
    repo.write("src/zzz2.py", "two = 2\n")
    repo.commit("more")
    head = repo.git("rev-parse", "HEAD").strip()
    base = repo.git("rev-parse", "main").strip()
    registry = build_registry(repo.path, base_sha=base, head_sha=head,
                              limits=ToolLimits(max_output_chars=5000))
    text = registry.call("git_diff", {}).text
    assert '"src/auth/login.py", "src/zzz1.py", "src/zzz2.py"])' in text


def test_limits_a_model_can_hit_are_in_the_tool_descriptions(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    server = fake_servers.start().queue(_report([]))
    _review(repo, server)
    tools = {tool["name"]: tool["description"] for tool in server.requests[0].json["tools"]}
    assert "title at most 200 characters" in tools["report_findings"]
    assert "at most 200 lines and 50,000 characters" in tools["search_files"]
    assert "lines cut at 300 characters" in tools["search_files"]
    assert "paths at most 50 items" in tools["git_diff"]
    assert "50,000 characters per result" in tools["read_file"]


def test_triage_findings_states_its_reason_limit() -> None:
    from pytest_secreview.triage.verify import TRIAGE_FINDINGS

    assert "verdicts[].reason at most 500 characters" in TRIAGE_FINDINGS.description


def test_search_files_fits_its_matches_in_the_result_and_says_where_it_stopped(
    repo: GitRepo
) -> None:
    repo.write("src/long.py", "".join(f"token_{n} = '{'x' * 200}'\n" for n in range(100)))
    repo.commit("long")
    head = repo.git("rev-parse", "HEAD").strip()
    registry = build_registry(repo.path, base_sha=head, head_sha=head,
                              limits=ToolLimits(max_output_chars=6000))
    text = registry.call("search_files", {"pattern": "token_"}).text
    assert "[... truncated" not in text  # the registry's blind cut is never reached
    assert "stopped early at the output limit, in 'src/long.py'" in text
    assert 'search that file alone (path="src/long.py")' in text


def test_verifier_prompt_says_how_to_read_the_rest_of_a_cut_file() -> None:
    from pytest_secreview.triage.verifier import numbered

    text = numbered("".join(f"line {n}\n" for n in range(1, 201)), 300, path="app/big.py")
    assert 'read_file(path="app/big.py", offset=' in text
    shown = [row for row in text.splitlines() if " | " in row]
    assert text.endswith(f'offset={len(shown) + 1})]')


# -- item 5: line numbers ------------------------------------------------------------------

FINDING = {
    "severity": "HIGH", "title": "User name reaches a shell command",
    "path": "src/auth/login.py", "explanation": "user is concatenated into a shell command.",
    "recommendation": "Pass an argument list without shell=True.",
}


def test_every_hunk_line_carries_its_head_line_number(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    repo.write("src/tasks.py", "".join(f"step_{n} = {n}\n" for n in range(1, 12))
               + "import subprocess\nsubprocess.call(cmd)\n")
    repo.commit("tasks")
    server = fake_servers.start().queue(_report([]))
    _review(repo, server, path="src/tasks.py")
    task = _task(server)
    # An added file is one hunk under one @@ header: each line says which line it is.
    assert "@@ -0,0 +1,13 @@\n+ 1\tstep_1 = 1\n+ 2\tstep_2 = 2\n" in task
    assert "+12\timport subprocess\n+13\tsubprocess.call(cmd)" in task


def test_a_modified_file_numbers_context_and_added_lines_not_removed_ones(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    repo.write("src/auth/login.py", "import subprocess\n\ndef login(user):\n"
                                    "    subprocess.run('id ' + user, shell=True)\n")
    repo.commit("no return")
    server = fake_servers.start().queue(_report([]))
    _review(repo, server)
    task = _task(server)
    assert "+1\timport subprocess\n+2\t\n 3\tdef login(user):\n" in task
    assert "\n- \t    return user\n" in task  # no head number, padded to the numbers' width
    assert "+4\t    subprocess.run('id ' + user, shell=True)\n" in task


def test_a_reported_line_is_corrected_to_the_cited_code(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    cited = {**FINDING, "line": 2, "end_line": 3,
             "code": "  subprocess.run('id ' + user,   shell=True)"}
    server = fake_servers.start().queue(_report([cited]))
    output = _review(repo, server)
    (finding,) = output.findings
    assert (finding.line, finding.end_line) == (4, 5)
    assert "[Line check" not in finding.explanation
    assert any(e.get("event") == "line_check" and "line corrected to 4" in e["detail"]
               for e in output.transcript)


def test_a_reported_line_that_disagrees_with_its_code_is_flagged(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    cited = {**FINDING, "line": 4, "code": "os.system(user)"}
    server = fake_servers.start().queue(_report([cited, {**FINDING, "line": 4}]))
    output = _review(repo, server)
    flagged, uncited = output.findings
    assert flagged.line == 4
    assert flagged.explanation.endswith(
        "[Line check: the cited code was not found at line 4 or within 30 lines of it; the "
        "line may be wrong.]")
    assert uncited.explanation == FINDING["explanation"]  # nothing cited, nothing to check


# -- item 6: an item knows the rest of the pull request --------------------------------------

SHELL_PATTERN = b"""---
title: Shell enabled on a subprocess call
severity: medium
detect:
  - pattern: "shell=True"
    message: a shell parses the command
---
"""


def test_the_first_message_lists_the_other_files_and_other_rules_findings(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    server = fake_servers.start().queue(_report([]))
    diff = load_diff(repo.path, "main", "HEAD")
    rule = parse_rule(RULE, "rules/cmdi.md")
    (target,) = PreparedDiff(diff.files).targets(rule)
    reviewer = ModelReviewer(repo=repo.path, diff=diff, model=_model(server))
    share_rules([reviewer], [rule, parse_rule(SHELL_PATTERN, "rules/shell.md")])
    reviewer(target, ())
    task = _task(server)
    files = task.split("The pull request also changes these 1 files", 1)[1].split("UNTRUSTED")[1]
    assert "- src/api/views.py (modified, +1 -1)\n" in files
    # Secret-bearing files are counted, not named (as in a batch, the gate withholds them).
    assert "also changes 3 secret-bearing files (keys, .env, credentials)" in task
    assert ".aws" not in task and "deploy.pem" not in task
    assert "- src/auth/login.py" not in files  # the item's own file is not "other"
    known = task.split("Findings other rules' patterns already made on these files", 1)[1]
    assert ("- src/auth/login.py:4 MEDIUM [shell] a shell parses the command"
            in known.split("UNTRUSTED", 2)[1])


def test_a_long_list_of_other_files_is_capped_with_a_count(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    for n in range(45):
        repo.write(f"pkg/mod_{n:02d}.py", "a = 1\nb = 2\n")
    repo.commit("many")
    server = fake_servers.start().queue(_report([]))
    _review(repo, server)
    task = _task(server)
    assert "The pull request also changes these 46 files" in task
    assert "- pkg/mod_39.py (added, +2 -0)" in task and "pkg/mod_40.py" not in task
    assert ("- and 6 more files (+11 -1 lines in all): call git_diff with their paths, or "
            "list_files") in task


# -- item 1: every hunk gets the general look, once ------------------------------------------

GENERAL = b"""---
title: General security review of the change
severity: HIGH
category: security-review
coverage:
  lines_per_item: 400
---
Read every hunk; a deleted check is a change to judge.
"""


def test_a_rule_item_takes_the_general_look_and_reports_any_category(
    fake_servers: FakeServers, repo: GitRepo
) -> None:
    other = {**FINDING, "severity": "MEDIUM", "title": "Login does not rate-limit attempts",
             "line": 3, "category": "authentication", "cwe": "CWE-307"}
    server = fake_servers.start().queue(_report([other]))
    diff = load_diff(repo.path, "main", "HEAD")
    rule = parse_rule(RULE, "rules/cmdi.md")
    (target,) = PreparedDiff(diff.files).targets(rule)
    reviewer = ModelReviewer(repo=repo.path, diff=diff, model=_model(server))
    share_rules([reviewer], [rule, parse_rule(GENERAL, "rules/security-review.md")])
    output = reviewer(target, ())
    system = server.requests[0].json["system"]
    system = system if isinstance(system, str) else "".join(b["text"] for b in system)
    assert system.index("Trace request parameters into shell commands.") < system.index(
        "# Beyond this rule: the general security look")
    assert "Read every hunk; a deleted check is a change to judge." in system
    (finding,) = output.findings
    assert (finding.rule, finding.category, finding.cwe) == ("cmdi", "authentication", "CWE-307")


def test_the_general_rule_items_do_not_get_its_method_twice(repo: GitRepo) -> None:
    general = parse_rule(GENERAL, "rules/security-review.md")
    diff = load_diff(repo.path, "main", "HEAD")
    (target,) = PreparedDiff(diff.files).targets(parse_rule(RULE, "rules/cmdi.md"))
    own = system_prompt(replace(target, rule=general), "b" * 24, general=general)
    assert "Beyond this rule" not in own


# -- hostile arguments to the new parameters -------------------------------------------------

@pytest.mark.parametrize(("paths", "expected"), [
    pytest.param([":(exclude)src/auth/login.py"], "(no changes)", id="magic-pathspec-is-a-name"),
    pytest.param(["--output=/tmp/x"], "(no changes)", id="option-like-path-is-a-name"),
    pytest.param(["src/*"], "(no changes)", id="wildcard-is-a-name"),
    pytest.param([".aws/config"], "denied by the security gate", id="denied-path"),
    pytest.param(["../outside"], "refused path", id="dotdot"),
])
def test_git_diff_paths_are_literal_and_checked(repo: GitRepo, paths: list[str],
                                                expected: str) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    base = repo.git("rev-parse", "main").strip()
    text = build_registry(repo.path, base_sha=base, head_sha=head).call(
        "git_diff", {"paths": paths}).text
    assert expected in text
    assert "stand-in" not in text and "eu-west-1" not in text


def test_a_brace_glob_with_too_many_alternatives_is_refused_with_the_fix(repo: GitRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    result = build_registry(repo.path, base_sha=head, head_sha=head).call(
        "list_files", {"pattern": "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}.py"})
    assert result.is_error
    assert "expands to more than 64 alternatives; use fewer braces" in result.text
