"""The verifier: a second, independent look at each finding a model reported at or above the
fail threshold, before it can fail an item (``--secreview-verify``).

It reuses :func:`.verify.verify_findings` with its own :class:`.verify.Check`: a skeptical
prompt (``prompts/verifier.md``), the whole file the finding is in, and the precedents of what
not to report, kept as data: the bundled general ones (``prompts/precedents.md``), the rule's
frontmatter ``precedents:`` and the team's ``.secreview/precedents.yml`` (read from the base
revision, :mod:`pytest_secreview.agent.guidance`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..agent.guidance import precedents_text
from ..agent.prompt import load, render
from ..core.findings import Finding
from ..core.problems import SOURCE_SEPARATOR
from ..core.severity import Severity
from ..rules.model import Rule
from ..severity import one_line
from .verify import Check


def from_model(finding: Finding) -> bool:
    """True when only models reported ``finding`` (a pattern's or scanner's report of the
    same line is the triage's to decide, and a literal fact stands)."""
    return all(part.startswith("model:") for part in finding.source.split(SOURCE_SEPARATOR))


def to_verify(threshold: Severity) -> Callable[[Finding], bool]:
    """The findings the verifier looks at: a model's, at or above ``threshold``."""
    return lambda f: from_model(f) and f.severity.at_least(threshold)


def verifier_check(rule: Rule, team_precedents: tuple[str, ...], path: str,
                   threshold: Severity) -> Check:
    """The verifier's check of the findings on ``path``."""
    system = render(load("verifier"), rule_id=rule.id, rule_title=one_line(rule.title),
                    precedents=precedents_text(load("precedents"), rule.precedents,
                                               team_precedents))
    wanted = to_verify(threshold)
    return Check(system, lambda f: f.path == path and wanted(f),
                 f"The whole file {one_line(path)} (head revision, numbered lines; a file "
                 "over the context budget is cut, and the note at the cut says how to read "
                 "the rest)",
                 "the verifier")


def numbered(text: str, limit: int | None, *, path: str) -> str:
    """``path``'s ``text`` with line numbers, cut at ``limit`` characters (None: whole) with a
    note naming the lines not shown and the ``read_file`` call that shows them."""
    lines = text.splitlines()
    width = len(str(len(lines)))
    out: list[str] = []
    used = 0
    for number, line in enumerate(lines, 1):
        row = f"{number:>{width}} | {line}"
        if limit is not None and used + len(row) + 1 > limit:
            out.append(f"[cut at {limit:,} characters: lines {number}-{len(lines)} are not "
                       f'shown; read them with read_file(path="{one_line(path)}", '
                       f"offset={number})]")
            break
        out.append(row)
        used += len(row) + 1
    return "\n".join(out)
