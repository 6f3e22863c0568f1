"""Parse one rule file's bytes into a :class:`Rule`, or a :class:`RuleError` that names the
file, the key and the problem."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

import yaml
from pydantic import ValidationError

from ..errors import RuleError
from ..safe_regex import SafePattern
from .loader import RuleSource
from .model import (
    Coverage,
    Detect,
    Example,
    Rule,
    RuleExamples,
    RuleFrontmatter,
    ScannerUse,
    content_sha,
    split_body,
)
from .taint import compile_taint


def _safe_base() -> type[yaml.SafeLoader]:
    """libyaml's parser when it is usable (several times faster on a rule pack), the same
    safe constructor either way. The C module keeps the node classes of the first import of
    ``yaml``; if ``yaml`` was imported again since (pytester's in-process runs restore
    ``sys.modules``), its nodes are not ours and the pure-Python parser must be used."""
    c_module = getattr(yaml, "_yaml", None)
    if c_module is not None and getattr(c_module, "ScalarNode", None) is yaml.nodes.ScalarNode:
        loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return loader
    return yaml.SafeLoader


_SafeBase = _safe_base()


class _Yaml12Loader(_SafeBase):  # type: ignore[valid-type,misc]
    """PyYAML's safe loader with YAML 1.2 booleans: only true/false. Under YAML 1.1 the key
    ``on:`` (of ``detect``) and values like ``no`` or ``off`` would silently become booleans."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def parse_rule(raw: bytes, source: str) -> Rule:
    """Parse the markdown rule ``raw`` whose display path is ``source``."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RuleError(source, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise RuleError(source, "missing YAML frontmatter: the file must start with a '---' line")
    end = text.find("\n---", 4)
    if end == -1:
        raise RuleError(source, "unterminated YAML frontmatter: add a closing '---' line")
    header = text[4:end]
    after = text[end + 4 :]
    body = after.split("\n", 1)[1] if "\n" in after else ""
    try:
        data: Any = yaml.load(header, Loader=_Yaml12Loader) or {}  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RuleError(source, f"invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise RuleError(source, "the frontmatter must be a YAML mapping of keys to values")
    # Every problem at once, so a rule author fixes the file in one go: the key errors and
    # the patterns that do not compile.
    bad = _bad_patterns(data)
    try:
        front = RuleFrontmatter.model_validate(data)
    except ValidationError as exc:
        problems: list[tuple[str | None, str]] = []
        for err in exc.errors():
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown key; see schemas/rule.schema.json for the keys a rule may have"
            key = ".".join(str(p) for p in err["loc"]) or None
            problems.append((key, f"{msg}; got {err.get('input')!r}"))
        raise _all_problems(source, problems + bad) from None
    if bad:
        raise _all_problems(source, bad)
    rule_id = front.id or PurePosixPath(source).stem
    instructions, template = split_body(body)
    if front.coverage is not None:
        if front.grep.all or front.grep.any or front.grep.removed:
            raise RuleError(source, "a coverage rule reviews every hunk no other rule matched; "
                            "remove its grep patterns", key="grep")
        if not instructions:
            raise RuleError(source, "a coverage rule is a model review; write the reviewer's "
                            "instructions in the body", key="coverage")
    return Rule(
        id=rule_id,
        title=front.title,
        source=source,
        severity=front.severity,
        instructions=instructions,
        content_sha=content_sha(raw),
        description=front.description,
        category=front.category,
        cwe=front.cwe,
        owasp=front.owasp,
        documentation_link=front.documentation_link,
        paths=tuple(front.applies_to.paths),
        exclude=tuple(front.applies_to.exclude),
        file_extensions=tuple(e.lower() for e in front.applies_to.file_extensions),
        grep_all=_compile(source, "grep.all", front.grep.all),
        grep_any=_compile(source, "grep.any", front.grep.any),
        grep_removed=_compile(source, "grep.removed", front.grep.removed),
        detect=tuple(
            Detect(
                pattern=_compile(source, f"detect.{i}.pattern", [d.pattern])[0],
                message=d.message,
                severity=d.severity or front.severity,
                on=d.on,
                unless=_compile(source, f"detect.{i}.unless", [d.unless])[0] if d.unless else None,
                recommendation=d.recommendation,
                setting=d.setting,
                within=d.within,
                credential=d.credential,
                opt_out_parameters=frozenset(d.opt_out_parameters),
            )
            for i, d in enumerate(front.detect)
        ),
        comment_template=template,
        taint=compile_taint(rule_id, front.cwe, front.severity, front.taint)
        if front.taint is not None else None,
        model=front.model,
        scope=front.scope,
        max_turns=front.max_turns,
        precedents=tuple(p.strip() for p in front.precedents),
        scanner=(ScannerUse(front.scanner.name, tuple(front.scanner.args),
                            front.scanner.files_per_item, front.scanner.chars_per_item)
                 if front.scanner is not None else None),
        coverage=Coverage(**front.coverage.model_dump()) if front.coverage else None,
        examples=_examples(source, front.examples, front.applies_to.file_extensions),
    )


def parse_rules(sources: Iterable[RuleSource]) -> list[tuple[RuleSource, Rule | RuleError]]:
    """Every rule file parsed, sorted by display path; a file that does not parse keeps its
    error. Two files with one id are both errors naming each other: which one would judge the
    pull request is not a choice to make silently (a file requested twice is read once)."""
    unique = {source.display: source for source in sources}
    parsed: list[tuple[RuleSource, Rule | RuleError]] = []
    for display in sorted(unique):
        try:
            parsed.append((unique[display], parse_rule(unique[display].raw, display)))
        except RuleError as exc:
            parsed.append((unique[display], exc))
    files_of: dict[str, list[str]] = {}
    for source, rule in parsed:
        if isinstance(rule, Rule):
            files_of.setdefault(rule.id, []).append(source.display)
    return [(source, _duplicate(rule, files_of[rule.id])
             if isinstance(rule, Rule) and len(files_of[rule.id]) > 1 else rule)
            for source, rule in parsed]


def _duplicate(rule: Rule, files: list[str]) -> RuleError:
    others = ", ".join(f for f in files if f != rule.source)
    return RuleError(rule.source, f"rule id {rule.id!r} is also the id of {others}: every rule "
                     "needs its own id; rename one file or give it another `id:` (to replace a "
                     "bundled rule, leave :bundled out of --secreview-rules)", key="id")


def _examples(
    source: str, examples: RuleExamples | None, extensions: list[str]
) -> tuple[Example, ...]:
    """The ``examples:`` key resolved: every example with the path it is added at."""
    if examples is None:
        return ()
    default = examples.path or (f"example{extensions[0].lower()}" if extensions else None)
    resolved: list[Example] = []
    for bad, cases in ((True, examples.bad), (False, examples.good)):
        for i, case in enumerate(cases):
            path = case.path or default
            if path is None:
                kind = "bad" if bad else "good"
                raise RuleError(
                    source, "the rule has no file_extensions, so its examples need a path: "
                    "add 'path: <a file the rule applies to>' under examples (or to this "
                    "example)", key=f"examples.{kind}.{i}")
            resolved.append(Example(code=case.code, path=path, bad=bad, before=case.before,
                                    fill=tuple(sorted(examples.fill.items()))))
    return tuple(resolved)


def _compile(source: str, key: str, patterns: list[str]) -> tuple[SafePattern, ...]:
    compiled = []
    for i, pattern in enumerate(patterns):
        try:
            compiled.append(SafePattern(pattern))
        except ValueError as exc:
            where = key if key.startswith("detect") else f"{key}.{i}"
            raise RuleError(source, str(exc), key=where) from None
    return tuple(compiled)


def _bad_patterns(data: dict[Any, Any]) -> list[tuple[str | None, str]]:
    """``(key, problem)`` for every pattern string of the frontmatter that does not compile
    (read from the raw mapping, so they are found even when other keys are invalid)."""
    keyed: list[tuple[str, object]] = []
    grep = data.get("grep")
    if isinstance(grep, dict):
        for part in ("all", "any", "removed"):
            patterns = grep.get(part)
            if isinstance(patterns, list):
                keyed += [(f"grep.{part}.{i}", p) for i, p in enumerate(patterns)]
    detects = data.get("detect")
    if isinstance(detects, list):
        for i, detect in enumerate(detects):
            if isinstance(detect, dict):
                keyed += [(f"detect.{i}.{k}", detect.get(k)) for k in ("pattern", "unless")]
    problems: list[tuple[str | None, str]] = []
    for key, pattern in keyed:
        if not isinstance(pattern, str):
            continue  # a missing or mistyped pattern is the schema's problem to report
        try:
            SafePattern(pattern)
        except ValueError as exc:
            problems.append((key, str(exc)))
    return problems


def _all_problems(source: str, problems: list[tuple[str | None, str]]) -> RuleError:
    """One problem reads as before (``path: key 'k': problem``); several are listed, one a
    line, each with its key."""
    if len(problems) == 1:
        key, message = problems[0]
        return RuleError(source, message, key=key)
    listed = "\n".join(f"  - key {key!r}: {message}" if key else f"  - {message}"
                       for key, message in problems)
    return RuleError(source, f"{len(problems)} problems:\n{listed}")
