"""Every relative link of README.md and docs/*.md leads somewhere: the file (or directory) exists
in the repository, and an anchor (`page.md#section`, `#section`) names a heading of that page as
GitHub renders it. The pages are parsed as CommonMark, so a link-like text inside code is not a
link and a `#` line inside a fenced block is not a heading."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PARSER = MarkdownIt("commonmark").enable("table")


def _tokens(page: Path) -> list[Token]:
    return PARSER.parse(page.read_text(encoding="utf-8"))


def _flat(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        yield from _flat(token.children or [])


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings; a repeated heading gets `-1`, `-2`... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    tokens = _tokens(page)
    for opening, inline in pairwise(tokens):
        if opening.type != "heading_open":
            continue
        text = "".join(child.content for child in inline.children or []
                       if child.type in ("text", "code_inline"))
        slug = github_slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(page: Path) -> list[str]:
    hrefs = [str(token.attrs.get("href", "")) for token in _flat(_tokens(page))
             if token.type == "link_open"]
    return [href for href in hrefs if not urlsplit(href).scheme]


def test_there_are_pages_and_links_to_check() -> None:
    assert len(PAGES) > 5
    assert len(relative_links(ROOT / "README.md")) > 10


def test_slug_matches_github() -> None:
    assert github_slug("What --secreview-unreviewed does") == "what---secreview-unreviewed-does"
    assert github_slug("Dataflow (taint) rules") == "dataflow-taint-rules"
    assert github_slug("Coverage: every changed hunk reaches a reviewer") == (
        "coverage-every-changed-hunk-reaches-a-reviewer")


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of `page` that names no file under `root`, or no heading of it."""
    broken = []
    for href in relative_links(page):
        parts = urlsplit(href)
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not target.exists() or root not in (target, *target.parents):
            broken.append(f"{href}: no such file in the repository")
        elif parts.fragment and target.suffix == ".md" and parts.fragment not in anchors(target):
            broken.append(f"{href}: {target.relative_to(root)} has no heading #{parts.fragment}")
    return broken


def test_a_missing_file_an_unknown_anchor_and_a_way_out_are_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Some section\n")
    page = tmp_path / "README.md"
    page.write_text("[ok](docs/a.md#some-section) [self](#top) [gone](docs/b.md)\n"
                    "[no anchor](docs/a.md#other) [outside](../x.md) [web](https://example.org/)\n"
                    "`[code](docs/b.md)`\n\n```\n[fenced](docs/b.md)\n```\n\n# Top\n")
    (tmp_path.parent / "x.md").touch()
    assert broken_links(page, tmp_path) == [
        "docs/b.md: no such file in the repository",
        "docs/a.md#other: docs/a.md has no heading #other",
        "../x.md: no such file in the repository",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


#: Pointers at documents outside the repository, assembled here so this file is not one of them.
OUTSIDE = re.compile("|".join((re.escape("../" + "shared"), re.escape("DESIGN" + ".md"),
                               r"\b[Ss]eed[ s]+0\d\d", "seeds" + "/")))


def test_the_project_documents_itself() -> None:
    """No file of the repository points at a document that is not in it."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                            check=False, timeout=60)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    pointers = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file() or path.is_symlink():
            continue
        text = path.read_bytes()[:1_000_000].decode("utf-8", "replace")
        pointers += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}"
                     for m in OUTSIDE.finditer(text)]
    assert not pointers, "say what the thing is, not where it came from: " + "; ".join(pointers)


def test_every_test_the_documentation_names_exists() -> None:
    """The degradation ladder and other tables name the tests that prove a row: they exist."""
    named = {(page.name, match.group(1), match.group(2)) for page in PAGES
             for match in re.finditer(r"\b(test_\w+\.py)::(test_\w+)", page.read_text())}
    assert len(named) > 10
    missing = [f"{page}: {module}::{test}" for page, module, test in sorted(named)
               if not (ROOT / "tests" / module).is_file()
               or not re.search(rf"^(async )?def {test}\(", (ROOT / "tests" / module).read_text(),
                                re.MULTILINE)]
    assert not missing, "the documentation names tests that do not exist: " + "; ".join(missing)
