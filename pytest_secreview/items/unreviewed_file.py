"""``UnreviewedItem``: a changed file (or part of one) that no item reviews."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.findings import Finding, number_occurrences
from ..diff.model import FileDiff
from ..errors import GitError
from ..evaluation.evaluate import Evaluation
from ..evaluation.record import item_record
from ..severity import one_line
from .base import ReviewItem


class UnreviewedItem(ReviewItem):
    """A changed file (or part of one) no item reviews (:mod:`..triage.gaps`): too large,
    binary to git, a submodule, a refused symlink, hunks over the general review's budget.
    With ``scan``, the
    deterministic rules still scan it, line by line from git in bounded memory: a finding at
    the threshold fails the item; otherwise the ``--secreview-unreviewed`` policy decides
    (fail, or skip with the reason), never a pass. Known binary media (``not_code``: an image,
    a font, a compiled catalogue, audio or video, by name and content) is not a gap: once its
    scan ran it passes, unless a finding fails it."""

    def __init__(self, *, file: FileDiff, reason: str, scan: bool = True,
                 not_code: str | None = None, **kwargs: Any) -> None:
        super().__init__(path=file.path, **kwargs)
        self.file = file
        self.reviewed_path = file.path
        self.reason = reason
        self.scan = scan
        self.not_code = not_code if scan else None

    def setup(self) -> None:
        from ..evaluation.deterministic import MAX_STREAMED_FINDINGS, scan_unreviewed
        from ..triage.ignore import IGNORE_FILE

        review = self.review
        note = f"{self.reason}; the deterministic rules scanned it line by line"
        found: list[Finding] = []
        cut = False
        # An ignored file (.secreviewignore) is scanned by the rules it is not excluded from
        # (credential rules) and, when they find nothing, is not counted as unreviewed; the
        # default exclusions hold here too (a minified bundle over 8 MiB is read by the
        # credential rules only).
        self.ignored = review.ignore.pattern_of(self.file.path)
        rules = [r for r in review.rules if not review.ignore.excludes(r, self.file.path)
                 and not review.prepared.excludes(r, self.file.path)]
        # Known media is not a gap once the rules read it (the report lists it as not code).
        not_code = self.not_code
        if not self.scan:
            note = self.reason
            self.ignored = None  # nothing to scan: a submodule, hunks over the budget
        else:
            if self.ignored is not None:
                note = (f"{self.reason}; ignored ({IGNORE_FILE}: {self.ignored}): the "
                        "credential rules scanned it line by line")
            elif not_code is not None:
                note = (f"{not_code}, not code (binary media, by its name and content); the "
                        "deterministic rules scanned it line by line")
            try:
                found, cut = scan_unreviewed(review.repo, review.diff.base_sha,
                                             review.diff.head_sha, self.file, rules)
            except GitError as exc:
                note = f"{self.reason}; the deterministic scan failed: {exc}"
                self.ignored = None  # nothing was checked: it counts as not reviewed
                not_code = None
        if cut:
            note += f" (stopped after {MAX_STREAMED_FINDINGS} findings)"
        findings = tuple(number_occurrences(found))
        # An ignored file or known media whose scan ran is not a gap.
        evaluation = Evaluation(findings, "deterministic", not_reviewed=(
            note if self.ignored is None and not_code is None else None),
            changes=review.finding_filter(self).changes(findings))
        if review.quiet is not None:  # the baseline mutes here too (the file is not read)
            quieted = review.quiet.apply(findings, inline=False, writer=review.author_writes)
            evaluation = replace(evaluation, findings=quieted.findings,
                                 changes=(*evaluation.changes, *quieted.changes))
        self.verdict = self.conclude(item_record(self.nodeid, evaluation, rule=None,
                                                 path=self.file.path))
        self.note = note

    def runtest(self) -> None:
        path = one_line(self.file.path)
        self.judge(self.verdict, self.note, what=path,
                   skip_message=f"{path} not reviewed: {self.note}")

    def failure_subject(self) -> str:
        if self.not_code is not None:
            return f"{one_line(self.file.path)} ({self.not_code}, not code)"
        return f"{one_line(self.file.path)}, not reviewed"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        path = one_line(self.reviewed_path)
        return Path(path), 0, f"{'not code' if self.not_code else 'not reviewed'}: {path}"
