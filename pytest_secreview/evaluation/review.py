"""The model review of one item, wired from per-process parts: the model(s), the repository
tools, the prompts and the pull request's context."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
from google.auth.exceptions import GoogleAuthError

from .. import __version__
from ..agent.loop import ReviewRequest
from ..agent.output import AgentOutput
from ..agent.prompt import (
    PROMPT_VERSION,
    ChangedFile,
    Preloaded,
    hunks_within,
    new_boundary,
    shape_text,
    system_prompt,
    task_prompt,
)
from ..agent.report_tool import validate_report
from ..agent.session import ModelSession
from ..audit.statement import cap
from ..cache import EvaluationCache, cache_key, stored_answers, stored_review
from ..core.findings import Finding
from ..core.record import Answer, Change
from ..core.severity import Severity
from ..diff.model import FileDiff
from ..errors import EvaluationError, SecreviewError
from ..rules.matcher import BatchTarget, FileHunks, Target, match_file
from ..rules.model import Rule
from ..shared import session_secret as read_secret
from ..tools import Gate, GitHubPRContext, build_registry, redact
from ..triage.verdict_store import VerdictStore
from ..usage import ReviewUsage

#: Why a finding was not given a second look when ``--secreview-verify=false``.
VERIFY_OFF = "--secreview-verify=false: no second look"


class ModelReviewer(ModelSession):
    """Reviews targets with a model: the process's model session, the cache and the second
    look. One per process; thread-safe; callable per item."""

    def __init__(
        self,
        *,
        cache: EvaluationCache | None = None,
        session_secret: str | None = None,
        verify: bool = True,
        verify_at: Severity | None = None,
        max_context_chars: int | None = None,
        session_dir: Path | None = None,
        **session: Any,
    ) -> None:
        """``session`` are :class:`ModelSession`'s arguments (repo, diff, model, limits...)."""
        super().__init__(**session)
        #: ``--secreview-verify``: the triage of pattern findings and the verifier of model
        #: findings at or above ``verify_at`` (the fail threshold; None: no verifier).
        self.verify = verify
        self.verify_at = verify_at
        #: Characters of hunks pre-loaded per item (``--secreview-max-context-chars``; the
        #: session always passes one); None: no budget.
        self.max_context_chars = max_context_chars
        #: The session's verdicts, shared by its processes (None: every item asks).
        self.verdicts = VerdictStore(session_dir / "verdicts") if session_dir else None
        self.cache = cache
        # One boundary per session (derived from the secret every xdist worker shares) keeps
        # the system prompt identical across items of a rule, so provider prompt caching
        # applies; an item whose content happens to contain it gets a boundary of its own.
        secret = session_secret or (read_secret(session_dir) if session_dir else None)
        self._boundary = (hashlib.sha256(f"{secret}:boundary".encode()).hexdigest()[:24]
                          if secret else new_boundary())
        self._line_counts: dict[str, int] = {}
        #: The session's rules with ``detect`` patterns: their findings on an item's files are
        #: listed in its first message (:func:`share_rules` sets them once they are parsed).
        self.known_rules: tuple[Rule, ...] = ()
        #: The general review's rule (``coverage:``): its method goes into every specific
        #: rule's prompt, whose hunks it does not review itself (set by :func:`share_rules`).
        self.general: Rule | None = None
        self._known: dict[str, tuple[Finding, ...]] = {}

    @property
    def primary(self) -> ModelReviewer:
        """This reviewer (one model is its own primary: see :class:`~.evaluate.Reviewer`)."""
        return self

    @property
    def reviewers(self) -> tuple[ModelReviewer, ...]:
        """This reviewer alone."""
        return (self,)

    @cached_property
    def changed_files(self) -> dict[str, ChangedFile]:
        """Every file of the pull request with its added and removed line counts, counted
        once per process for every item's first message."""
        return {f.path: ChangedFile(f.path, f.kind.value,
                                    sum(len(h.added_texts()) for h in f.hunks),
                                    sum(len(h.removed_texts()) for h in f.hunks))
                for f in self.diff.files}

    def shape(self, target: Target) -> tuple[list[ChangedFile], int, list[Finding]]:
        """The rest of the pull request for ``target``'s first message: the other changed
        files, how many more the gate withholds, and what other rules' patterns found on its
        own files."""
        mine = {part.file.path for part in target.parts}
        # A file the gate withholds is not named to the model, as in a batch: the note on
        # the listing counts it.
        gate = Gate()
        rest = [f for path, f in self.changed_files.items() if path not in mine]
        others = [f for f in rest if gate.reason(f.path) is None]
        found = [f for part in target.parts for f in self.known_findings(part.file)
                 if f.rule != target.rule.id]
        return others, len(rest) - len(others), found

    def known_findings(self, file: FileDiff) -> tuple[Finding, ...]:
        """What the detect patterns of every known rule report on ``file`` (each rule on the
        files it selects, as its own items would), computed once per file per process."""
        with self._lock:
            cached = self._known.get(file.path)
        if cached is not None:
            return cached
        from .deterministic import run_detect

        found = tuple(f for rule in self.known_rules if match_file(rule, file) is not None
                      for f in run_detect(rule, file))
        with self._lock:
            self._known[file.path] = found
        return found

    @cached_property
    def blobs(self) -> dict[str, str]:
        """Blob id of every file tracked at the head revision (valid ``path`` values for
        findings; the content part of the cache key)."""
        return {path: entry.oid for path, entry in self.tree.entries.items()}

    def line_count(self, path: str) -> int | None:
        """Lines of a head file (None when it is not a regular file or too big to count)."""
        entry = self.tree.entries.get(path)
        if entry is None or entry.kind != "file" or entry.size > _COUNT_LIMIT:
            return None
        with self._lock:
            if path not in self._line_counts:
                data = self.tree.read_blob(entry, max_bytes=_COUNT_LIMIT)
                self._line_counts[path] = data.count(b"\n") + (not data.endswith(b"\n"))
            return self._line_counts[path]

    def head_lines(self, path: str) -> list[str] | None:
        """A head file's lines, to check a reported line against the code a model cites
        (None when it is not a regular file or too big)."""
        entry = self.tree.entries.get(path)
        if entry is None or entry.kind != "file" or entry.size > _COUNT_LIMIT:
            return None
        data = self.tree.read_blob(entry, max_bytes=_COUNT_LIMIT)
        return data.decode("utf-8", "replace").splitlines()

    def cache_key(self, target: Target, hunks: str, pr_context: str) -> str:
        """Every input that decides the review, and nothing that does not."""
        rule = target.rule
        paths = (target.file.path if not isinstance(target, BatchTarget)
                 else [p.file.path for p in target.parts])
        blobs = (self.blobs.get(target.file.path) if not isinstance(target, BatchTarget)
                 else [self.blobs.get(p.file.path) for p in target.parts])
        return cache_key({
            "plugin": __version__, "prompts": PROMPT_VERSION, "tools": TOOLS_VERSION,
            "rule": rule.content_sha, "path": paths, "blob": blobs, "hunks": hunks,
            "pr": hashlib.sha256(pr_context.encode()).hexdigest(),
            "model": self.loop_for(target).model.model_id,
            "fallback": self.loop.fallback.model_id if self.loop.fallback else None,
            "max_turns": rule.max_turns or self.max_turns,
            "max_output_tokens": self.max_output_tokens, "temperature": self.temperature,
            "max_tool_calls": self.max_tool_calls, "max_tokens": self.max_tokens,
            "guidance": self.guidance.digest, "max_context_chars": self.max_context_chars,
            "shape": repr(self.shape(target)),
            "general": self.general.content_sha if self.general is not None else None,
        })

    def __call__(self, target: Target, deterministic: tuple[Finding, ...]) -> AgentOutput:
        try:
            return self._cached_review(target, deterministic)
        except EvaluationError:
            raise
        except (SecreviewError, OSError, httpx.HTTPError, GoogleAuthError) as exc:
            # Git, the file system, locks, HTTP or auth broke outside the provider layer: the
            # item errors with one clear line, never a traceback or a pass.
            raise EvaluationError(f"{type(exc).__name__}: {exc}") from exc

    def verify_findings(self, target: Target, findings: tuple[Finding, ...]
                        ) -> tuple[tuple[Change, ...], dict[str, Any]]:
        """The second look (``--secreview-verify``): the triage of pattern and scanner findings
        over the hunks, then the verifier of each model finding at the fail threshold over its
        whole file (:mod:`~..triage.verify`, :mod:`~..triage.verifier`), once per
        finding per session (:mod:`~..triage.verdict_store`). Cached like a review; never
        raises: a failure leaves the findings standing, each answered "unchecked" with why.
        Returns the changes the answers claim, and the usage of the look."""
        from ..triage.verifier import to_verify
        from ..triage.verify import about_advisory, answer_changes, offered, unchecked, weakness

        if not self.verify:
            return answer_changes(findings, unchecked(findings, VERIFY_OFF)), {}
        verifier = to_verify(self.verify_at) if self.verify_at is not None else None

        def chosen(f: Finding) -> bool:
            return offered(f) or (verifier is not None and verifier(f))

        if self.verdicts is None:
            answers, usage = self._verify(target, findings, chosen)
            return answer_changes(findings, answers), usage
        model = self.loop_for(target).model.model_id
        keys = {i: VerdictStore.key(check=("reachability" if about_advisory(f) else "triage"
                                           if offered(f) else "verifier"), model=model,
                                    finding=f, weakness=weakness(f), blob=self.blobs.get(f.path))
                for i, f in enumerate(findings) if chosen(f)}
        answers, usage = self.verdicts.reuse_or_ask(keys, findings, lambda rest: self._verify(
            target, rest, chosen), asked_by=f"{target.rule.id} on {target.label}")
        return answer_changes(findings, answers), usage

    def _verify(self, target: Target, findings: tuple[Finding, ...],
                chosen: Callable[[Finding], bool]) -> tuple[dict[str, Answer], dict[str, Any]]:
        """The second look at the ``chosen`` of ``findings`` (cached, else the model)."""
        from ..triage.verify import unchecked

        if not any(chosen(f) for f in findings):
            return {}, {}
        # The same pre-loading budget as the review; the tools reach the rest.
        hunks = redact(hunks_within(target, self.max_context_chars).text)
        key = None
        if self.cache is not None:
            key = cache_key({
                "verify": 4, "plugin": __version__, "rule": target.rule.content_sha,
                "prompts": PROMPT_VERSION, "hunks": hunks,
                "model": self.loop_for(target).model.model_id,
                "findings": [f.to_json() for f in findings], "guidance": self.guidance.digest,
                "verify_at": self.verify_at.value if self.verify_at else None,
                "blobs": [self.blobs.get(p.file.path) for p in target.parts],
            })
            hit = self.cache.get(key)
            if hit is not None and self.cache.replays(hit):
                return stored_answers(hit), {"cache": "hit"}
        usage = ReviewUsage(prices=self.prices,
                            on_cost=self.budget.add if self.budget is not None else None)
        try:
            if self.budget is not None:
                self.budget.check(f"verifying findings of {target.rule.id} on {target.label}")
            answers, transcript = self._second_look(target, findings, hunks, usage)
        except (SecreviewError, OSError, httpx.HTTPError, GoogleAuthError) as exc:
            return unchecked(findings, f"the model could not verify it: {exc}", chosen), {}
        record = {**usage.finish(), "transcript": transcript}
        if self.cache is not None and key is not None and all(
                a.decided for a in answers.values()):
            self.cache.put(key, {"findings": [f.to_json() for f in findings],
                                 "answers": {k: a.to_json() for k, a in answers.items()},
                                 "usage": record})
        return answers, record

    def _second_look(self, target: Target, findings: tuple[Finding, ...], hunks: str,
                     usage: ReviewUsage) -> tuple[dict[str, Answer], list[dict[str, Any]]]:
        from ..triage.verifier import numbered, to_verify, verifier_check
        from ..triage.verify import REACHABILITY, about_advisory, verify_findings

        loop = self.loop_for(target)
        registry = build_registry(self.repo, base_sha=self.diff.base_sha,
                                  head_sha=self.diff.head_sha, tree=self.tree)
        boundary = self._boundary if self._boundary not in hunks else new_boundary(hunks)
        answers, transcript = verify_findings(
            loop, registry, findings, hunks=hunks, boundary=boundary, usage=usage,
            max_output_tokens=self.max_output_tokens, team=self.team)
        if any(about_advisory(f) for f in findings):
            # Does the project call what the advisory affects? Its own look, same tools.
            more, said = verify_findings(
                loop, registry, findings, hunks=hunks, boundary=boundary, usage=usage,
                max_output_tokens=self.max_output_tokens, team=self.team, check=REACHABILITY)
            answers = {**answers, **more}
            transcript += said
        if self.verify_at is None:
            return answers, transcript
        wanted = to_verify(self.verify_at)
        team = self.guidance.precedents_for(target.rule.id)
        for path in dict.fromkeys(f.path for f in findings if wanted(f)):
            # One independent look per file: the whole file, only its own findings.
            text = numbered(self._head_text(path), self.max_context_chars, path=path)
            look = boundary if boundary not in text else new_boundary(text)
            more, said = verify_findings(
                loop, registry, findings, hunks=text, boundary=look, usage=usage,
                max_output_tokens=self.max_output_tokens, team=self.team,
                check=verifier_check(target.rule, team, path, self.verify_at))
            answers = {**answers, **more}
            transcript += said
        return answers, transcript

    def _head_text(self, path: str) -> str:
        """A head file's text for the verifier, redacted ('' when it is not a readable
        regular file: the verifier reads around with the tools)."""
        entry = self.tree.entries.get(path)
        if entry is None or entry.kind != "file" or Gate().reason(path) is not None:
            return "[the file cannot be shown; use read_file]"
        data = self.tree.read_blob(entry, max_bytes=_COUNT_LIMIT)
        return redact(data.decode("utf-8", "replace"))

    def _cached_review(self, target: Target, deterministic: tuple[Finding, ...]) -> AgentOutput:
        withheld = ""
        if isinstance(target, BatchTarget):
            # A batch sends its other files when the gate withholds some (noted in usage).
            kept, withheld = _without_denied(target)
            denied = withheld if kept is None else None
            target = kept or target
        else:
            denied = Gate().reason(target.file.path)
        if denied is not None:
            # A key, an .env file: its hunks are never sent; the patterns decide the item.
            return AgentOutput([], "deterministic", {}, not_reviewed=(
                f"not sent to the model: {denied}; deterministic checks ran"))
        preloaded = hunks_within(target, self.max_context_chars)
        hunks = redact(preloaded.text)
        pr = self.pull_request
        # Title and body capped like the intent audit's statement (one definition).
        pr_context = "\n\n".join(t for t in (cap(pr.title), cap(pr.body)) if t)
        key = self.cache_key(target, hunks, pr_context) if self.cache else None
        if self.cache is not None and key is not None:
            hit = self.cache.get(key)
            if hit is not None and self.cache.replays(hit):
                return _with_preloading(stored_review(hit), preloaded)
        if self.budget is not None:
            self.budget.check(f"{target.rule.id} on {target.label}")
        output = self._review(target, deterministic, hunks, pr_context, preloaded)
        if withheld:
            output = replace(output, usage={**output.usage, "withheld": withheld})
        output = _with_preloading(output, preloaded)
        if self.cache is not None and key is not None:
            self.cache.put(key, {  # best effort: a failed write loses nothing but time later
                "findings": [f.to_json() for f in output.findings], "mode": output.mode,
                "usage": output.usage, "transcript": list(output.transcript),
                "sent": output.sent,
            })
        return output

    def _review(self, target: Target, deterministic: tuple[Finding, ...], hunks: str,
                pr_context: str, preloaded: Preloaded) -> AgentOutput:
        usage = ReviewUsage(prices=self.prices,
                            on_cost=self.budget.add if self.budget is not None else None)
        pr = self.pull_request
        github = (
            GitHubPRContext(repository=pr.repository or "", pr_number=pr.number or 0,
                            token=pr.token or "", api_url=pr.api_url)
            if pr.can_call_api else None
        )
        registry = build_registry(self.repo, base_sha=self.diff.base_sha,
                                  head_sha=self.diff.head_sha, github=github, tree=self.tree)
        boundary = self._boundary
        left_out = "\n".join(preloaded.left_out)
        others, withheld, found = self.shape(target)
        shape = redact(shape_text(others, found, boundary, withheld=withheld))
        if any(boundary in text for text in (hunks, pr_context, left_out, shape)):
            boundary = new_boundary(hunks, pr_context, left_out, shape)
            shape = redact(shape_text(others, found, boundary, withheld=withheld))
        rule = target.rule
        known = self.blobs.keys()

        files = {part.file.path: part.file for part in target.parts}

        def validate(args: dict[str, Any]) -> list[Finding]:
            source = "model:" + (usage.models[-1] if usage.models else "unknown")
            ignored: list[str] = []
            line_notes: list[str] = []
            found = validate_report(args, rule_id=rule.id, source=source, file=target.file,
                                    known_paths=known, line_count=self.line_count,
                                    ignored=ignored, head_lines=self.head_lines,
                                    line_notes=line_notes)
            if line_notes:  # what the line check corrected or flagged, for the item's log
                request.transcript.append({"event": "line_check",
                                           "detail": "; ".join(line_notes[:20])})
            if ignored:  # accepted, not trusted: the log says what the model sent beyond it
                request.transcript.append({"event": "report_findings", "detail": (
                    "ignored keys the finding contract does not have: "
                    + ", ".join(ignored[:20]))})
            if len(files) == 1:
                return found
            # A batch: a finding on another of its files is anchored on that file's line.
            return [_anchored(f, files[f.path]) if f.path in files and f.path != target.file.path
                    else f for f in found]

        def single_shot_context() -> str:
            limit = max(200, 2000 // len(files))
            return "\n\n".join(
                registry.call("read_file", {"path": path, "limit": limit}).text
                for path, file in files.items() if file.kind.value != "deleted")

        request = ReviewRequest(
            system=system_prompt(target, boundary, self.team, self.general),
            task=task_prompt(
                target, hunks=hunks, boundary=boundary, base_sha=self.diff.base_sha,
                head_sha=self.diff.head_sha, max_turns=rule.max_turns or self.max_turns,
                deterministic=deterministic, pr_context=pr_context,
                not_preloaded=preloaded.note(boundary), shape=shape,
            ),
            registry=registry,
            validate=validate,
            single_shot_context=single_shot_context,
            boundary=boundary,
            max_turns=rule.max_turns or self.max_turns,
            max_output_tokens=self.max_output_tokens,
            temperature=self.temperature,
            max_tool_calls=self.max_tool_calls,
            max_tokens=self.max_tokens,
        )
        sent = {
            "model": self.loop_for(target).model.model_id,
            "system": request.system,
            "task": request.task,
            "tools": [s["name"] for s in registry.specs()],
            "max_turns": request.max_turns,
        }
        try:
            findings = self.loop_for(target).review(request, usage)
        except EvaluationError as exc:
            exc.usage_record = {**usage.finish(), "transcript": request.transcript, "sent": sent}
            raise
        return AgentOutput(findings, usage.mode, usage.finish(), tuple(request.transcript), sent)


#: Files bigger than this are not read to check a reported line against their length.
_COUNT_LIMIT = 8 << 20


def share_rules(reviewers: Sequence[ModelReviewer], rules: Sequence[Rule]) -> None:
    """Give the session's model ``reviewers`` (one, or each of a consensus) the session's
    rules, once: each item's first message then lists what the other rules' patterns found
    on its files."""
    for reviewer in reviewers:
        if not reviewer.known_rules:
            reviewer.general = next((rule for rule in rules if rule.coverage is not None), None)
            reviewer.known_rules = tuple(rule for rule in rules if rule.detect)


def _with_preloading(output: AgentOutput, preloaded: Preloaded) -> AgentOutput:
    """The output with ``usage["not_preloaded"]`` naming the hunks over the budget (for the
    summary), also on a cache hit."""
    if not preloaded.left_out:
        return output
    return replace(output, usage={**output.usage, "not_preloaded": list(preloaded.left_out)})


def _anchored(finding: Finding, file: FileDiff) -> Finding:
    added = {line.number: line.text for line in file.added_lines}
    return finding.with_fingerprint(added.get(finding.line, finding.title))


def _without_denied(target: BatchTarget) -> tuple[BatchTarget | None, str]:
    """The batch without the files the security gate withholds (keys, ``.env``; None when
    that is all of them), and a note naming them ('' when none)."""
    gate = Gate()
    kept: list[FileHunks] = []
    denied: list[str] = []
    for part in target.parts:
        reason = gate.reason(part.file.path)
        if reason is None:
            kept.append(part)
        else:
            denied.append(f"{part.file.path} ({reason})")
    if not denied:
        return target, ""
    note = "; ".join(dict.fromkeys(denied))
    if not kept:
        return None, note
    return replace(target, file=kept[0].file, hunks=kept[0].hunks, rest=tuple(kept[1:])), note


#: Bumped when the tools' behaviour changes what a review can see; part of the cache key.
TOOLS_VERSION = "2"
