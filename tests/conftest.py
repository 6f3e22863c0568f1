"""Shared fixtures: a real git repository inside pytester's directory, with a base branch
and a pull-request branch, and secrets assembled at run time (never written literally)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.gitutil import GitRepo

#: The published SARIF 2.1.0 schema and JUnit XSD, vendored (see vendored_schemas/README.md).
VENDORED_SCHEMAS = Path(__file__).resolve().parent / "vendored_schemas"
SARIF_SCHEMA = VENDORED_SCHEMAS / "sarif-schema-2.1.0.json"
JUNIT_XSD = VENDORED_SCHEMAS / "JUnit.xsd"

#: A medium rule that reports ``debug = True``: many tests need one rule that finds something
#: without failing the run.
DEBUG_RULE = textwrap.dedent(
    """\
    ---
    title: Debug mode
    severity: medium
    detect:
      - pattern: "debug = True"
        message: Debug mode enabled
    ---
    """
)


def aws_key_id() -> str:
    """An AWS-access-key-id-shaped string built at run time, with a generated key's mix (a
    repeated unit would make it a placeholder to the hardcoded-secrets rule)."""
    return "AKI" + "A" + "Z7Q3" + "M4XK" + "R2PV" + "J6TN"


class ReviewRepo(GitRepo):
    """A repository with a ``main`` base commit, checked out on branch ``pr``."""

    def rule(self, name: str, text: str) -> None:
        """Write a rule into the repository's own ``secreview/rules/``."""
        self.write(f"secreview/rules/{name}.md", text)


@pytest.fixture
def review_repo(pytester: pytest.Pytester) -> Callable[..., ReviewRepo]:
    """Factory: ``review_repo(base_files, pr_files, rules)`` builds the repo and returns it.

    ``rules`` are committed on the base branch (so they are trusted); ``pr_files`` are
    committed on branch ``pr`` which stays checked out.
    """

    def build(
        base: dict[str, str] | None = None,
        pr: dict[str, str | None] | None = None,
        rules: dict[str, str] | None = None,
    ) -> ReviewRepo:
        repo = ReviewRepo(Path(pytester.path))
        repo.write("README.md", "service\n")
        for name, text in (rules or {}).items():
            repo.rule(name, text)
        for rel, content in (base or {}).items():
            repo.write(rel, content)
        repo.commit("base")
        repo.branch("pr")
        for rel, maybe in (pr or {}).items():
            if maybe is None:
                (repo.path / rel).unlink()
            else:
                repo.write(rel, maybe)
        repo.commit("pull request")
        return repo

    return build
