"""Parse one rule file's bytes into a :class:`Rule`, or a :class:`RuleError` that names the
file, the key and the problem."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

import yaml
from pydantic import ValidationError

from ..errors import RuleError
from .model import Coverage, Detect, Rule, RuleFrontmatter, ScannerUse, content_sha, split_body
from .regex import SafePattern
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
    )


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
