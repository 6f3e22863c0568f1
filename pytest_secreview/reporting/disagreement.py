"""Which model said what, when several models reviewed an item (``--secreview-model`` given
more than once) and they did not all say the same: for the terminal and the markdown summary.
Model output is untrusted: callers escape these lines for their medium."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def disagreements(assessments: Sequence[Mapping[str, Any]]) -> list[str]:
    """One plain line per location not every model reported, and per model that failed,
    e.g. ``models disagree at app.py:3: model a reported 'SQL injection'; model b did not``.
    Empty when there is one model, or the models agree (intent verdicts are not compared
    here: they are shown per model in the intent audit section)."""
    reviews = [a for a in assessments if "findings" in a]
    if len(reviews) < 2:
        return []
    reported: dict[tuple[str, int], dict[str, str]] = {}
    for review in reviews:
        for finding in review.get("findings") or []:
            where = (str(finding.get("path", "")), int(finding.get("line") or 0))
            reported.setdefault(where, {}).setdefault(str(review.get("model")),
                                                      str(finding.get("title", "")))
    lines: list[str] = []
    for (path, line), said in sorted(reported.items()):
        if len(said) == len(reviews):
            continue
        yes = "; ".join(f"model {model} reported {title!r}" for model, title in said.items())
        no = ", ".join(str(r.get("model")) for r in reviews if str(r.get("model")) not in said)
        lines.append(f"models disagree at {path}:{line}: {yes}; model {no} did not")
    lines += [f"model {r.get('model')} failed: {r.get('error')}" for r in reviews
              if r.get("error")]
    return lines
