"""``--secreview-stop-after`` and ``--secreview-from-phase`` in the pytest run.

A pytest plugin (registered as :data:`~..phase_names.PHASES_PLUGIN` when either option is
given) that

- replaces the background ``git diff`` with ``phases/diff.json`` when the run starts after
  the diff phase (checked against the repository: the same head and merge base);
- starting at the evaluate phase, takes the rule files, their notes and the model triage's
  answer from ``phases/rules.json``, and refuses when the items collected from them are not
  the ones the rules phase listed;
- writes ``phases/diff.json`` and ``phases/rules.json`` for the phases it runs, and removes
  the review's items when it stops before the evaluate phase or starts after it;
- hands :func:`deliver` the stages to run after the evaluation (report, comment), or
  publishes the stored evaluation (``phases/evaluate.json``) when it starts after it.

Only the controller writes files. Phases that evaluate nothing run in one process (``-n``
is refused: xdist's controller does not collect, so it could not list the items).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from ..diff.prefetch import DiffPrefetch
from ..options import Settings
from ..phase_names import PHASES, PHASES_PLUGIN, index
from ..reporting.actions import ACTIONS_LOG_PLUGIN
from ..reporting.artifacts import ArtifactWriter, diff_chunks
from ..reporting.review_view import ReviewView
from ..reporting.summary import Summary
from .diff_codec import diff_to_json
from .inputs import StoredDiff, load_rules, rule_file_json, rule_files_of
from .store import PhaseError, phase_dir, phase_file, sha256_of, write_phase

_MARKER = "secreview"


def _ours(items: list[pytest.Item]) -> list[pytest.Item]:
    return [i for i in items if i.get_closest_marker(_MARKER) is not None]


def write_diff_phase(root: Path, review: ReviewView) -> None:
    """``phases/diff.json``: the range and the parsed diff the review used."""
    write_phase(root, "diff", {"base_ref": review.base_ref, "base_sha": review.diff.base_sha,
                               "head_sha": review.diff.head_sha, "repository": str(review.repo),
                               "diff": diff_to_json(review.diff)})


class PhasePlugin:
    """The phases one pytest run covers, from ``--secreview-from-phase`` to
    ``--secreview-stop-after``."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.first = index(settings.from_phase or PHASES[0])
        self.last = index(settings.stop_after or PHASES[-1])
        if self.first > self.last:
            raise pytest.UsageError(
                f"--secreview-from-phase={PHASES[self.first]} comes after "
                f"--secreview-stop-after={PHASES[self.last]}; the phases run in the order "
                f"{', '.join(PHASES)}")
        self.root = config.invocation_params.dir / settings.artifacts
        self.controller = not hasattr(config, "workerinput")
        self.deselected: list[pytest.Item] = []
        self.stored_rules: dict[str, Any] | None = None
        self.listed = 0  # review items collected (before this plugin removes them)
        self.review: ReviewView | None = None  # given by the session when it starts
        workers = getattr(config.option, "numprocesses", None)
        if workers and not self.runs("evaluate"):
            raise pytest.UsageError(
                "-n/--numprocesses is for evaluating items; a run that stops before the "
                "evaluate phase or starts after it runs in one process: drop -n")

    def runs(self, phase: str) -> bool:
        """True when this run does ``phase``."""
        return self.first <= index(phase) <= self.last

    @property
    def name(self) -> str:
        """What this run is, for messages."""
        if self.first == self.last:
            return f"the {PHASES[self.first]} phase"
        return f"the phases {PHASES[self.first]} to {PHASES[self.last]}"

    @property
    def runs_model_triage(self) -> bool:
        """The model triage belongs to the rules phase."""
        return self.runs("rules")

    def prefetch(self, settings: Settings) -> DiffPrefetch | StoredDiff:
        """Where the run's diff comes from: git, or the diff phase's artifact."""
        start = self.config.invocation_params.dir
        if self.runs("diff"):
            return DiffPrefetch(start, settings.base, settings.head, os.environ)
        return StoredDiff(self.root, start, settings.base, settings.head, os.environ,
                          needed_by=self.name)

    # -- session start: stored inputs ---------------------------------------------------

    def start(self, review: ReviewView) -> None:
        """The session started with ``review``: write the diff phase, or take the stored
        rule files and model triage of a run that starts later."""
        self.review = review
        if self.runs("diff") and self.controller:
            self._write_diff(review)
        if PHASES[self.first] == "evaluate":
            try:
                self.stored_rules = load_rules(self.root, review.diff, needed_by=self.name)
            except PhaseError as exc:
                raise pytest.UsageError(f"secreview: {exc}") from None
            review.rule_files = rule_files_of(self.stored_rules)
        elif self.first > index("evaluate"):
            # Only for the terminal's "rules:" line (the stored report has its own rules).
            with contextlib.suppress(PhaseError):
                review.rule_files = rule_files_of(
                    load_rules(self.root, review.diff, needed_by=self.name))
        if self.stored_rules is not None:
            triage = self.stored_rules.get("model_triage")
            if triage and self.controller and review.session_dir is not None:
                from ..triage.plan import AddedRule
                from ..triage.store import save_model_triage

                added = [AddedRule(str(a["rule"]), tuple(a["paths"]), str(a["reason"]))
                         for a in triage.get("added", [])]
                save_model_triage(review.session_dir, added, triage.get("record") or {})

    def _write_diff(self, review: ReviewView) -> None:
        write_diff_phase(self.root, review)
        # The human-readable copy next to the other artifacts (redacted like them).
        ArtifactWriter(self.root, own=True).write_chunks("diff.patch", diff_chunks(review.diff))

    # -- collection: list, check or drop the items ---------------------------------------

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected.extend(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        review = self.review
        if review is None:
            return
        collected = sorted(_ours(items) + _ours(self.deselected), key=lambda i: i.nodeid)
        if self.stored_rules is not None:
            self._check_items(collected)
        self.listed = len(collected)
        if self.runs("rules") and self.controller:
            self._write_rules(review, collected)
        if not self.runs("evaluate"):
            items[:] = [i for i in items if i.get_closest_marker(_MARKER) is None]

    def _check_items(self, collected: list[pytest.Item]) -> None:
        assert self.stored_rules is not None
        listed = [str(i["nodeid"]) for i in self.stored_rules.get("items", [])]
        found = [i.nodeid for i in collected]
        if listed != found:
            missing = sorted(set(listed) - set(found))[:5]
            extra = sorted(set(found) - set(listed))[:5]
            raise pytest.UsageError(
                f"secreview: the items collected from {phase_file(self.root, 'rules')} are not "
                f"the ones it lists (missing: {missing}, not listed: {extra}); run "
                "`secreview rules` again")

    def _write_rules(self, review: ReviewView, collected: list[pytest.Item]) -> None:
        from ..triage.store import load_model_triage

        added, record = load_model_triage(review.session_dir)
        items = []
        for item in collected:
            props = dict(item.user_properties)
            items.append({"nodeid": item.nodeid, "rule": props.get("secreview_rule"),
                          "path": props.get("secreview_path")})
        rules = [{"source": s.display, "id": r.id, "title": r.title, "content_sha256":
                  r.content_sha} if not isinstance(r, Exception) else
                 {"source": s.display, "error": str(r)} for s, r in review.parsed_rules]
        write_phase(self.root, "rules", {
            "base_sha": review.diff.base_sha, "head_sha": review.diff.head_sha,
            "diff_sha256": sha256_of(phase_file(self.root, "diff")),
            "rule_files": [rule_file_json(s) for s in
                           sorted(review.rule_files.sources, key=lambda s: s.display)],
            "notes": list(review.rule_files.notes),
            "rules": rules,
            "items": items,
            "triage": review.triage.to_json(),
            "model_triage": {"added": [{"rule": a.rule, "paths": list(a.paths),
                                        "reason": a.reason} for a in added],
                             "record": record} if record is not None or added else None,
        })

    # -- session finish: outputs -----------------------------------------------------------

    def deliver(self, session: pytest.Session, review: ReviewView, summary: Summary
                ) -> list[str]:
        """Write this run's outputs; return lines for the terminal summary."""
        lines = [f"phases: {PHASES[self.first]} to {PHASES[self.last]}, artifacts in "
                 f"{phase_dir(self.root)}"]
        if self.runs("diff"):
            lines.append(f"diff: {len(review.diff.files)} changed file(s) in "
                         f"{phase_file(self.root, 'diff')}")
        if self.runs("rules"):
            lines.append(f"rules: {len(review.rules)} rule(s), {self.listed} item(s) in "
                         f"{phase_file(self.root, 'rules')}")
        stages = [p for p in ("report", "comment") if self.runs(p)]
        if self.runs("evaluate"):
            from ..publish.outputs import deliver, report_dir_of
            from .results import write_evaluation

            report, out = deliver(review, summary, stages=stages)
            lines += out
            report_dir = report_dir_of(review.settings, self.config.invocation_params.dir)
            if (report_dir / "summary.json").is_file():
                write_evaluation(self.root, report_dir, review.diff)
            if "comment" in stages:
                from .results import write_comment_record

                write_comment_record(self.root, report, out)
            return lines
        if self.first < index("comment"):
            return [*lines, f"next: `secreview {PHASES[self.last + 1]}` or "
                            f"--secreview-from-phase={PHASES[self.last + 1]}"]
        from .publish import publish_stored

        try:
            status = publish_stored(
                self.root, settings=review.settings, invocation=self.config.invocation_params.dir,
                stages=stages, lines=lines, needed_by=self.name,
                actions_log=self.config.pluginmanager.get_plugin(ACTIONS_LOG_PLUGIN))
        except PhaseError as exc:
            lines.append(f"nothing published: {exc}")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return lines
        session.exitstatus = status
        return lines


def register_phases(config: pytest.Config, settings: Settings) -> PhasePlugin:
    """Register the plugin of a run given ``--secreview-stop-after``/
    ``--secreview-from-phase`` (as :data:`~..phase_names.PHASES_PLUGIN`) and return it."""
    plugin = PhasePlugin(config, settings)
    config.pluginmanager.register(plugin, PHASES_PLUGIN)
    return plugin
