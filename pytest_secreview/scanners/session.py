"""Run each scanner once per session and turn its results into one item's findings.

Once per session, not once per process: with pytest-xdist every worker is a process, and a
scanner is started by the first process that needs it, under a file lock in the session
directory the controller shares with its workers (:mod:`pytest_secreview.shared`). The others
wait on the lock and read the stored result. A scan of every changed file costs seconds
(semgrep starts its engine, loads rules and parses every target); running it in each worker
would multiply that by ``-n`` on a CI machine that has those cores busy with the review, and
every process reading one stored result guarantees the same findings whichever worker runs
an item. A crash is stored too, so every item of that scanner errors with the same message.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..atomic import write_text_atomic
from ..core.findings import Finding
from ..diff.model import FileDiff
from ..errors import EvaluationError, SecreviewError
from ..rules.matcher import Target
from ..rules.model import Rule
from ..rules.scanner_spec import BUILTIN, NO_SEMGREP_CONFIG
from ..severity import one_line
from ..tools.gittree import GitTree
from .bandit import Bandit
from .base import Adapter, RawFinding, ScannerCrashed, ScannerUnavailable, ScanOutput
from .builtin import DependencySettings, scan_revisions
from .semgrep import Semgrep
from .workspace import materialise

#: Every adapter, by the name a rule's ``scanner.name`` uses.
ADAPTERS: dict[str, Adapter] = {"bandit": Bandit(), "semgrep": Semgrep()}

#: Time allowed for one scanner run over the changed files, in seconds.
SCAN_TIMEOUT = 900.0

#: Config file names semgrep reads from a directory.
_CONFIG_SUFFIXES = (".yml", ".yaml", ".json")


@dataclass(frozen=True)
class ScanResult:
    """A scanner's findings on one item's file, and why part of it was not scanned."""

    findings: tuple[Finding, ...]
    note: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


class ScannerSession:
    """The scanners of one review, for one process. Thread-safe; results memoised."""

    def __init__(
        self,
        *,
        repo: Path,
        head_sha: str,
        targets: Callable[[Rule], Sequence[str]],
        shared_dir: Path | None = None,
        semgrep_configs: Sequence[Path] = (),
        base_sha: str | None = None,
        timeout: float = SCAN_TIMEOUT,
        change_base: str | None = None,
        dependencies: DependencySettings | None = None,
    ) -> None:
        """``targets(rule)`` is the changed paths the rule's items cover (the same list in
        every process); ``shared_dir`` is the session directory (None: this process only);
        semgrep configs inside ``repo`` are read from ``base_sha`` when it is given, so a
        pull request cannot weaken the rules that judge it. ``change_base`` is the pull
        request's base commit (the merge base), the revision the built-in dependency checks
        compare the head with (default ``base_sha``); ``dependencies`` their settings (the
        advisory source)."""
        self.repo = repo
        self.head_sha = head_sha
        self.targets = targets
        self.shared_dir = shared_dir
        self.semgrep_configs = tuple(semgrep_configs)
        self.base_sha = base_sha
        self.timeout = timeout
        self.change_base = change_base or base_sha
        self.dependencies = dependencies or DependencySettings()
        self._memo: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._background: list[threading.Thread] = []

    def start(self, rules: Iterable[Rule]) -> None:
        """Start the scanners of ``rules`` now, each in a background thread: the scanner is
        a subprocess, so it works on another core while the session's other items run, and
        the items of ``rules`` read its result (waiting for it if need be). What the
        scanner finds, or why it could not run, is the same as when an item starts it."""
        for rule in {id(r): r for r in rules if r.scanner is not None}.values():
            thread = threading.Thread(target=self._prefetch, args=(rule,), daemon=True,
                                      name=f"secreview-scanner-{rule.id}")
            thread.start()
            self._background.append(thread)

    def _prefetch(self, rule: Rule) -> None:
        # Stored, or raised again when one of the rule's items asks: that item reports it.
        with contextlib.suppress(ScannerUnavailable, ScannerCrashed):
            self.output(rule)

    def wait(self) -> None:
        """Wait for the scanners :meth:`start` started (a session that stops early, -x or
        an interruption, leaves no scanner running and no scratch directory behind)."""
        for thread in self._background:
            thread.join()
        self._background.clear()

    def output(self, rule: Rule) -> ScanOutput:
        """The scanner's output over every file of ``rule``'s items: run now, or read from
        the session's earlier run. Raises :class:`ScannerUnavailable` or
        :class:`ScannerCrashed`."""
        assert rule.scanner is not None
        name = rule.scanner.name
        paths = sorted(set(self.targets(rule)))
        if name in BUILTIN:
            missing = self.dependencies.unavailable(name)
            if missing is not None:
                raise ScannerUnavailable(missing)
            run: Callable[[], dict[str, Any]] = functools.partial(self._run_builtin, name,
                                                                  paths)
            settings = [name, [str(p) for p in self.dependencies.advisories],
                        self.dependencies.osv_url, self.change_base]
        else:
            adapter = ADAPTERS[name]
            missing = adapter.available()
            if missing is not None:
                raise ScannerUnavailable(missing)
            if adapter.name == "semgrep" and not self.semgrep_configs:
                raise ScannerUnavailable(NO_SEMGREP_CONFIG)
            run = functools.partial(self._run, adapter, rule, paths)
            settings = [adapter.name, list(rule.scanner.args),
                        [str(c) for c in self.semgrep_configs]]
        key = hashlib.sha256(json.dumps([*settings, self.head_sha, paths]).encode()
                             ).hexdigest()[:32]
        with self._lock:
            if key not in self._memo:
                self._memo[key] = self._shared(key, run)
            stored = self._memo[key]
        if "crash" in stored:
            raise ScannerCrashed(str(stored["crash"]))
        if "unavailable" in stored:
            raise ScannerUnavailable(str(stored["unavailable"]))
        return ScanOutput.from_json(stored["output"])

    def _shared(self, key: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if self.shared_dir is None:
            return run()
        path = self.shared_dir / f"scanner-{key}.json"
        with FileLock(str(path) + ".lock"):
            try:
                loaded: dict[str, Any] = json.loads(path.read_text())
                return loaded
            except (FileNotFoundError, ValueError):
                pass
            result = run()
            write_text_atomic(path, json.dumps(result))
            return result

    def _run(self, adapter: Adapter, rule: Rule, paths: list[str]) -> dict[str, Any]:
        assert rule.scanner is not None
        scratch = Path(tempfile.mkdtemp(prefix=f"secreview-{adapter.name}-"))
        try:
            workdir, home = scratch / "src", scratch / "home"
            workdir.mkdir()
            home.mkdir()
            configs = self._configs(scratch / "configs") if adapter.name == "semgrep" else []
            if adapter.name == "semgrep" and not configs:
                names = ", ".join(str(c) for c in self.semgrep_configs)
                return {"unavailable": f"no semgrep rule file (.yml, .yaml, .json) in {names}; "
                        "configs inside the repository are read from the base revision, so "
                        "rule files this pull request adds are used once it is merged"}
            written, skipped = materialise(GitTree(self.repo, self.head_sha), paths, workdir)
            if written:
                output = adapter.scan(workdir, home, written, rule.scanner.args, configs,
                                      self.timeout)
            else:
                output = ScanOutput((), "", 0.0)
            output = replace(output, file_errors={**skipped, **output.file_errors},
                             run=uuid.uuid4().hex)
            return {"output": output.to_json()}
        except (SecreviewError, OSError) as exc:  # the scanner, git or the disk broke
            return {"crash": str(exc)}
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _run_builtin(self, name: str, paths: list[str]) -> dict[str, Any]:
        """A built-in dependency check over ``paths`` (stored like an external scan)."""
        try:
            output = scan_revisions(name, self.dependencies, self.repo, self.change_base,
                                    self.head_sha, paths)
            return {"output": replace(output, run=uuid.uuid4().hex).to_json()}
        except (SecreviewError, OSError) as exc:  # git, the disk or the advisory source
            return {"crash": str(exc)}

    def _configs(self, directory: Path) -> list[Path]:
        """The semgrep config files to pass: files outside the repository as they are; files
        inside it as they are at the base revision (written under ``directory``). A
        directory is expanded to its rule files."""
        from ..rules.loader import _read_from_revision

        configs: list[Path] = []
        for config in self.semgrep_configs:
            config = config.resolve()
            try:
                rel = config.relative_to(self.repo.resolve()).as_posix()
            except ValueError:
                rel = None
            if rel is None or self.base_sha is None:
                if config.is_dir():
                    configs += sorted(p for p in config.rglob("*")
                                      if p.is_file() and p.suffix in _CONFIG_SUFFIXES)
                else:
                    configs.append(config)
                continue
            blobs = _read_from_revision(self.repo, self.base_sha, rel, _CONFIG_SUFFIXES)
            for name, raw in sorted(blobs.items()):
                target = directory.joinpath(*name.split("/"))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(raw)
                configs.append(target)
        return configs


def scan_target(target: Target, session: ScannerSession | None,
                before: Sequence[Finding] = ()) -> ScanResult:
    """The findings ``target.rule``'s scanner reports on the added lines of the target's
    files (an item of a scanner rule holds several: :func:`pytest_secreview.triage.plan.
    scanner_items`).

    A scanner that is not installed (or semgrep without configs) gives no findings and a
    note (the item is skipped with it, never passed); one that crashed raises
    :class:`EvaluationError` carrying ``before`` (the pattern findings still count).
    """
    rule = target.rule
    assert rule.scanner is not None
    name = rule.scanner.name
    if session is None:
        return ScanResult((), f"scanner {name} was not run: no scanner session in this run")
    try:
        output = session.output(rule)
    except ScannerUnavailable as exc:
        return ScanResult((), str(exc), {"scanner": name, "skipped": str(exc)})
    except ScannerCrashed as exc:
        error = EvaluationError(f"scanner {name} failed: {exc}")
        error.findings = tuple(before)
        error.usage_record = {"mode": "deterministic", "scanner": {"name": name}}
        raise error from None
    files = {part.file.path: part.file for part in target.parts}
    results = [raw for raw in output.findings if raw.path in files]
    added = {path: {line.number: line.text for line in files[path].added_lines}
             for path in {raw.path for raw in results}}
    findings = [finding for raw in results
                for finding in (_tied(rule, files[raw.path], raw) if raw.anchor is not None
                                else _on_added_lines(rule, files[raw.path], added[raw.path],
                                                     raw))]
    problems = [f"{name} could not scan {one_line(path)}: {one_line(output.file_errors[path])}"
                for path in files if path in output.file_errors]
    note = "; ".join(problems[:_MAX_PROBLEMS]) or None
    if len(problems) > _MAX_PROBLEMS:
        note = f"{note}; and {len(problems) - _MAX_PROBLEMS} more file(s) it could not scan"
    info = {"scanner": name, "version": output.version, "run": output.run,
            "seconds": round(output.seconds, 3), "files": len(files),
            "results_in_files": len(results), "kept_on_added_lines": len(findings)}
    return ScanResult(tuple(findings), note, info)


#: Files an item's note names when the scanner could not read several of them.
_MAX_PROBLEMS = 5


#: A scanner result spanning more lines than this is anchored at its first line only.
_MAX_SPAN = 500


def _tied(rule: Rule, file: FileDiff, raw: RawFinding) -> list[Finding]:
    """A built-in scanner's result, which it tied to the change itself (see
    :attr:`RawFinding.anchor`): on its line, its anchor as the fingerprint's text."""
    from ..tools.redaction import redact

    assert rule.scanner is not None and raw.anchor is not None
    message = redact(one_line(raw.message))
    check = one_line(raw.check_id)
    title = f"{check}: {message}"
    explanation = f"{rule.scanner.name} reports {check}: {message}"
    if raw.more_info:  # an advisory's details and affected functions
        explanation += f" {redact(one_line(raw.more_info))}"
    finding = Finding(
        rule=rule.id, severity=raw.severity,
        title=(title[:297] + "...") if len(title) > 300 else title,
        path=file.path, line=raw.line, source=f"scanner:{rule.scanner.name}",
        category=rule.category, cwe=raw.cwe or rule.cwe,
        explanation=explanation,
        recommendation=redact(one_line(raw.recommendation or rule.description)),
        confidence=raw.confidence,
    )
    return [finding.with_fingerprint(f"{raw.check_id}\0{raw.anchor}")]


def _on_added_lines(rule: Rule, file: FileDiff, added: dict[int, str], raw: Any
                    ) -> list[Finding]:
    """``raw`` as a finding of ``rule`` on ``file`` when it touches an added line
    (``added``: line number -> text)."""
    from ..tools.redaction import redact

    last = min(raw.end_line, raw.line + _MAX_SPAN)
    lines = [n for n in range(raw.line, last + 1) if n in added]
    if not lines:
        return []  # on an unchanged line: the pull request did not introduce it
    assert rule.scanner is not None
    line = raw.line if raw.line in added else lines[0]
    message = redact(one_line(raw.message))
    check = one_line(raw.check_id)
    title = f"{check}: {message}" if check else message
    explanation = f"{rule.scanner.name} reports {check or 'a problem'}: {message}"
    if raw.more_info:
        explanation += f" ({one_line(raw.more_info)})"
    finding = Finding(
        rule=rule.id,
        severity=raw.severity,
        title=(title[:197] + "...") if len(title) > 200 else title,
        path=file.path,
        line=line,
        end_line=raw.end_line if raw.end_line > line else None,
        source=f"scanner:{rule.scanner.name}",
        category=rule.category,
        cwe=raw.cwe or rule.cwe,
        explanation=explanation,
        recommendation=rule.description,
        confidence=raw.confidence,
    )
    # The check id is part of the anchor: two checks on one line are two findings.
    return [finding.with_fingerprint(f"{raw.check_id}\0{added[line]}")]
