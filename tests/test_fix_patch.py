"""Fix mode's checks on what a model sends (untrusted) and on what git makes of it, in real
temporary repositories: the patch text rules, the temporary index, the deterministic re-check
(a model's own finding, a patch that adds a finding) and the suggestion's fit."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_secreview.core.findings import Finding
from pytest_secreview.core.severity import Severity
from pytest_secreview.fix.apply import PatchRejected, apply_to_head, combine
from pytest_secreview.fix.recheck import Rechecker, checkable
from pytest_secreview.fix.run import suggestion_for
from pytest_secreview.fix.tool import MAX_PATCH_CHARS, clean_patch, parse_arguments
from pytest_secreview.rules.parse import parse_rule
from tests.gitutil import GitRepo

ALLOWED = {"app/calc.py", "app/views.py"}


def _patch(path: str = "app/calc.py", old: str = "a/", new: str = "b/") -> str:
    return (f"diff --git a/{path} b/{path}\n--- {old}{path}\n+++ {new}{path}\n"
            "@@ -1,2 +1,2 @@\n def compute(expr):\n-    return eval(expr)\n+    return int(expr)\n")


def test_a_plain_edit_of_a_changed_file_is_accepted_and_a_code_fence_removed() -> None:
    text, paths = clean_patch("```diff\n" + _patch() + "```", ALLOWED)
    assert paths == ("app/calc.py",)
    assert text == _patch()


_DELETE = ("diff --git a/app/calc.py b/app/calc.py\n--- a/app/calc.py\n+++ /dev/null\n"
           "@@ -1,2 +0,0 @@\n-def compute(expr):\n-    return eval(expr)\n")


@pytest.mark.parametrize(("patch", "why"), [
    (_patch("../etc/passwd"), "not a plain repository-relative path"),
    (_patch("app/../app/calc.py"), "not a plain repository-relative path"),
    (_patch("etc/passwd"), "not a file this pull request changes"),
    (_patch(".git/config"), "not a plain repository-relative path"),
    (_DELETE, "may not create or delete files"),
    (_patch(new="c/"), "must start with 'b/'"),
    (_patch().replace("--- a/app/calc.py\n", "new file mode 100644\n--- a/app/calc.py\n"),
     "may only edit the text of existing files"),
    (_patch().replace("--- a/app/calc.py\n", "old mode 100644\nnew mode 100755\n"
                      "--- a/app/calc.py\n"), "may only edit the text of existing files"),
    ("diff --git a/app/calc.py b/app/calc.py\nGIT binary patch\nliteral 3\nxyz\n",
     "may only edit the text of existing files"),
    ("diff --git a/app/calc.py b/app/views.py\n", "same path twice"),
    (_patch().replace("int(expr)", "int(expr)\x00"), "control characters or binary data"),
    ("Here is the fix:\n" + _patch(), "not part of a unified diff"),
    ("diff --git a/app/calc.py b/app/calc.py\n--- a/app/calc.py\n+++ b/app/calc.py\n",
     "no '@@' hunk"),
    ("@@ -1 +1 @@\n-x\n+y\n", "a hunk before"),
    ("diff --git a/app/calc.py b/app/calc.py\n--- a/app/calc.py\n+++ b/app/calc.py\n"
     "@@ -1,400 +1,400 @@\n" + "-x\n+y\n" * 200, "changes at most"),
], ids=["traversal", "dot-dot-inside", "not-in-pr", "git-dir", "delete", "bad-prefix",
        "new-file", "mode-change", "binary", "rename", "nul", "prose", "no-hunk",
        "hunk-first", "too-many-lines"])
def test_a_patch_beyond_an_in_place_edit_of_the_pr_files_is_refused(patch: str,
                                                                      why: str) -> None:
    with pytest.raises(ValueError, match=why):
        clean_patch(patch, ALLOWED)


def test_a_gate_denied_file_of_the_pr_is_refused_even_when_changed() -> None:
    with pytest.raises(ValueError, match=r"may not be edited"):
        clean_patch(_patch(".env"), {".env"})


def test_the_patch_text_is_capped() -> None:
    with pytest.raises(ValueError, match="propose_patch arguments are invalid"):
        parse_arguments({"patch": "x" * (MAX_PATCH_CHARS + 1), "explanation": "too big"})
    with pytest.raises(ValueError, match="propose_patch arguments are invalid"):
        parse_arguments({"patch": _patch(), "explanation": "ok", "commit": True})


RULE = textwrap.dedent(r"""
    ---
    id: eval
    title: Evaluated input
    severity: critical
    detect:
      - pattern: "\\beval\\("
        message: eval() of a value
      - pattern: "\\bpickle\\.loads\\("
        message: pickle of a value
    ---
    """).lstrip()


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    git = GitRepo(tmp_path / "repo")
    git.write("README.md", "x\n")
    git.commit("base")
    git.git("checkout", "-q", "-b", "pr")
    git.write("app/calc.py", "def compute(expr):\n    return eval(expr)\n")
    git.commit("pr")
    return git


def _rechecker(repo: GitRepo) -> Rechecker:
    base = repo.git("rev-parse", "main").strip()
    head = repo.git("rev-parse", "HEAD").strip()
    return Rechecker(repo.path, base, head, [parse_rule(RULE.encode(), "eval.md")],
                     Severity.HIGH)


def _finding(repo: GitRepo, source: str = "pattern") -> Finding:
    rechecker = _rechecker(repo)
    (found,) = rechecker.head_findings(["app/calc.py"])
    return found if source == "pattern" else Finding(
        rule="eval", severity=Severity.CRITICAL, title="Unsafe parse", path="app/calc.py",
        line=2, source=source)


def test_git_refuses_a_patch_whose_context_is_not_the_head_revision(repo: GitRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    stale = _patch().replace(" def compute(expr):", " def calculate(x):")
    with pytest.raises(PatchRejected, match=r"patch failed|does not apply"):
        apply_to_head(repo.path, head, stale, ("app/calc.py",))
    assert repo.git("status", "--porcelain") == ""


def test_a_patch_that_adds_another_finding_is_reported(repo: GitRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    swap = _patch().replace("+    return int(expr)", "+    return pickle.loads(expr)")
    applied = apply_to_head(repo.path, head, swap, ("app/calc.py",))
    check = _rechecker(repo).recheck(_finding(repo), applied.commit, ("app/calc.py",))
    assert check.gone is True
    (new,) = check.introduced
    assert (new.title, new.line) == ("pickle of a value", 2)


def test_the_recheck_always_includes_the_findings_file(repo: GitRepo) -> None:
    # A patch of another file leaves the finding where it was: the re-check must look there
    # (before, it re-ran only the patch's files and called a pattern finding unverifiable).
    repo.write("app/other.py", "def other(expr):\n    return expr\n")
    repo.commit("another file")
    head = repo.git("rev-parse", "HEAD").strip()
    elsewhere = ("diff --git a/app/other.py b/app/other.py\n--- a/app/other.py\n"
                 "+++ b/app/other.py\n@@ -1,2 +1,2 @@\n def other(expr):\n"
                 "-    return expr\n+    return str(expr)\n")
    applied = apply_to_head(repo.path, head, elsewhere, ("app/other.py",))
    check = _rechecker(repo).recheck(_finding(repo), applied.commit, ("app/other.py",))
    assert check.gone is False


def test_a_model_finding_cannot_be_rechecked(repo: GitRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    applied = apply_to_head(repo.path, head, _patch(), ("app/calc.py",))
    model = _finding(repo, "model:openai:gpt-4.1")
    assert not checkable(model)
    check = _rechecker(repo).recheck(model, applied.commit, ("app/calc.py",))
    assert (check.gone, check.introduced) == (None, ())
    assert checkable(_finding(repo, "pattern+model:openai:gpt-4.1"))


@pytest.mark.parametrize(("line", "end", "new", "expected"), [
    (2, None, "a\nB\nc\n", "B"),
    (2, 3, "a\nB\nC\n", "B\nC"),
    (2, None, "a\nB\nb2\nc\n", "B\nb2"),  # inserted after the line: still the line's region
    (2, None, "A\nB\nc\n", None),  # the line before changed too
    (1, None, "a\nb\nc\nd\n", None),  # a line added elsewhere in the file
    (2, None, "a\nc\n", None),  # the line deleted: a blank suggestion is not offered
])
def test_a_suggestion_replaces_exactly_the_commented_lines(
    line: int, end: int | None, new: str, expected: str | None
) -> None:
    assert suggestion_for("a\nb\nc\n", new, line, end) == expected


def test_patches_are_combined_when_they_apply_together(tmp_path: Path) -> None:
    git = GitRepo(tmp_path / "repo")
    lines = [f"line{i}" for i in range(1, 21)]
    git.write("a.py", "\n".join(lines) + "\n")
    head = git.commit("base")

    def edit(number: int, text: str) -> str:
        start = max(1, number - 3)
        before = lines[start - 1:number - 1]
        after = lines[number:number + 3]
        body = [f" {x}" for x in before] + [f"-{lines[number - 1]}", f"+{text}"] + [
            f" {x}" for x in after]
        count = len(before) + 1 + len(after)
        return (f"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
                f"@@ -{start},{count} +{start},{count} @@\n" + "\n".join(body) + "\n")

    far = [edit(3, "THREE"), edit(15, "FIFTEEN")]
    combined, skipped = combine(git.path, head, far)
    assert skipped == []
    assert "+THREE" in combined and "+FIFTEEN" in combined
    # Two patches on neighbouring lines were each made against the head alone: the second
    # no longer applies once the first did, so it is left out (and said so).
    near = [edit(3, "THREE"), edit(4, "FOUR")]
    combined, skipped = combine(git.path, head, near)
    assert skipped == [1]
    assert "+THREE" in combined and "+FOUR" not in combined
    assert git.git("status", "--porcelain") == ""
