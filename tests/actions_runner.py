"""An emulator of the GitHub Actions runner, for tests that run the shipped workflows for real.

It runs a workflow's jobs the way the runner does, step by step, on this machine and offline:

- ``run:`` steps as script files under the shell GitHub documents (unspecified on Linux:
  ``bash -e {0}``; ``shell: bash``: ``bash --noprofile --norc -eo pipefail {0}``; ``sh``:
  ``sh -e {0}``), with the environment built as the runner builds it (machine, runner
  variables, ``GITHUB_ENV``, then the workflow's, job's and step's ``env:``) and the step's
  ``working-directory`` (else ``defaults.run``, else ``GITHUB_WORKSPACE``);
- the runner files between steps: ``GITHUB_ENV`` and ``GITHUB_OUTPUT`` (``NAME=value`` and the
  ``NAME<<DELIMITER`` form), ``GITHUB_PATH`` (prepended to ``PATH`` of later steps),
  ``GITHUB_STEP_SUMMARY`` (kept per job, :attr:`JobRun.summary`);
- GitHub's expression language (:func:`evaluate`, :func:`interpolate`, :func:`evaluate_if`):
  literals, contexts, ``.``/``[]``/``.*`` dereference, ``! == != < <= > >= && ||`` with GitHub's
  loose equality, case-insensitive strings and truthiness, and the documented functions;
- step and job results: ``outcome``/``conclusion``, ``continue-on-error``, ``if:`` with the
  implied ``success() &&``, jobs in ``needs`` order, matrices, job outputs, reusable workflows
  (``uses: OWNER/REPO/.github/workflows/X.yml@SHA``) and composite actions;
- ``uses:`` actions through a registry of stand-ins (:data:`STAND_INS`) that do, offline, what
  the real action does to the job: checkout, setup-python, google-github-actions/auth (OIDC
  only where GitHub grants it), upload-sarif and the JUnit reporters (through the fake GitHub
  API, so a read-only token fails them as it fails the real ones), artifacts and caches.

The GitHub the jobs talk to is :class:`ActionsGitHub`, a :class:`tests.fake_github.FakeGitHub`
that also serves code scanning uploads, check runs and the Actions OIDC token endpoint, and
gives each job's ``GITHUB_TOKEN`` exactly the permissions the workflow grants that job.

Known simplifications (each chosen because no shipped workflow depends on it): jobs and matrix
instances run one after another; ``concurrency:``, ``services:``, ``container:``, ``timeout``
of jobs and ``docker://`` actions are not emulated; caches are keyed by ``key`` alone (the real
service also versions a cache by its paths); the Python that setup-python provides is this
interpreter's version whatever ``python-version`` asks for.
"""

from __future__ import annotations

import base64
import fnmatch
import gzip
import hashlib
import importlib.util
import itertools
import json
import math
import os
import re
import secrets as _secrets
import shutil
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.distribution import FIXED_GIT_ENV
from tests.fake_github import Answer, FakeGitHub, _Reply

# =============================================================================================
# The expression language
# =============================================================================================


class ExpressionError(Exception):
    """An expression GitHub would refuse (syntax, unknown context or function, bad JSON)."""


class FilteredArray(list[Any]):
    """The result of an object filter (``a.*``): a later dereference applies to every item."""


#: The contexts GitHub knows; any other name at the top of an expression is an error.
CONTEXT_NAMES = frozenset({"github", "env", "vars", "job", "jobs", "steps", "runner", "secrets",
                           "strategy", "matrix", "needs", "inputs"})
STATUS_FUNCTIONS = frozenset({"success", "always", "failure", "cancelled"})

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def to_number(value: Any) -> float:
    """GitHub's conversion to a number: null 0, booleans 1/0, a string parsed as a number
    (empty: 0; hex ``0x``, octal ``0o``, surrounding spaces allowed; else NaN), arrays and
    objects NaN."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        sign = -1.0 if text.startswith("-") else 1.0
        body = text.lstrip("+-") if text[:1] in "+-" and text[1:2] in "0I" else text
        try:
            if body[:2].lower() == "0x":
                return sign * int(body[2:], 16)
            if body[:2].lower() == "0o":
                return sign * int(body[2:], 8)
        except ValueError:
            return math.nan
        if body == "Infinity":
            return sign * math.inf
        if _NUMBER.fullmatch(text):
            return float(text)
        return math.nan
    return math.nan


def _format_number(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == int(number) and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def to_string(value: Any) -> str:
    """How GitHub prints a value into a string: null is empty, booleans are ``true``/``false``,
    whole numbers have no decimal point, arrays and objects are their JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _format_number(float(value))
    if isinstance(value, str):
        return value
    return to_json(value)


def to_json(value: Any) -> str:
    """``toJSON``: pretty-printed with two spaces, whole numbers without a decimal point."""

    def plain(item: Any) -> Any:
        if isinstance(item, float) and item == int(item) and abs(item) < 1e15:
            return int(item)
        if isinstance(item, Mapping):
            return {str(k): plain(v) for k, v in item.items()}
        if isinstance(item, list):
            return [plain(v) for v in item]
        return item

    return json.dumps(plain(value), indent=2)


def truthy(value: Any) -> bool:
    """GitHub's truthiness: false, 0, -0, NaN, '' and null are false; all else is true."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def loose_equal(left: Any, right: Any) -> bool:
    """GitHub's ``==``: same kinds compare as such (strings ignoring case, arrays and objects
    only as the same instance); different kinds are both converted to numbers."""
    kinds = (_kind(left), _kind(right))
    if kinds[0] == kinds[1]:
        if kinds[0] == "string":
            return bool(left.casefold() == right.casefold())
        if kinds[0] == "number":
            return float(left) == float(right)
        if kinds[0] == "object":
            return left is right
        return bool(left == right)
    return to_number(left) == to_number(right)


def _compare(left: Any, right: Any) -> int | None:
    """-1, 0 or 1 as GitHub orders two values; None when they cannot be ordered (NaN,
    arrays, objects)."""
    kinds = (_kind(left), _kind(right))
    if "object" in kinds:
        return None
    if kinds == ("string", "string"):
        a, b = str(left).casefold(), str(right).casefold()
        return (a > b) - (a < b)
    x, y = to_number(left), to_number(right)
    if math.isnan(x) or math.isnan(y):
        return None
    return (x > y) - (x < y)


def _lookup(container: Any, key: Any) -> Any:
    """``container[key]``: object keys ignore case (``github.EVENT_NAME`` works), array
    indexes are numbers; anything missing is null."""
    if isinstance(container, FilteredArray):
        found: list[Any] = FilteredArray()
        for item in container:
            value = _lookup(item, key)
            if isinstance(value, FilteredArray):
                found.extend(value)
            elif value is not None:
                found.append(value)
        return found
    if isinstance(container, Mapping):
        if key == "*":
            return FilteredArray(container.values())
        name = to_string(key)
        if name in container:
            return container[name]
        folded = name.casefold()
        for candidate, value in container.items():
            if str(candidate).casefold() == folded:
                return value
        return None
    if isinstance(container, list):
        if key == "*":
            return FilteredArray(container)
        number = to_number(key)
        if math.isnan(number) or number != int(number) or not 0 <= number < len(container):
            return None
        return container[int(number)]
    return None


_TOKEN = re.compile(r"""
    \s*(?:
      (?P<number>-?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
                 |-?Infinity|NaN)
    | (?P<string>'(?:[^']|'')*')
    | (?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])
    | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    )""", re.VERBOSE)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ExpressionError(f"unexpected symbol at {text[position:position + 20]!r} in "
                                  f"expression {text!r}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        # A number may not follow a value directly: `a-1` is no subtraction in this language.
        if kind == "number" and value.startswith("-") and tokens and (
                tokens[-1][0] in ("number", "string", "name")
                or tokens[-1][1] in (")", "]")):
            raise ExpressionError(f"unexpected symbol '-' in expression {text!r}")
        tokens.append((kind, value))
        position = match.end()
    return tokens


Node = tuple[Any, ...]


class _Parser:
    """Recursive descent over GitHub's precedence: ``||`` < ``&&`` < ``== !=`` <
    ``< <= > >=`` < ``!`` < dereference, index and call."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0

    def parse(self) -> Node:
        if not self.tokens:
            raise ExpressionError("empty expression")
        node = self._or()
        if self.position != len(self.tokens):
            raise ExpressionError(f"unexpected {self.tokens[self.position][1]!r} in expression "
                                  f"{self.text!r}")
        return node

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _accept(self, value: str) -> bool:
        token = self._peek()
        if token is not None and token[0] == "op" and token[1] == value:
            self.position += 1
            return True
        return False

    def _expect(self, value: str) -> None:
        if not self._accept(value):
            found = self._peek()
            raise ExpressionError(f"expected {value!r}, found "
                                  f"{found[1] if found else 'the end'!r} in {self.text!r}")

    def _or(self) -> Node:
        node = self._and()
        while self._accept("||"):
            node = ("or", node, self._and())
        return node

    def _and(self) -> Node:
        node = self._equality()
        while self._accept("&&"):
            node = ("and", node, self._equality())
        return node

    def _equality(self) -> Node:
        node = self._comparison()
        while True:
            for op in ("==", "!="):
                if self._accept(op):
                    node = (op, node, self._comparison())
                    break
            else:
                return node

    def _comparison(self) -> Node:
        node = self._unary()
        while True:
            for op in ("<=", ">=", "<", ">"):
                if self._accept(op):
                    node = (op, node, self._unary())
                    break
            else:
                return node

    def _unary(self) -> Node:
        if self._accept("!"):
            return ("not", self._unary())
        return self._postfix(self._primary())

    def _primary(self) -> Node:
        token = self._peek()
        if token is None:
            raise ExpressionError(f"expression {self.text!r} ends too early")
        kind, value = token
        self.position += 1
        if kind == "number":
            return ("literal", to_number(value) if value not in ("NaN",) else math.nan)
        if kind == "string":
            return ("literal", value[1:-1].replace("''", "'"))
        if kind == "op" and value == "(":
            node = self._or()
            self._expect(")")
            return node
        if kind == "name":
            lowered = value.lower()
            if lowered in ("true", "false"):
                return ("literal", lowered == "true")
            if lowered == "null":
                return ("literal", None)
            if self._accept("("):
                args: list[Node] = []
                if not self._accept(")"):
                    args.append(self._or())
                    while self._accept(","):
                        args.append(self._or())
                    self._expect(")")
                return ("call", lowered, args)
            if lowered not in CONTEXT_NAMES:
                raise ExpressionError(f"Unrecognized named-value: {value!r} in {self.text!r}")
            return ("context", lowered)
        raise ExpressionError(f"unexpected {value!r} in expression {self.text!r}")

    def _postfix(self, node: Node) -> Node:
        while True:
            if self._accept("."):
                token = self._peek()
                if token is not None and token[0] == "op" and token[1] == "*":
                    self.position += 1
                    node = ("index", node, ("literal", "*"))
                elif token is not None and token[0] == "name":
                    self.position += 1
                    node = ("index", node, ("literal", token[1]))
                else:
                    raise ExpressionError(f"a property name must follow '.' in {self.text!r}")
            elif self._accept("["):
                if self._accept("*"):
                    key: Node = ("literal", "*")
                else:
                    key = self._or()
                self._expect("]")
                node = ("index", node, key)
            else:
                return node


def parse(text: str) -> Node:
    """The syntax tree of an expression (without ``${{ }}``)."""
    return _Parser(text).parse()


def uses_status_function(node: Node) -> bool:
    """True when the tree calls success(), always(), failure() or cancelled()."""
    if node[0] == "call" and node[1] in STATUS_FUNCTIONS:
        return True
    return any(isinstance(part, tuple) and uses_status_function(part) for part in node[1:]) or \
        any(isinstance(part, list) and any(uses_status_function(a) for a in part)
            for part in node[1:])


@dataclass
class Status:
    """What the status functions answer: ``failed`` (a step or a needed job failed) and
    ``cancelled`` (the run was cancelled)."""

    failed: bool = False
    cancelled: bool = False


def hash_files(workspace: Path, patterns: Iterable[str]) -> str:
    """``hashFiles``: the SHA-256 over the SHA-256 of every file under ``workspace`` matching
    the patterns (``**`` globs, ``!`` excludes), in path order; empty when none matches."""
    included: set[Path] = set()
    for pattern in patterns:
        negate = pattern.startswith("!")
        matches = {p for p in workspace.glob(pattern.lstrip("!")) if p.is_file()}
        included = included - matches if negate else included | matches
    files = sorted(p for p in included if p.resolve().is_relative_to(workspace.resolve()))
    if not files:
        return ""
    outer = hashlib.sha256()
    for path in files:
        outer.update(hashlib.sha256(path.read_bytes()).digest())
    return outer.hexdigest()


def _format(fmt: str, args: list[Any]) -> str:
    out: list[str] = []
    position = 0
    while position < len(fmt):
        char = fmt[position]
        if fmt.startswith("{{", position) or fmt.startswith("}}", position):
            out.append(char)
            position += 2
        elif char == "{":
            end = fmt.find("}", position)
            index = fmt[position + 1:end] if end > 0 else ""
            if not index.isdigit() or int(index) >= len(args):
                raise ExpressionError(f"format string {fmt!r} refers to a missing argument")
            out.append(to_string(args[int(index)]))
            position = end + 1
        elif char == "}":
            raise ExpressionError(f"format string {fmt!r} has an unmatched '}}'")
        else:
            out.append(char)
            position += 1
    return "".join(out)


_ARITY = {"contains": (2, 2), "startswith": (2, 2), "endswith": (2, 2), "format": (1, None),
          "join": (1, 2), "tojson": (1, 1), "fromjson": (1, 1), "hashfiles": (1, None),
          "success": (0, 0), "always": (0, 0), "failure": (0, 0), "cancelled": (0, 0)}


def _evaluate(node: Node, contexts: Mapping[str, Any], status: Status,
              workspace: Path | None) -> Any:
    kind = node[0]
    if kind == "literal":
        return node[1]
    if kind == "context":
        return contexts.get(node[1])
    if kind == "index":
        return _lookup(_evaluate(node[1], contexts, status, workspace),
                       _evaluate(node[2], contexts, status, workspace))
    if kind == "not":
        return not truthy(_evaluate(node[1], contexts, status, workspace))
    if kind == "and":
        left = _evaluate(node[1], contexts, status, workspace)
        return _evaluate(node[2], contexts, status, workspace) if truthy(left) else left
    if kind == "or":
        left = _evaluate(node[1], contexts, status, workspace)
        return left if truthy(left) else _evaluate(node[2], contexts, status, workspace)
    if kind in ("==", "!="):
        equal = loose_equal(_evaluate(node[1], contexts, status, workspace),
                            _evaluate(node[2], contexts, status, workspace))
        return equal if kind == "==" else not equal
    if kind in ("<", "<=", ">", ">="):
        order = _compare(_evaluate(node[1], contexts, status, workspace),
                         _evaluate(node[2], contexts, status, workspace))
        if order is None:
            return False
        return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[kind]
    if kind == "call":
        return _call(node[1], node[2], contexts, status, workspace)
    raise AssertionError(f"unknown node {kind}")


def _call(name: str, arg_nodes: list[Node], contexts: Mapping[str, Any], status: Status,
          workspace: Path | None) -> Any:
    if name not in _ARITY:
        raise ExpressionError(f"Unrecognized function: {name!r}")
    low, high = _ARITY[name]
    if len(arg_nodes) < low or (high is not None and len(arg_nodes) > high):
        raise ExpressionError(f"wrong number of arguments to {name}()")
    if name == "success":
        return not status.failed and not status.cancelled
    if name == "failure":
        return status.failed
    if name == "cancelled":
        return status.cancelled
    if name == "always":
        return True
    args = [_evaluate(a, contexts, status, workspace) for a in arg_nodes]
    if name == "contains":
        haystack, needle = args
        if isinstance(haystack, list):
            return any(loose_equal(item, needle) for item in haystack)
        return to_string(needle).casefold() in to_string(haystack).casefold()
    if name == "startswith":
        return to_string(args[0]).casefold().startswith(to_string(args[1]).casefold())
    if name == "endswith":
        return to_string(args[0]).casefold().endswith(to_string(args[1]).casefold())
    if name == "format":
        return _format(to_string(args[0]), args[1:])
    if name == "join":
        separator = to_string(args[1]) if len(args) > 1 else ","
        if isinstance(args[0], list):
            return separator.join(to_string(item) for item in args[0])
        return to_string(args[0])
    if name == "tojson":
        return to_json(args[0])
    if name == "fromjson":
        try:
            return json.loads(to_string(args[0]), parse_int=float)  # numbers are doubles
        except ValueError as exc:
            raise ExpressionError(f"fromJSON: {to_string(args[0])!r} is not JSON ({exc})") from None
    if workspace is None:
        raise ExpressionError("hashFiles() is only available in a job's steps")
    return hash_files(workspace, [to_string(a) for a in args])


def evaluate(text: str, contexts: Mapping[str, Any], *, status: Status | None = None,
             workspace: Path | None = None) -> Any:
    """The value of the expression ``text`` (without ``${{ }}``)."""
    return _evaluate(parse(text), contexts, status or Status(), workspace)


def _segments(text: str) -> Iterator[tuple[bool, str]]:
    """``text`` split into literal parts (False) and expressions (True); a ``}}`` inside a
    quoted string does not close an expression."""
    position = 0
    while True:
        start = text.find("${{", position)
        if start < 0:
            if position < len(text):
                yield False, text[position:]
            return
        if start > position:
            yield False, text[position:start]
        cursor, quoted = start + 3, False
        while cursor < len(text):
            if text[cursor] == "'":
                quoted = not quoted
            elif not quoted and text.startswith("}}", cursor):
                break
            cursor += 1
        else:
            raise ExpressionError(f"unclosed '${{{{' in {text!r}")
        yield True, text[start + 3:cursor]
        position = cursor + 2


def interpolate(text: str, contexts: Mapping[str, Any], *, status: Status | None = None,
                workspace: Path | None = None) -> str:
    """``text`` with every ``${{ expression }}`` replaced by its value as a string."""
    return "".join(
        to_string(evaluate(part, contexts, status=status, workspace=workspace)) if is_expr
        else part for is_expr, part in _segments(text))


def expand(value: Any, contexts: Mapping[str, Any], *, status: Status | None = None,
           workspace: Path | None = None) -> Any:
    """A YAML value with its expressions evaluated: a string that is exactly one
    ``${{ }}`` keeps the expression's type (``with:`` of a reusable workflow, a matrix),
    other strings are interpolated, mappings and lists are expanded item by item."""
    if isinstance(value, str):
        parts = list(_segments(value.strip()))
        if len(parts) == 1 and parts[0][0]:
            return evaluate(parts[0][1], contexts, status=status, workspace=workspace)
        return interpolate(value, contexts, status=status, workspace=workspace)
    if isinstance(value, Mapping):
        return {k: expand(v, contexts, status=status, workspace=workspace)
                for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, contexts, status=status, workspace=workspace) for v in value]
    return value


def evaluate_if(condition: Any, contexts: Mapping[str, Any], *, status: Status,
                workspace: Path | None = None) -> bool:
    """An ``if:``: without a status function it means ``success() && (condition)``; a
    condition wholly inside ``${{ }}`` is that expression; text around an expression makes
    it a (truthy) string, as on GitHub."""
    if condition is None or condition == "":
        return not status.failed and not status.cancelled
    if isinstance(condition, bool):
        text = "true" if condition else "false"
    elif isinstance(condition, (int, float)):
        text = to_string(condition)
    else:
        text = str(condition).strip()
    parts = list(_segments(text))
    if len(parts) == 1 and parts[0][0]:
        text = parts[0][1]
    elif any(is_expr for is_expr, _ in parts):
        return truthy(interpolate(text, contexts, status=status, workspace=workspace))
    tree = parse(text)
    if not uses_status_function(tree):
        tree = ("and", ("call", "success", []), tree)
    return truthy(_evaluate(tree, contexts, status, workspace))


# =============================================================================================
# Runner files: GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH
# =============================================================================================


def parse_env_file(text: str) -> dict[str, str]:
    """``NAME=value`` lines and ``NAME<<DELIMITER`` ... ``DELIMITER`` blocks, as the runner
    reads GITHUB_ENV and GITHUB_OUTPUT (a block without its delimiter is an error)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        if not line:
            continue
        heredoc = line.find("<<")
        equals = line.find("=")
        if heredoc > 0 and (equals < 0 or heredoc < equals):
            name, delimiter = line[:heredoc], line[heredoc + 2:]
            if not name or not delimiter:
                raise ValueError(f"invalid environment file line {line!r}")
            body: list[str] = []
            while index < len(lines) and lines[index].rstrip("\r") != delimiter:
                body.append(lines[index].rstrip("\r"))
                index += 1
            if index >= len(lines):
                raise ValueError(f"matching delimiter not found {delimiter!r}")
            index += 1
            values[name] = "\n".join(body)
        elif equals > 0:
            values[line[:equals]] = line[equals + 1:]
        else:
            raise ValueError(f"invalid environment file line {line!r}")
    return values


# =============================================================================================
# The fake GitHub of the jobs: REST API with per-token permissions, and the OIDC endpoint
# =============================================================================================

#: (method, path pattern under /repos/{o}/{r}) -> the permission a write needs.
_WRITE_SCOPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("POST", r"/issues/\d+/comments", ("issues", "pull-requests")),
    ("PATCH", r"/issues/comments/\d+", ("issues", "pull-requests")),
    ("POST", r"/pulls/\d+/reviews", ("pull-requests",)),
    ("POST", r"/pulls/\d+/comments/\d+/replies", ("pull-requests",)),
    ("POST", r"/code-scanning/sarifs", ("security-events",)),
    ("POST", r"/check-runs", ("checks",)),
    ("PATCH", r"/check-runs/\d+", ("checks",)),
)
_FORBIDDEN = {"message": "Resource not accessible by integration",
              "documentation_url": "https://docs.github.com/rest"}


@dataclass
class ActionsGitHub(FakeGitHub):
    """The fake GitHub API plus what GitHub Actions adds: every job's token with the
    permissions its workflow grants (a write beyond them is 403 "Resource not accessible by
    integration", as GitHub answers), ``read_only`` for a fork's pull request (every write
    403 whatever was granted), code scanning SARIF uploads, check runs, and the OIDC token
    endpoint behind ``ACTIONS_ID_TOKEN_REQUEST_URL``."""

    #: token -> the scopes it may write
    scopes: dict[str, frozenset[str]] = field(default_factory=dict)
    #: tokens of the OIDC endpoint (ACTIONS_ID_TOKEN_REQUEST_TOKEN) -> the job's subject
    oidc_requests: dict[str, str] = field(default_factory=dict)
    sarif_uploads: list[dict[str, Any]] = field(default_factory=list)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    #: OIDC tokens handed out (what google-github-actions/auth exchanged)
    id_tokens: list[str] = field(default_factory=list)

    def __enter__(self) -> ActionsGitHub:
        super().__enter__()
        return self

    def issue_token(self, write: Iterable[str]) -> str:
        """A new installation token that may write ``write``."""
        token = "ghs_" + _secrets.token_hex(18)
        self.scopes[token] = frozenset(write)
        return token

    def issue_oidc_request_token(self, subject: str) -> str:
        token = "oidc-request-" + _secrets.token_hex(12)
        self.oidc_requests[token] = subject
        return token

    @property
    def oidc_url(self) -> str:
        return self.origin + "/_actions/idtoken?api-version=2.0"

    def _check_auth(self, headers: dict[str, str]) -> None:
        given = headers.get("authorization", "")
        token = given.removeprefix("Bearer ").removeprefix("token ")
        if token in self.scopes or token in self.oidc_requests or \
                given == f"Bearer {self.token}":
            return
        raise _Reply(401, {"message": "Bad credentials",
                           "documentation_url": "https://docs.github.com/rest"})

    def _route(self, method: str, path: str, query: dict[str, str], headers: dict[str, str],
               raw: bytes) -> Answer:
        token = headers.get("authorization", "").removeprefix("Bearer ").removeprefix("token ")
        if path == "/_actions/idtoken":
            return self._id_token(token, query)
        prefix = f"/repos/{self.repository}"
        tail = path[len(prefix):] if path.startswith(prefix + "/") else None
        if tail is not None:
            for verb, pattern, needs in _WRITE_SCOPES:
                allowed = self.scopes.get(token, frozenset()) & set(needs)
                if verb == method and re.fullmatch(pattern, tail) and (
                        self.read_only or not allowed):
                    raise _Reply(403, _FORBIDDEN)
            if method == "POST" and tail == "/code-scanning/sarifs":
                return self._upload_sarif(raw)
            found = re.fullmatch(r"/code-scanning/sarifs/([\w-]+)", tail)
            if method == "GET" and found:
                return 200, {"processing_status": "complete", "analyses_url": None}, {}
            if method == "POST" and tail == "/check-runs":
                return self._create_check_run(raw)
        return super()._route(method, path, query, headers, raw)

    def _id_token(self, token: str, query: dict[str, str]) -> Answer:
        subject = self.oidc_requests.get(token)
        if subject is None:
            raise _Reply(401, {"message": "Bad credentials"})
        claims = {"sub": subject, "aud": query.get("audience", ""), "iss":
                  "https://token.actions.githubusercontent.com"}
        value = ("eyJhbGciOiJSUzI1NiJ9." + base64.urlsafe_b64encode(
            json.dumps(claims).encode()).decode().rstrip("=") + ".signature")
        self.id_tokens.append(value)
        return 200, {"value": value}, {}

    def _upload_sarif(self, raw: bytes) -> Answer:
        data = self._body(raw, {"commit_sha", "ref", "sarif", "checkout_uri", "started_at",
                                "tool_name", "validate"}, {"commit_sha", "ref", "sarif"})
        try:
            log = json.loads(gzip.decompress(base64.b64decode(data["sarif"])))
        except (ValueError, OSError):
            raise _Reply(400, {"message": "sarif is not gzip-compressed, base64-encoded "
                                          "JSON"}) from None
        upload = {"id": str(uuid.uuid4()), "commit_sha": data["commit_sha"],
                  "ref": data["ref"], "sarif": log}
        self.sarif_uploads.append(upload)
        return 202, {"id": upload["id"], "url": f"{self.api_url}/repos/{self.repository}/"
                                                f"code-scanning/sarifs/{upload['id']}"}, {}

    def _create_check_run(self, raw: bytes) -> Answer:
        data = self._body(raw, {"name", "head_sha", "status", "conclusion", "output",
                                "details_url", "external_id", "started_at", "completed_at"},
                          {"name", "head_sha"})
        run = {**data, "id": self.new_id()}
        self.check_runs.append(run)
        return 201, run, {}


# =============================================================================================
# What a run records
# =============================================================================================


@dataclass
class StepRecord:
    """One step of a job as it ended: ``ran`` False when its ``if:`` skipped it."""

    name: str
    id: str | None
    uses: str | None
    ran: bool
    outcome: str  # success | failure | skipped
    conclusion: str  # the outcome, or success for a failure under continue-on-error
    exit_code: int | None = None
    log: str = ""
    steps: list[StepRecord] = field(default_factory=list)  # a composite action's own
    run: str | None = None  # the script of a run: step, as written
    seconds: float = 0.0  # wall time (for a reader of describe(); tests never assert on it)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.outcome == "failure"


@dataclass
class JobRun:
    """One job (one matrix instance) as it ended."""

    job_id: str
    name: str
    result: str  # success | failure | cancelled | skipped
    steps: list[StepRecord] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    matrix: dict[str, Any] = field(default_factory=dict)
    workspace: Path | None = None
    temp: Path | None = None
    #: expressions or setup that failed before any step (GitHub shows these as the job's error)
    error: str = ""
    #: the jobs of a reusable workflow this job called
    called: list[JobRun] = field(default_factory=list)

    def all_steps(self) -> list[StepRecord]:
        """Every step, a composite action's steps right after the step that ran them."""

        def walk(steps: list[StepRecord]) -> Iterator[StepRecord]:
            for step in steps:
                yield step
                yield from walk(step.steps)

        return list(walk(self.steps))

    def first_failure(self) -> StepRecord | None:
        """The first step that failed (a composite's own failing step, not the composite)."""
        for step in self.steps:
            if step.failed:
                inner = next((s for s in step.steps if s.failed), None)
                return inner or step
        return None

    def describe(self, log_tail: int = 4000) -> str:
        """A readable account of the job for assertion messages: every step, and the end of
        the log of each that failed."""
        lines = [f"job {self.name} ({self.job_id}): {self.result}"
                 + (f" [{self.error}]" if self.error else "")]
        for step in self.all_steps():
            state = (f"{step.outcome}/{step.conclusion} exit {step.exit_code} "
                     f"({step.seconds:.1f}s)" if step.ran else "skipped")
            lines.append(f"  - {step.name}: {state}")
        for step in self.all_steps():
            if step.failed:
                lines.append(f"--- log of {step.name!r} (end) ---\n{step.log[-log_tail:]}")
        for called in self.called:
            lines.append(called.describe(log_tail))
        return "\n".join(lines)


@dataclass
class WorkflowRun:
    """Every job of a run, called workflows' jobs inside their caller's :attr:`JobRun.called`."""

    jobs: dict[str, list[JobRun]] = field(default_factory=dict)

    def result(self, job_id: str) -> str:
        """A job's result over its matrix: failure if any instance failed, and so on."""
        return _combined_result([run.result for run in self.jobs.get(job_id, [])])

    def all_jobs(self) -> list[JobRun]:
        found: list[JobRun] = []

        def walk(runs: Iterable[JobRun]) -> None:
            for run in runs:
                found.append(run)
                walk(run.called)

        walk(itertools.chain.from_iterable(self.jobs.values()))
        return found

    @property
    def conclusion(self) -> str:
        return _combined_result([self.result(job) for job in self.jobs])

    def describe(self) -> str:
        return "\n".join(run.describe() for runs in self.jobs.values() for run in runs)


def _combined_result(results: list[str]) -> str:
    for result in ("failure", "cancelled", "success"):
        if result in results:
            return result
    return "skipped"


# =============================================================================================
# Scenario: the event, the repositories and who is trusted
# =============================================================================================


@dataclass
class Event:
    """The event that started the run and the runner variables it implies."""

    name: str
    payload: dict[str, Any]
    sha: str
    ref: str
    base_ref: str = ""
    head_ref: str = ""
    actor: str = "octocat"

    @property
    def ref_name(self) -> str:
        parts = self.ref.split("/")
        if self.ref.startswith("refs/pull/"):
            return f"{parts[2]}/{parts[3]}"
        return self.ref.removeprefix("refs/heads/").removeprefix("refs/tags/")


@dataclass
class PythonToolcache:
    """What actions/setup-python provides: a fresh venv of ``base_python`` per job, with
    ``site_dirs`` on its ``sys.path`` through a ``.pth`` file (the dependencies a job would
    otherwise download), and ``pip``/``pip3`` commands like a toolcache Python's."""

    base_python: Path
    site_dirs: tuple[Path, ...] = ()


#: action name (owner/repo[/path], lower case) -> stand-in
StandIn = Callable[["ActionCall"], int]


class ActionNotEmulated(Exception):
    """A ``uses:`` the emulator has no stand-in for (or an unpinned one)."""


@dataclass
class ActionCall:
    """What a stand-in gets: its inputs (defaults applied by the stand-in), the step's
    environment, the job it runs in, and the runner files it may write."""

    name: str
    ref: str
    inputs: dict[str, str]
    env: dict[str, str]
    job: _Job
    log: list[str]

    def input(self, name: str, default: str = "") -> str:
        value = self.inputs.get(name)
        return default if value is None or value == "" else value

    def flag(self, name: str, default: bool) -> bool:
        value = self.input(name, "true" if default else "false").strip().lower()
        if value not in ("true", "false"):
            raise ValueError(f"Input does not meet YAML 1.2 \"Core Schema\" specification: {name}")
        return value == "true"

    def output(self, name: str, value: str) -> None:
        _append_kv(Path(self.env["GITHUB_OUTPUT"]), name, value)

    def export(self, name: str, value: str) -> None:
        _append_kv(Path(self.env["GITHUB_ENV"]), name, value)

    def add_path(self, directory: Path) -> None:
        with open(self.env["GITHUB_PATH"], "a", encoding="utf-8") as handle:
            handle.write(f"{directory}\n")

    def summary(self, markdown: str) -> None:
        with open(self.env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as handle:
            handle.write(markdown)

    def fail(self, message: str) -> int:
        """core.setFailed: an error annotation and exit status 1."""
        self.log.append(f"::error::{message}")
        return 1

    def warning(self, message: str) -> None:
        self.log.append(f"::warning::{message}")

    def api(self, method: str, path: str, body: Any = None,
            token: str | None = None) -> httpx.Response:
        """A call to the job's GitHub API with the action's ``token`` input (default the
        job's token), as Octokit would make it."""
        headers = {"Authorization": f"Bearer {token or self.input('token', self.job.token)}",
                   "Accept": "application/vnd.github+json"}
        with httpx.Client(timeout=30) as client:
            return client.request(method, self.job.runner.github.api_url + path, json=body,
                                  headers=headers)


def _append_kv(path: Path, name: str, value: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        if "\n" in value:
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            handle.write(f"{name}={value}\n")


_SHA = re.compile(r"[0-9a-f]{40}")
_READ_SCOPES = ("actions", "attestations", "checks", "contents", "deployments", "discussions",
                "id-token", "issues", "models", "packages", "pages", "pull-requests",
                "repository-projects", "security-events", "statuses")
#: A job without any ``permissions:`` gets the repository's default; the restricted default
#: (GitHub's for new repositories) reads contents and packages.
RESTRICTED_DEFAULT = {"contents": "read", "packages": "read", "metadata": "read"}


def effective_permissions(spec: Any, default: Mapping[str, str] | None = None
                          ) -> dict[str, str]:
    """A ``permissions:`` value as scope -> read|write (``read-all``/``write-all``, ``{}`` is
    none, None is ``default``)."""
    if spec is None:
        return dict(default if default is not None else RESTRICTED_DEFAULT)
    if spec == "read-all":
        return {scope: "read" for scope in _READ_SCOPES if scope != "id-token"}
    if spec == "write-all":
        return {scope: "write" for scope in _READ_SCOPES}
    if not isinstance(spec, Mapping):
        raise ValueError(f"permissions {spec!r} is neither a mapping nor read-all/write-all")
    return {str(k): str(v) for k, v in spec.items() if v in ("read", "write")}


def _at_most(asked: Mapping[str, str], allowed: Mapping[str, str], where: str) -> None:
    """A called workflow's job may not ask for more than its caller grants: GitHub refuses
    to start the run ("The nested job ... is requesting ..., but is only allowed ...")."""
    rank = {"none": 0, "read": 1, "write": 2}
    for scope, level in asked.items():
        if rank[level] > rank[allowed.get(scope, "none")]:
            raise WorkflowInvalid(f"the nested job {where!r} is requesting '{scope}: {level}', "
                                  f"but is only allowed '{scope}: "
                                  f"{allowed.get(scope, 'none')}'")


class WorkflowInvalid(Exception):
    """A workflow GitHub would refuse to run (GitHub shows a startup failure)."""


# =============================================================================================
# The runner
# =============================================================================================


def load_workflow(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A workflow (or action) as a mapping; YAML 1.1's ``on: true`` key read back as ``on``."""
    if isinstance(source, Mapping):
        loaded: Any = dict(source)
    else:
        text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
        loaded = yaml.safe_load(text)
    if not isinstance(loaded, dict):
        raise WorkflowInvalid("a workflow is a mapping")
    if True in loaded:
        loaded["on"] = loaded.pop(True)
    return loaded


class Runner:
    """Runs workflows for one scenario: an event in ``repository``, with the scenario's
    ``secrets`` and ``vars``, against ``github``.

    ``fork_pull_request`` is what GitHub does for a ``pull_request`` from a fork: the token is
    read-only (``github`` in read-only mode), ``secrets.*`` are empty except ``GITHUB_TOKEN``,
    ``vars`` too (GitHub passes no configuration variables to such runs), and no job gets an
    OIDC token whatever ``id-token`` it asks for. ``repositories`` maps ``owner/name`` to
    local git repositories: clones, composite actions and reusable workflows come from
    them, and git itself resolves ``https://github.com/owner/name`` to them
    (``url.<path>.insteadOf`` in the runner's global git configuration), so a ``pip install
    git+https://github.com/...`` inside a step is served offline.
    """

    def __init__(self, root: Path, *, github: ActionsGitHub, event: Event, repository: str,
                 repositories: Mapping[str, Path], python: PythonToolcache | None = None,
                 secrets: Mapping[str, str] | None = None, vars: Mapping[str, str] | None = None,
                 fork_pull_request: bool = False, machine_env: Mapping[str, str] | None = None,
                 stand_ins: Mapping[str, StandIn] | None = None,
                 google_endpoint: str | None = None, step_timeout: float = 900.0) -> None:
        self.root = root
        self.github = github
        self.event = event
        self.repository = repository
        self.repositories = dict(repositories)
        self.python = python
        self.fork_pull_request = fork_pull_request
        self.secrets = {} if fork_pull_request else dict(secrets or {})
        self.vars = {} if fork_pull_request else dict(vars or {})
        self.stand_ins = dict(STAND_INS if stand_ins is None else stand_ins)
        self.google_endpoint = google_endpoint
        self.step_timeout = step_timeout
        self.run_id = str(1000 + int.from_bytes(os.urandom(3), "big"))
        #: what the JUnit reporter stand-ins read, in order
        self.junit_reads: list[JUnitCounts] = []
        self.store = root / "store"  # artifacts and caches of this run
        self.home = root / "home"
        for directory in (self.store / "artifacts", self.store / "caches", self.home):
            directory.mkdir(parents=True, exist_ok=True)
        self.event_path = root / "event.json"
        self.event_path.write_text(json.dumps(event.payload, indent=2), encoding="utf-8")
        self.gitconfig = root / "gitconfig"
        self.gitconfig.write_text(self._gitconfig(), encoding="utf-8")
        self.machine_env = self._machine_env(machine_env or {})
        self._jobs = itertools.count(1)

    # -- the machine ------------------------------------------------------------------------

    def _gitconfig(self) -> str:
        lines = ["[user]", "\tname = runner", "\temail = runner@localhost",
                 "[init]", "\tdefaultBranch = main", "[advice]", "\tdetachedHead = false"]
        for name, path in sorted(self.repositories.items()):
            lines += [f'[url "file://{path}"]', f"\tinsteadOf = https://github.com/{name}"]
        return "\n".join(lines) + "\n"

    def _machine_env(self, extra: Mapping[str, str]) -> dict[str, str]:
        # The runner machine's own environment: a system PATH (nothing of the test's venv),
        # its own HOME, and git configured to serve github.com from the local repositories.
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "HOME": str(self.home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "GIT_CONFIG_GLOBAL": str(self.gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_TERMINAL_PROMPT": "0", "ImageOS": "ubuntu24", "DEBIAN_FRONTEND":
               "noninteractive"}
        env.update(extra)
        return env

    # -- contexts ---------------------------------------------------------------------------

    def github_context(self, job: _Job) -> dict[str, Any]:
        event = self.event
        owner = self.repository.split("/")[0]
        return {
            "event": event.payload, "event_name": event.name, "event_path": str(self.event_path),
            "repository": self.repository, "repository_owner": owner, "sha": event.sha,
            "ref": event.ref, "ref_name": event.ref_name, "ref_type": "branch",
            "head_ref": event.head_ref, "base_ref": event.base_ref, "actor": event.actor,
            "triggering_actor": event.actor, "token": job.token,
            "workspace": str(job.workspace), "run_id": self.run_id, "run_number": "1",
            "run_attempt": "1", "job": job.job_id, "api_url": self.github.api_url,
            "server_url": "https://github.com", "graphql_url": self.github.api_url + "/graphql",
            "workflow": job.workflow_name, "action_path": "", "action": "",
            "retention_days": "90", "secret_source": "None" if self.fork_pull_request
            else "Actions",
        }

    def runner_env(self, job: _Job) -> dict[str, str]:
        """The variables the runner sets for every step."""
        event = self.event
        env = {
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event.name,
            "GITHUB_EVENT_PATH": str(self.event_path), "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": self.repository.split("/")[0],
            "GITHUB_SHA": event.sha, "GITHUB_REF": event.ref, "GITHUB_REF_NAME": event.ref_name,
            "GITHUB_REF_TYPE": "branch", "GITHUB_BASE_REF": event.base_ref,
            "GITHUB_HEAD_REF": event.head_ref, "GITHUB_ACTOR": event.actor,
            "GITHUB_TRIGGERING_ACTOR": event.actor, "GITHUB_WORKSPACE": str(job.workspace),
            "GITHUB_RUN_ID": self.run_id, "GITHUB_RUN_NUMBER": "1", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": job.job_id, "GITHUB_WORKFLOW": job.workflow_name,
            "GITHUB_API_URL": self.github.api_url, "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_GRAPHQL_URL": self.github.api_url + "/graphql",
            "GITHUB_RETENTION_DAYS": "90", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
            "RUNNER_NAME": "GitHub Actions 1", "RUNNER_ENVIRONMENT": "github-hosted",
            "RUNNER_TEMP": str(job.temp), "RUNNER_TOOL_CACHE": str(job.toolcache),
            "RUNNER_WORKSPACE": str(job.workspace.parent),
        }
        if job.oidc_token:
            env["ACTIONS_ID_TOKEN_REQUEST_URL"] = self.github.oidc_url
            env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = job.oidc_token
        return env

    # -- workflows --------------------------------------------------------------------------

    def run_workflow(self, source: str | Path | Mapping[str, Any]) -> WorkflowRun:
        """Run every job of a workflow in ``needs`` order; each job's result, steps and
        summary are in the returned :class:`WorkflowRun`."""
        workflow = load_workflow(source)
        return self._run_jobs(workflow, inputs={}, secrets=self._secrets_context(None),
                              workflow_ref=(self.repository, self.event.sha),
                              caller_permissions=None, name_prefix="")

    def _secrets_context(self, passed: Mapping[str, str] | None) -> dict[str, str]:
        values = dict(self.secrets if passed is None else passed)
        values["GITHUB_TOKEN"] = ""  # replaced by each job's own token
        return values

    def _run_jobs(self, workflow: Mapping[str, Any], *, inputs: Mapping[str, Any],
                  secrets: Mapping[str, str], workflow_ref: tuple[str, str],
                  caller_permissions: Mapping[str, str] | None, name_prefix: str
                  ) -> WorkflowRun:
        jobs: Mapping[str, Any] = workflow.get("jobs") or {}
        if not jobs:
            raise WorkflowInvalid("a workflow needs at least one job")
        run = WorkflowRun()
        done: dict[str, dict[str, Any]] = {}
        for job_id in _needs_order(jobs):
            spec = jobs[job_id]
            needs = [spec["needs"]] if isinstance(spec.get("needs"), str) else \
                list(spec.get("needs") or [])
            needs_ctx = {n: done[n] for n in needs}
            runs = self._run_job_instances(
                workflow, job_id, spec, needs_ctx, inputs=inputs, secrets=secrets,
                workflow_ref=workflow_ref, caller_permissions=caller_permissions,
                name_prefix=name_prefix)
            run.jobs[job_id] = runs
            outputs: dict[str, str] = {}
            for instance in runs:
                outputs.update({k: v for k, v in instance.outputs.items() if v != ""})
            done[job_id] = {"result": _combined_result([r.result for r in runs]),
                            "outputs": outputs}
        return run

    def _run_job_instances(self, workflow: Mapping[str, Any], job_id: str,
                           spec: Mapping[str, Any], needs: dict[str, Any], *,
                           inputs: Mapping[str, Any], secrets: Mapping[str, str],
                           workflow_ref: tuple[str, str],
                           caller_permissions: Mapping[str, str] | None, name_prefix: str
                           ) -> list[JobRun]:
        base_contexts = {"github": self.github_context(_Job.placeholder(self, job_id)),
                         "needs": needs, "vars": self.vars, "inputs": dict(inputs)}
        needs_failed = any(n["result"] in ("failure", "cancelled") for n in needs.values())
        needs_skipped = any(n["result"] == "skipped" for n in needs.values())
        condition = spec.get("if")
        status = Status(failed=needs_failed)
        # A job's success() also needs every job it needs to have run: a skipped need skips
        # it, unless its if: names a status function itself.
        runs_it = evaluate_if(condition, base_contexts, status=status)
        if not _names_status_function(condition):
            runs_it = runs_it and not needs_skipped
        name_template = str(spec.get("name") or job_id)
        if not runs_it:
            return [JobRun(job_id=job_id, name=name_prefix + name_template, result="skipped")]
        strategy = spec.get("strategy") or {}
        combos = _matrix(expand(strategy.get("matrix"), base_contexts)) \
            if strategy.get("matrix") is not None else [{}]
        fail_fast = truthy(expand(strategy.get("fail-fast", True), base_contexts))
        results: list[JobRun] = []
        for index, combo in enumerate(combos):
            strategy_ctx = {"fail-fast": fail_fast, "job-index": index,
                            "job-total": len(combos), "max-parallel": len(combos)}
            contexts = {**base_contexts, "matrix": combo, "strategy": strategy_ctx}
            name = name_prefix + interpolate(name_template, contexts)
            if combo and "${{" not in name_template:
                name += " (" + ", ".join(to_string(v) for v in combo.values()) + ")"
            if fail_fast and any(r.result == "failure" for r in results):
                results.append(JobRun(job_id=job_id, name=name, result="cancelled",
                                      matrix=combo))
                continue
            if "uses" in spec:
                results.append(self._call_workflow(job_id, name, spec, contexts, secrets,
                                                   caller_permissions, workflow))
            else:
                results.append(self._run_steps_job(
                    workflow, job_id, name, spec, contexts, secrets=secrets,
                    workflow_ref=workflow_ref, caller_permissions=caller_permissions))
        return results

    def _call_workflow(self, job_id: str, name: str, spec: Mapping[str, Any],
                       contexts: Mapping[str, Any], secrets: Mapping[str, str],
                       caller_permissions: Mapping[str, str] | None,
                       caller: Mapping[str, Any]) -> JobRun:
        uses = str(spec["uses"])
        found = re.fullmatch(r"([\w.-]+/[\w.-]+)/(\.github/workflows/[\w./-]+\.ya?ml)@(.+)", uses)
        if found is None:
            raise ActionNotEmulated(f"{uses!r} is not OWNER/REPO/.github/workflows/FILE@REF")
        repo_name, path, ref = found.groups()
        if not _SHA.fullmatch(ref):
            raise ActionNotEmulated(f"{uses}: a reusable workflow is pinned to a full commit "
                                    "sha here")
        workflow = load_workflow(self._file_at(repo_name, ref, path))
        call = (workflow.get("on") or {}).get("workflow_call") if isinstance(
            workflow.get("on"), Mapping) else None
        if call is None:
            raise WorkflowInvalid(f"{uses} has no workflow_call trigger")
        given = expand(spec.get("with") or {}, {**contexts, "secrets": secrets})
        inputs = _call_inputs(call.get("inputs") or {}, given, uses)
        if spec.get("secrets") == "inherit":
            passed = dict(self.secrets)
        else:
            passed = {str(k): to_string(v) for k, v in
                      expand(spec.get("secrets") or {}, {**contexts, "secrets": secrets}).items()}
        declared = call.get("secrets") or {}
        unknown = sorted(set(passed) - set(declared)) if spec.get("secrets") != "inherit" else []
        if unknown:
            raise WorkflowInvalid(f"{uses}: secret {unknown[0]!r} is not defined in the "
                                  "called workflow")
        allowed = effective_permissions(spec.get("permissions"),
                                        caller_permissions or effective_permissions(
                                            caller.get("permissions")))
        nested = self._run_jobs(workflow, inputs=inputs, secrets=self._secrets_context(passed),
                                workflow_ref=(repo_name, ref), caller_permissions=allowed,
                                name_prefix=f"{name} / ")
        outputs: dict[str, str] = {}
        jobs_ctx = {job: {"result": nested.result(job),
                          "outputs": {k: v for r in runs for k, v in r.outputs.items()}}
                    for job, runs in nested.jobs.items()}
        for output, declaration in (call.get("outputs") or {}).items():
            outputs[output] = to_string(expand(declaration.get("value", ""),
                                               {**contexts, "jobs": jobs_ctx}))
        return JobRun(job_id=job_id, name=name, result=nested.conclusion, outputs=outputs,
                      called=[r for runs in nested.jobs.values() for r in runs])

    def _file_at(self, repo_name: str, ref: str, path: str) -> str:
        repo = self.repositories.get(repo_name)
        if repo is None:
            raise ActionNotEmulated(f"no local repository stands in for {repo_name}")
        shown = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:{path}"],
                               capture_output=True, text=True, check=False, timeout=60)
        if shown.returncode != 0:
            raise ActionNotEmulated(f"{repo_name}@{ref} has no {path}: {shown.stderr.strip()}")
        return shown.stdout

    def _run_steps_job(self, workflow: Mapping[str, Any], job_id: str, name: str,
                       spec: Mapping[str, Any], contexts: dict[str, Any], *,
                       secrets: Mapping[str, str], workflow_ref: tuple[str, str],
                       caller_permissions: Mapping[str, str] | None) -> JobRun:
        declared = spec.get("permissions", workflow.get("permissions"))
        if caller_permissions is not None:
            # A called workflow's job gets what it declares (job, else its workflow), at most
            # what the caller grants; declaring nothing, it gets the caller's.
            permissions = (dict(caller_permissions) if declared is None
                           else effective_permissions(declared))
            _at_most(permissions, caller_permissions, name)
        else:
            permissions = effective_permissions(declared)
        job = _Job(self, job_id, name, permissions, workflow_ref,
                   str(workflow.get("name") or "workflow"))
        record = JobRun(job_id=job_id, name=name, result="success", matrix=contexts["matrix"],
                        workspace=job.workspace, temp=job.temp)
        secrets_ctx = {**secrets, "GITHUB_TOKEN": job.token}
        contexts = {**contexts, "github": self.github_context(job), "secrets": secrets_ctx,
                    "runner": job.runner_context(), "job": job.job_context(),
                    "steps": {}, "env": {}}
        try:
            job.env = _env_block(workflow.get("env"), contexts)
            contexts["env"] = dict(job.env)
            job.env.update(_env_block(spec.get("env"), contexts))
            contexts["env"] = dict(job.env)
        except ExpressionError as exc:
            record.result, record.error = "failure", str(exc)
            return record
        defaults = {**((workflow.get("defaults") or {}).get("run") or {}),
                    **((spec.get("defaults") or {}).get("run") or {})}
        scope = _Scope(job=job, contexts=contexts, steps_ctx=contexts["steps"],
                       default_shell=defaults.get("shell"),
                       default_directory=defaults.get("working-directory"))
        record.steps = job.run_steps(list(spec.get("steps") or []), scope)
        record.summary = job.summary
        if job.status.failed:
            record.result = "failure"
        outputs_spec = spec.get("outputs") or {}
        contexts["env"] = job.expression_env()
        for output, expression in outputs_spec.items():
            try:
                record.outputs[output] = to_string(expand(expression, contexts))
            except ExpressionError:
                record.outputs[output] = ""
        return record


def _names_status_function(condition: Any) -> bool:
    if not isinstance(condition, str) or not condition.strip():
        return False
    parts = list(_segments(condition.strip()))
    text = parts[0][1] if len(parts) == 1 and parts[0][0] else condition
    try:
        return uses_status_function(parse(text))
    except ExpressionError:
        return False


def _needs_order(jobs: Mapping[str, Any]) -> list[str]:
    """Job ids so that every job comes after those it needs (GitHub refuses cycles and
    unknown needs)."""
    order: list[str] = []
    visiting: set[str] = set()

    def visit(job_id: str) -> None:
        if job_id in order:
            return
        if job_id in visiting:
            raise WorkflowInvalid(f"job {job_id!r} is part of a needs cycle")
        if job_id not in jobs:
            raise WorkflowInvalid(f"a job needs {job_id!r}, which does not exist")
        visiting.add(job_id)
        needs = jobs[job_id].get("needs") or []
        for need in [needs] if isinstance(needs, str) else needs:
            visit(str(need))
        visiting.discard(job_id)
        order.append(job_id)

    for job_id in jobs:
        visit(str(job_id))
    return order


def _matrix(spec: Any) -> list[dict[str, Any]]:
    """The combinations of a ``strategy.matrix`` (after its expressions): the product of its
    lists, less ``exclude``, plus ``include`` (merged into combinations it extends)."""
    if not isinstance(spec, Mapping):
        raise WorkflowInvalid(f"strategy.matrix must be a mapping, got {spec!r}")
    axes = {k: v for k, v in spec.items() if k not in ("include", "exclude")}
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise WorkflowInvalid(f"matrix {key!r} must be a non-empty list, got {values!r}")
    combos = [dict(zip(axes, values, strict=True))
              for values in itertools.product(*axes.values())] if axes else []
    for exclusion in spec.get("exclude") or []:
        combos = [c for c in combos
                  if not all(loose_equal(c.get(k), v) for k, v in exclusion.items())]
    for inclusion in spec.get("include") or []:
        extended = False
        for combo in combos:
            if all(loose_equal(combo[k], v) for k, v in inclusion.items() if k in axes):
                combo.update({k: v for k, v in inclusion.items() if k not in axes})
                extended = True
        if not extended:
            combos.append(dict(inclusion))
    if not combos:
        raise WorkflowInvalid("the matrix has no combination")
    return combos


def _call_inputs(declared: Mapping[str, Any], given: Mapping[str, Any], where: str
                 ) -> dict[str, Any]:
    """The ``inputs`` of a called workflow: typed as declared, defaults filled in, unknown or
    missing required inputs refused as GitHub refuses them."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise WorkflowInvalid(f"{where}: invalid input, {unknown[0]} is not defined in the "
                              "referenced workflow")
    values: dict[str, Any] = {}
    for name, spec in declared.items():
        kind = (spec or {}).get("type", "string")
        if name in given:
            value = given[name]
        elif (spec or {}).get("required"):
            raise WorkflowInvalid(f"{where}: input {name!r} is required")
        else:
            value = (spec or {}).get("default", {"boolean": False, "number": 0}.get(kind, ""))
        if kind == "boolean":
            if isinstance(value, str) and value.lower() in ("true", "false"):
                value = value.lower() == "true"
            if not isinstance(value, bool):
                raise WorkflowInvalid(f"{where}: input {name!r} must be a boolean, got {value!r}")
        elif kind == "number":
            number = to_number(value)
            if math.isnan(number):
                raise WorkflowInvalid(f"{where}: input {name!r} must be a number, got {value!r}")
            value = number
        else:
            value = to_string(value)
        values[name] = value
    return values


def _env_block(block: Any, contexts: Mapping[str, Any], workspace: Path | None = None
               ) -> dict[str, str]:
    if not block:
        return {}
    if not isinstance(block, Mapping):
        raise WorkflowInvalid(f"env must be a mapping, got {block!r}")
    return {str(k): to_string(expand(v, contexts, workspace=workspace)) for k, v in block.items()}


@dataclass
class _Scope:
    """The steps being run: a job's, or a composite action's inside it."""

    job: _Job
    contexts: dict[str, Any]
    steps_ctx: dict[str, Any]
    default_shell: str | None = None
    default_directory: str | None = None
    action_path: Path | None = None
    action_repository: str = ""


class _Job:
    """One running job: its directories, token, environment and runner files."""

    def __init__(self, runner: Runner, job_id: str, name: str, permissions: Mapping[str, str],
                 workflow_ref: tuple[str, str], workflow_name: str, *,
                 placeholder: bool = False) -> None:
        self.runner = runner
        self.job_id = job_id
        self.name = name
        self.permissions = dict(permissions)
        self.workflow_ref = workflow_ref
        self.workflow_name = workflow_name
        number = 0 if placeholder else next(runner._jobs)
        base = runner.root / "jobs" / f"{number:02d}-{re.sub(r'[^A-Za-z0-9_.-]', '_', job_id)}"
        self.workspace = base / "work" / runner.repository.split("/")[-1]
        self.temp = base / "temp"
        self.toolcache = base / "toolcache"
        self.actions_dir = base / "actions"
        self.token = ""
        self.oidc_token = ""
        self.env: dict[str, str] = {}
        self.github_env: dict[str, str] = {}
        self.path: list[str] = []
        self.summary = ""
        self.status = Status()
        if placeholder:
            return
        for directory in (self.workspace, self.temp, self.toolcache, self.actions_dir):
            directory.mkdir(parents=True, exist_ok=True)
        writes = [s for s, level in self.permissions.items() if level == "write"]
        self.token = runner.github.issue_token(writes)
        if self.permissions.get("id-token") == "write" and not runner.fork_pull_request:
            self.oidc_token = runner.github.issue_oidc_request_token(
                f"repo:{runner.repository}:job:{job_id}")

    @classmethod
    def placeholder(cls, runner: Runner, job_id: str) -> _Job:
        """The job's identity before it runs (a job's ``if:`` sees the github context)."""
        return cls(runner, job_id, job_id, {}, (runner.repository, runner.event.sha), "",
                   placeholder=True)

    def runner_context(self) -> dict[str, Any]:
        return {"os": "Linux", "arch": "X64", "name": "GitHub Actions 1",
                "temp": str(self.temp), "tool_cache": str(self.toolcache),
                "environment": "github-hosted", "debug": ""}

    def job_context(self) -> dict[str, Any]:
        repository, sha = self.workflow_ref
        return {"status": "success", "container": {}, "services": {},
                "workflow_repository": repository, "workflow_sha": sha}

    def expression_env(self) -> dict[str, str]:
        """The ``env`` context: GITHUB_ENV's values under the env: blocks in force."""
        return {**self.github_env, **self.env}

    # -- steps ------------------------------------------------------------------------------

    def run_steps(self, steps: list[Any], scope: _Scope) -> list[StepRecord]:
        records: list[StepRecord] = []
        for index, step in enumerate(steps):
            if not isinstance(step, Mapping):
                raise WorkflowInvalid(f"step {index + 1} of {self.name} is not a mapping")
            records.append(self._run_step(step, index, scope))
        return records

    def _step_name(self, step: Mapping[str, Any], contexts: Mapping[str, Any]) -> str:
        if step.get("name"):
            try:
                return interpolate(str(step["name"]), contexts)
            except ExpressionError:
                return str(step["name"])
        if step.get("uses"):
            return f"Run {step['uses']}"
        return "Run " + to_string(step.get("run", "")).strip().splitlines()[0] if step.get("run") \
            else "step"

    def _run_step(self, step: Mapping[str, Any], index: int, scope: _Scope) -> StepRecord:
        contexts = {**scope.contexts, "steps": scope.steps_ctx,
                    "env": self.expression_env()}
        if scope.action_path is not None:
            contexts["github"] = {**contexts["github"], "action_path": str(scope.action_path),
                                  "action_repository": scope.action_repository}
        name = self._step_name(step, contexts)
        step_id = str(step["id"]) if step.get("id") is not None else None
        uses = str(step["uses"]) if step.get("uses") else None
        try:
            runs_it = evaluate_if(step.get("if"), contexts, status=self.status,
                                  workspace=self.workspace)
        except ExpressionError as exc:
            self.status.failed = True
            return StepRecord(name, step_id, uses, True, "failure", "failure", None,
                              f"::error::the step's if: cannot be evaluated: {exc}")
        if not runs_it:
            record = StepRecord(name, step_id, uses, False, "skipped", "skipped",
                                run=to_string(step["run"]) if "run" in step else None)
            self._remember(step_id, record, {}, scope)
            return record
        files = self._runner_files(index)
        started = time.monotonic()
        outputs: dict[str, str] = {}
        nested: list[StepRecord] = []
        log_lines: list[str] = []
        try:
            env = self._step_env(step, contexts, files, scope)
            if uses is not None:
                code, nested = self._run_uses(uses, step, contexts, env, log_lines, scope)
            elif "run" in step:
                code = self._run_script(step, contexts, env, log_lines, scope)
            else:
                raise WorkflowInvalid(f"step {name!r} has neither run nor uses")
        except ExpressionError as exc:
            code = 1
            log_lines.append(f"::error::{exc}")
        except subprocess.TimeoutExpired:
            code = 1
            log_lines.append("::error::The action has timed out.")
        outputs = self._collect(files, log_lines)
        outcome = "success" if code == 0 else "failure"
        continue_on_error = truthy(expand(step.get("continue-on-error", False), contexts))
        conclusion = "success" if outcome == "failure" and continue_on_error else outcome
        if conclusion == "failure":
            self.status.failed = True
        record = StepRecord(name, step_id, uses, True, outcome, conclusion, code,
                            "\n".join(log_lines), nested,
                            to_string(step["run"]) if "run" in step else None,
                            time.monotonic() - started)
        self._remember(step_id, record, outputs, scope)
        return record

    def _remember(self, step_id: str | None, record: StepRecord, outputs: dict[str, str],
                  scope: _Scope) -> None:
        record.outputs = outputs
        if step_id is not None:
            scope.steps_ctx[step_id] = {"outputs": outputs, "outcome": record.outcome,
                                        "conclusion": record.conclusion}

    def _runner_files(self, index: int) -> dict[str, Path]:
        directory = self.temp / "_runner_file_commands"
        directory.mkdir(exist_ok=True)
        suffix = uuid.uuid4().hex[:12]
        files = {name: directory / f"{name.lower()}_{suffix}" for name in
                 ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY",
                  "GITHUB_STATE")}
        for path in files.values():
            path.touch()
        return files

    def _collect(self, files: Mapping[str, Path], log_lines: list[str]) -> dict[str, str]:
        """Read the runner files a step wrote: env and path for later steps, its outputs,
        its part of the job summary."""
        try:
            exported = parse_env_file(files["GITHUB_ENV"].read_text(encoding="utf-8"))
            outputs = parse_env_file(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
        except ValueError as exc:
            log_lines.append(f"::error::{exc}")
            self.status.failed = True
            return {}
        for name, value in exported.items():
            # The runner refuses NODE_OPTIONS; its own GITHUB_*/RUNNER_* variables are set
            # again over GITHUB_ENV for every step (see _step_env), so they cannot be changed.
            if name != "NODE_OPTIONS":
                self.github_env[name] = value
        for line in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines():
            if line.strip():
                self.path.insert(0, line.strip())
        self.summary += files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
        return outputs

    def _step_env(self, step: Mapping[str, Any], contexts: Mapping[str, Any],
                  files: Mapping[str, Path], scope: _Scope) -> dict[str, str]:
        runner = self.runner
        env = dict(runner.machine_env)
        env.update(self.github_env)
        env.update(runner.runner_env(self))
        env.update(self.env)
        if scope.action_path is not None:
            env["GITHUB_ACTION_PATH"] = str(scope.action_path)
            env["GITHUB_ACTION_REPOSITORY"] = scope.action_repository
        env.update(_env_block(step.get("env"), contexts, self.workspace))
        if self.path:
            env["PATH"] = os.pathsep.join([*self.path, env["PATH"]])
        env.update({name: str(path) for name, path in files.items()})
        return env

    def _run_script(self, step: Mapping[str, Any], contexts: Mapping[str, Any],
                    env: dict[str, str], log_lines: list[str], scope: _Scope) -> int:
        script = interpolate(to_string(step["run"]), contexts, workspace=self.workspace)
        shell = step.get("shell") or scope.default_shell
        if scope.action_path is not None and not shell:
            raise WorkflowInvalid("a composite action's run steps must name their shell")
        directory_spec = step.get("working-directory") or scope.default_directory
        directory = self.workspace
        if directory_spec:
            named = Path(interpolate(str(directory_spec), contexts, workspace=self.workspace))
            directory = named if named.is_absolute() else self.workspace / named
        path = self.temp / f"{uuid.uuid4()}.sh"
        path.write_text(script, encoding="utf-8")
        bash = shutil.which("bash", path=env["PATH"]) or "bash"
        if shell in (None, ""):
            command = [bash, "-e", str(path)]
        elif shell == "bash":
            command = [bash, "--noprofile", "--norc", "-eo", "pipefail", str(path)]
        elif shell == "sh":
            command = [shutil.which("sh", path=env["PATH"]) or "sh", "-e", str(path)]
        elif "{0}" in str(shell):
            command = [part.replace("{0}", str(path)) for part in str(shell).split()]
        else:
            raise ActionNotEmulated(f"shell {shell!r} is not emulated")
        if not directory.is_dir():
            log_lines.append(f"::error::An error occurred trying to start process '{bash}' "
                             f"with working directory '{directory}'. No such file or directory")
            return 1
        log_path = self.temp / f"{path.stem}.log"
        timeout = float(step.get("timeout-minutes") or 0) * 60 or self.runner.step_timeout
        with open(log_path, "wb") as log:
            process = subprocess.run(command, cwd=directory, env=env, stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     timeout=timeout, check=False)
        log_lines.append(log_path.read_text(encoding="utf-8", errors="replace"))
        return process.returncode

    def _run_uses(self, uses: str, step: Mapping[str, Any], contexts: Mapping[str, Any],
                  env: dict[str, str], log_lines: list[str], scope: _Scope
                  ) -> tuple[int, list[StepRecord]]:
        if uses.startswith("docker://"):
            raise ActionNotEmulated(f"{uses}: docker actions are not emulated")
        inputs = {str(k): to_string(v) for k, v in
                  expand(step.get("with") or {}, contexts, workspace=self.workspace).items()}
        if uses.startswith("./"):
            action_dir = self.workspace / uses[2:]
            return self._run_local_action(action_dir, "", inputs, contexts, env, log_lines,
                                          scope)
        name, _, ref = uses.partition("@")
        if not _SHA.fullmatch(ref):
            raise ActionNotEmulated(f"{uses}: every action must be pinned to a full commit "
                                    "sha")
        key = name.lower()
        stand_in = self.runner.stand_ins.get(key)
        if stand_in is not None:
            call = ActionCall(name=key, ref=ref, inputs=inputs, env=env, job=self,
                              log=log_lines)
            try:
                return stand_in(call), []
            except (OSError, ValueError, KeyError, subprocess.CalledProcessError,
                    httpx.HTTPError) as exc:
                log_lines.append(f"::error::{type(exc).__name__}: {exc}")
                return 1, []
        repo_name = "/".join(name.split("/")[:2])
        if repo_name in self.runner.repositories:
            action_dir = self.actions_dir / name / ref
            if not action_dir.exists():
                repo = self.runner.repositories[repo_name]
                subprocess.run(["git", "clone", "-q", str(repo), str(action_dir)], check=True,
                               capture_output=True, timeout=120)
                subprocess.run(["git", "-C", str(action_dir), "checkout", "-q", ref],
                               check=True, capture_output=True, timeout=60)
            sub = "/".join(name.split("/")[2:])
            return self._run_local_action(action_dir / sub if sub else action_dir, repo_name,
                                          inputs, contexts, env, log_lines, scope)
        raise ActionNotEmulated(f"no stand-in for {name}")

    def _run_local_action(self, action_dir: Path, repository: str, given: Mapping[str, str],
                          contexts: Mapping[str, Any], env: Mapping[str, str],
                          log_lines: list[str], scope: _Scope) -> tuple[int, list[StepRecord]]:
        metadata = next((action_dir / n for n in ("action.yml", "action.yaml")
                         if (action_dir / n).is_file()), None)
        if metadata is None:
            raise ActionNotEmulated(f"{action_dir} has no action.yml")
        action = load_workflow(metadata)
        runs = action.get("runs") or {}
        if runs.get("using") != "composite":
            raise ActionNotEmulated(f"{metadata}: only composite actions are emulated")
        declared = action.get("inputs") or {}
        unknown = sorted(set(given) - set(declared))
        for name in unknown:
            log_lines.append(f"::warning::Unexpected input(s) '{name}', valid inputs are "
                             f"{sorted(declared)}")
        inputs: dict[str, str] = {}
        for name, spec in declared.items():
            default = (spec or {}).get("default", "")
            value = given[name] if name in given else to_string(
                expand(default, contexts, workspace=self.workspace))
            if (spec or {}).get("required") and name not in given and default == "":
                log_lines.append(f"::warning::Input required and not supplied: {name}")
            inputs[name] = value
        inner_ctx = {**contexts, "inputs": inputs}
        inner = _Scope(job=self, contexts=inner_ctx, steps_ctx={},
                       action_path=action_dir, action_repository=repository)
        # The composite's own steps see the job's status as it goes; whether the composite
        # step failed is decided by its steps, then recorded on the outer step.
        failed_before = self.status.failed
        records = self.run_steps(list(runs.get("steps") or []), inner)
        failed = any(r.conclusion == "failure" for r in records)
        self.status.failed = failed_before
        outputs: dict[str, str] = {}
        out_ctx = {**inner_ctx, "steps": inner.steps_ctx}
        for output, spec in (action.get("outputs") or {}).items():
            outputs[output] = to_string(expand((spec or {}).get("value", ""), out_ctx))
        for output, value in outputs.items():
            _append_kv(Path(env["GITHUB_OUTPUT"]), output, value)
        return (1 if failed else 0), records


# =============================================================================================
# Stand-ins for the actions the shipped workflows use
# =============================================================================================


def _git(*args: str, cwd: Path, env: Mapping[str, str], log: list[str]) -> None:
    process = subprocess.run(["git", *args], cwd=cwd, env=dict(env), capture_output=True,
                             text=True, check=False, timeout=300)
    log.append(f"[command]git {' '.join(args)}\n{process.stdout}{process.stderr}")
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, ["git", *args],
                                            process.stdout, process.stderr)


def checkout(call: ActionCall) -> int:
    """actions/checkout: the repository at the event's ref (a pull request's merge commit,
    ``refs/pull/N/merge``), or at ``ref``; ``fetch-depth: 0`` fetches every branch and tag
    so ``origin/<base>`` exists; ``persist-credentials`` leaves the token in the local git
    configuration, as the real action does, unless false."""
    runner = call.job.runner
    repository = call.input("repository", runner.repository)
    target = call.job.workspace / call.input("path", "")
    target.mkdir(parents=True, exist_ok=True)
    depth = int(call.input("fetch-depth", "1"))
    ref = call.input("ref", "")
    env = call.env
    log = call.log
    if any(target.iterdir()):
        shutil.rmtree(target)
        target.mkdir(parents=True)
    _git("init", "-q", cwd=target, env=env, log=log)
    _git("remote", "add", "origin", f"https://github.com/{repository}", cwd=target, env=env,
         log=log)
    if ref and not ref.startswith("refs/") and not _SHA.fullmatch(ref):
        ref = f"refs/heads/{ref}"
    wanted = ref or runner.event.ref
    depth_args = [] if depth == 0 else [f"--depth={depth}"]
    if depth == 0:
        _git("fetch", "--prune", "--no-recurse-submodules", "origin",
             "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*", cwd=target,
             env=env, log=log)
    if _SHA.fullmatch(wanted):
        _git("fetch", *depth_args, "origin", wanted, cwd=target, env=env, log=log)
        _git("checkout", "-q", "--force", wanted, cwd=target, env=env, log=log)
    elif wanted.startswith("refs/heads/"):
        branch = wanted.removeprefix("refs/heads/")
        _git("fetch", *depth_args, "origin", f"+{wanted}:refs/remotes/origin/{branch}",
             cwd=target, env=env, log=log)
        _git("checkout", "-q", "--force", "-B", branch, f"refs/remotes/origin/{branch}",
             cwd=target, env=env, log=log)
    else:
        local = "refs/remotes/" + wanted.removeprefix("refs/")
        _git("fetch", *depth_args, "origin", f"+{wanted}:{local}", cwd=target, env=env, log=log)
        _git("checkout", "-q", "--force", local, cwd=target, env=env, log=log)
    if call.flag("persist-credentials", True):
        basic = base64.b64encode(f"x-access-token:{call.input('token', call.job.token)}"
                                 .encode()).decode()
        _git("config", "--local", "http.https://github.com/.extraheader",
             f"AUTHORIZATION: basic {basic}", cwd=target, env=env, log=log)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=target, capture_output=True,
                          text=True, check=True, timeout=30, env=dict(env)).stdout.strip()
    call.output("commit", head)
    call.output("ref", wanted)
    return 0


def setup_python(call: ActionCall) -> int:
    """actions/setup-python: a fresh Python for the job on PATH (``pythonLocation`` and the
    ``*_ROOT_DIR`` variables exported like the real action). Its version is this
    interpreter's: the emulator has no other Python offline."""
    toolcache = call.job.runner.python
    if toolcache is None:
        return call.fail("the scenario provides no Python toolcache")
    version = ".".join(map(str, sys.version_info[:3]))
    requested = call.input("python-version", "")
    if requested and not version.startswith(requested):
        call.log.append(f"::notice::python-version {requested} asked for; the emulator "
                        f"provides {version}")
    location = call.job.toolcache / "Python" / version / "x64"
    if not location.exists():
        subprocess.run([str(toolcache.base_python), "-m", "venv", "--without-pip",
                        str(location)], check=True, capture_output=True, timeout=120)
        purelib = location / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" \
            / "site-packages"
        # A toolcache Python comes with pip: link this interpreter's, first on sys.path.
        own_pip = location / "pip-package"
        own_pip.mkdir()
        (own_pip / "pip").symlink_to(Path(_pip_location()))
        (purelib / "_toolcache_dependencies.pth").write_text(
            "".join(f"{d}\n" for d in (own_pip, *toolcache.site_dirs)), encoding="utf-8")
        for script in ("pip", "pip3", f"pip{sys.version_info[0]}.{sys.version_info[1]}"):
            path = location / "bin" / script
            path.write_text(f"#!{location / 'bin' / 'python'}\nimport sys\n"
                            "from pip._internal.cli.main import main\nsys.exit(main())\n",
                            encoding="utf-8")
            path.chmod(0o755)
    call.add_path(location / "bin")
    for name in ("pythonLocation", "Python_ROOT_DIR", "Python2_ROOT_DIR", "Python3_ROOT_DIR"):
        call.export(name, str(location))
    call.export("PKG_CONFIG_PATH", str(location / "lib" / "pkgconfig"))
    call.output("python-version", version)
    call.output("python-path", str(location / "bin" / "python"))
    return 0


def _pip_location() -> str:
    spec = importlib.util.find_spec("pip")
    if spec is None or not spec.submodule_search_locations:
        raise OSError("this interpreter has no pip to give a job's Python")
    return str(next(iter(spec.submodule_search_locations)))


def google_auth(call: ActionCall) -> int:
    """google-github-actions/auth (v2) with Workload Identity Federation: it needs exactly
    one of ``workload_identity_provider``/``credentials_json``, a ``service_account``, and the
    job's OIDC token (``ACTIONS_ID_TOKEN_REQUEST_URL``/``_TOKEN``, which GitHub sets only for
    a job with ``id-token: write`` that is not a fork's pull request). It writes the
    external-account credentials file into ``GITHUB_WORKSPACE`` (``gha-creds-*.json``, as v2
    does) and exports ``GOOGLE_APPLICATION_CREDENTIALS`` and the project variables. Offline,
    the file's STS and IAM Credentials URLs are the scenario's ``google_endpoint`` instead of
    sts.googleapis.com and iamcredentials.googleapis.com; the subject token comes from the
    runner's OIDC endpoint exactly as the real file says."""
    provider = call.input("workload_identity_provider")
    credentials_json = call.input("credentials_json")
    service_account = call.input("service_account")
    secrets_hint = ("If you are specifying input values via GitHub secrets, ensure the secret "
                    "is being injected into the environment. By default, secrets are not "
                    "passed to workflows triggered from forks, including Dependabot.")
    if bool(provider) == bool(credentials_json):
        return call.fail('google-github-actions/auth failed with: The GitHub Action workflow '
                         'must specify exactly one of "workload_identity_provider" or '
                         f'"credentials_json"! {secrets_hint}')
    if credentials_json:
        return call.fail("credentials_json is not emulated: use Workload Identity Federation")
    if not service_account:
        return call.fail('google-github-actions/auth failed with: The GitHub Action workflow '
                         'must specify a "service_account" to impersonate when using '
                         f'"workload_identity_provider"! {secrets_hint}')
    request_url = call.env.get("ACTIONS_ID_TOKEN_REQUEST_URL")
    request_token = call.env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
    if not request_url or not request_token:
        return call.fail(
            "google-github-actions/auth failed with: GitHub Actions did not inject "
            "$ACTIONS_ID_TOKEN_REQUEST_TOKEN or $ACTIONS_ID_TOKEN_REQUEST_URL into this job. "
            "This most likely means the GitHub Actions workflow permissions are incorrect, or "
            "this job is being run from a fork.")
    endpoint = call.job.runner.google_endpoint
    if endpoint is None:
        return call.fail("the scenario has no Google endpoint (STS and IAM Credentials)")
    audience = call.input("audience", f"https://iam.googleapis.com/{provider}")
    # The real action asks for the OIDC token once up front (a failure here fails the step).
    with httpx.Client(timeout=30) as client:
        answer = client.get(f"{request_url}&audience={audience}",
                            headers={"Authorization": f"Bearer {request_token}"})
    if answer.status_code != 200:
        return call.fail(f"google-github-actions/auth failed with: failed to get the OIDC "
                         f"token: {answer.status_code}")
    info = {
        "type": "external_account",
        "audience": f"//iam.googleapis.com/{provider}",
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": f"{endpoint}/v1/token",
        "service_account_impersonation_url":
            f"{endpoint}/v1/projects/-/serviceAccounts/{service_account}:generateAccessToken",
        "credential_source": {
            "url": f"{request_url}&audience={audience}",
            "headers": {"Authorization": f"Bearer {request_token}"},
            "format": {"type": "json", "subject_token_field_name": "value"},
        },
    }
    path = call.job.workspace / f"gha-creds-{_secrets.token_hex(8)}.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    path.chmod(0o600)
    call.output("credentials_file_path", str(path))
    for name in ("CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", "GOOGLE_APPLICATION_CREDENTIALS",
                 "GOOGLE_GHA_CREDS_PATH"):
        call.export(name, str(path))
    project = call.input("project_id") or service_account.split("@")[-1].split(".")[0]
    call.output("project_id", project)
    for name in ("CLOUDSDK_CORE_PROJECT", "CLOUDSDK_PROJECT", "GCLOUD_PROJECT", "GCP_PROJECT",
                 "GOOGLE_CLOUD_PROJECT"):
        call.export(name, project)
    return 0


def upload_sarif(call: ActionCall) -> int:
    """github/codeql-action/upload-sarif: the file (or every ``.sarif`` of a directory) must
    be SARIF 2.1.0 JSON; it is uploaded gzip+base64 to code scanning with the job's token
    (403 with a read-only or unpermitted token fails the step, as it fails the real action),
    then waited for."""
    given = Path(call.input("sarif_file", "../results"))
    source = given if given.is_absolute() else call.job.workspace / given
    files = sorted(source.rglob("*.sarif")) if source.is_dir() else [source]
    if not files or not all(f.is_file() for f in files):
        return call.fail(f"Path does not exist: {source}")
    runs: list[Any] = []
    version = "2.1.0"
    for path in files:
        try:
            log = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            return call.fail(f"Invalid SARIF. JSON syntax error: {exc}")
        if not isinstance(log, dict) or log.get("version") != version or \
                not isinstance(log.get("runs"), list):
            return call.fail(f"Invalid SARIF. {path} is not a SARIF 2.1.0 log")
        runs.extend(log["runs"])
    category = call.input("category")
    if category:
        for run in runs:
            run.setdefault("automationDetails", {})["id"] = category.rstrip("/") + "/"
    merged = {"version": version, "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
              "runs": runs}
    payload = base64.b64encode(gzip.compress(json.dumps(merged).encode())).decode()
    event = call.job.runner.event
    repository = call.job.runner.repository
    answer = call.api("POST", f"/repos/{repository}/code-scanning/sarifs", {
        "commit_sha": call.input("sha", event.sha), "ref": call.input("ref", event.ref),
        "sarif": payload, "checkout_uri": f"file://{call.job.workspace}",
        "tool_name": ",".join(str(r.get("tool", {}).get("driver", {}).get("name", ""))
                              for r in runs)})
    if answer.status_code >= 400:
        message = answer.json().get("message", "") if answer.content else ""
        return call.fail(f"{message}. This run of the CodeQL Action does not have permission "
                         "to access the CodeQL Action API endpoints. This could be because the "
                         "Action is running on a pull request from a fork. If not, please "
                         "ensure the workflow has at least the 'security-events: read' "
                         f"permission. (HTTP {answer.status_code})")
    sarif_id = answer.json()["id"]
    call.output("sarif-id", sarif_id)
    if call.flag("wait-for-processing", True):
        status = call.api("GET", f"/repos/{repository}/code-scanning/sarifs/{sarif_id}")
        if status.status_code >= 400:
            return call.fail(f"waiting for processing failed: HTTP {status.status_code}")
    return 0


@dataclass
class JUnitCounts:
    """What a JUnit reporter read: files, test cases and their outcomes."""

    files: list[str] = field(default_factory=list)
    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    failed_names: list[str] = field(default_factory=list)


def read_junit(paths: Iterable[Path]) -> JUnitCounts:
    """Count the ``testcase`` elements of JUnit XML files (``<testsuites>`` or one
    ``<testsuite>``), as the reporters do; a file that is not XML raises ValueError."""
    counts = JUnitCounts()
    for path in paths:
        try:
            # The review's own JUnit output, never a file of the checkout.
            root = ET.parse(path).getroot()  # noqa: S314
        except ET.ParseError as exc:
            raise ValueError(f"{path} is not JUnit XML: {exc}") from None
        counts.files.append(str(path))
        for case in root.iter("testcase"):
            counts.tests += 1
            if case.find("failure") is not None:
                counts.failures += 1
                counts.failed_names.append(str(case.get("name")))
            elif case.find("error") is not None:
                counts.errors += 1
                counts.failed_names.append(str(case.get("name")))
            elif case.find("skipped") is not None:
                counts.skipped += 1
    return counts


def _glob_paths(base: Path, patterns: str) -> list[Path]:
    found: list[Path] = []
    for raw in re.split(r"[\n,]", patterns):
        pattern = raw.strip()
        if not pattern:
            continue
        if Path(pattern).is_absolute():
            anchor = Path(pattern.split("*")[0]).parent if "*" in pattern else Path(pattern)
            if "*" not in pattern:
                found += [anchor] if anchor.is_file() else []
                continue
            found += [p for p in anchor.rglob("*") if p.is_file() and fnmatch.fnmatch(str(p),
                                                                                     pattern)]
        else:
            found += [p for p in base.glob(pattern) if p.is_file()]
    return sorted(set(found))


def junit_report(call: ActionCall) -> int:
    """mikepenz/action-junit-report: reads ``report_paths``, writes the job summary table
    (``job_summary``, default true) and failure annotations, and — unless ``annotate_only`` —
    creates a check run named ``check_name`` through the API (403 with a fork's read-only
    token fails the step, as it fails the real action). ``fail_on_failure`` fails the step
    when a test failed; ``require_tests`` when none was found."""
    files = _glob_paths(call.job.workspace, call.input("report_paths",
                                                       "**/junit-reports/TEST-*.xml"))
    counts = read_junit(files)
    call.job.runner.junit_reads.append(counts)
    if not files:
        call.warning(f"No test results found for {call.input('report_paths')}")
        if call.flag("require_tests", False):
            return call.fail("No test results found!")
    for name in counts.failed_names[:50]:
        call.log.append(f"::error title={name}::{name} failed")
    check_name = call.input("check_name", "JUnit Test Report")
    passed = counts.tests - counts.failures - counts.errors - counts.skipped
    if call.flag("job_summary", True):
        call.summary(f"## {check_name}\n\n|Tests|Passed ✅|Skipped ⚠️|Failed ❌|\n|:---|:---|:---|"
                     f":---|\n|{check_name}|{counts.tests} ran|{passed} passed|"
                     f"{counts.skipped} skipped|{counts.failures + counts.errors} failed|\n")
    for name, value in (("total", counts.tests), ("passed", passed),
                        ("skipped", counts.skipped), ("failed", counts.failures + counts.errors)):
        call.output(name, str(value))
    conclusion = "failure" if counts.failures + counts.errors else "success"
    if not call.flag("annotate_only", False):
        event = call.job.runner.event
        head = event.payload.get("pull_request", {}).get("head", {}).get("sha", event.sha)
        answer = call.api("POST", f"/repos/{call.job.runner.repository}/check-runs", {
            "name": check_name, "head_sha": call.input("commit", head), "status": "completed",
            "conclusion": conclusion, "output": {
                "title": f"{counts.tests} tests run, {passed} passed, {counts.skipped} skipped, "
                         f"{counts.failures + counts.errors} failed.", "summary": ""}})
        if answer.status_code >= 400:
            return call.fail(f"❌ Failed to create checks using the provided token. "
                             f"(HttpError: {answer.json().get('message', '')})")
    if conclusion == "failure" and call.flag("fail_on_failure", False):
        return call.fail(f"❌ Tests reported {counts.failures + counts.errors} failures")
    return 0


def test_reporter(call: ActionCall) -> int:
    """dorny/test-reporter with ``reporter: java-junit``: reads ``path``, and creates a check
    run named ``name`` (403 with a read-only token fails the step) unless
    ``use-actions-summary`` writes the report to the job summary instead; ``fail-on-error``
    (default true) fails the step when a test failed, ``fail-on-empty`` when none was found."""
    if call.input("reporter") not in ("java-junit", "jest-junit", "dotnet-trx", "mocha-json"):
        return call.fail(f"Input variable 'reporter' is invalid: {call.input('reporter')!r}")
    files = _glob_paths(call.job.workspace, call.input("path"))
    counts = read_junit(files)
    call.job.runner.junit_reads.append(counts)
    if not files and call.flag("fail-on-empty", True):
        return call.fail("No test report files were found")
    conclusion = "failure" if counts.failures + counts.errors else "success"
    if call.flag("use-actions-summary", False):
        call.summary(f"# {call.input('name')}\n{counts.tests} tests, "
                     f"{counts.failures + counts.errors} failed\n")
    else:
        event = call.job.runner.event
        head = event.payload.get("pull_request", {}).get("head", {}).get("sha", event.sha)
        answer = call.api("POST", f"/repos/{call.job.runner.repository}/check-runs", {
            "name": call.input("name"), "head_sha": head, "status": "completed",
            "conclusion": conclusion, "output": {"title": call.input("name"), "summary": ""}})
        if answer.status_code >= 400:
            return call.fail(f"HttpError: {answer.json().get('message', '')}")
    if conclusion == "failure" and call.flag("fail-on-error", True):
        return call.fail("Failed test were found and 'fail-on-error' option is set to true")
    return 0


def _artifact_files(call: ActionCall, spec: str, hidden: bool) -> tuple[Path | None,
                                                                         list[Path]]:
    """upload-artifact's search: each line a file, directory or glob (``!`` excludes); the
    root is the least common ancestor of the search paths; hidden files are left out unless
    ``include-hidden-files``."""
    included: set[Path] = set()
    roots: list[Path] = []
    for raw in spec.splitlines():
        line = raw.strip()
        if not line:
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!")
        path = Path(pattern) if Path(pattern).is_absolute() else call.job.workspace / pattern
        if "*" in pattern or "?" in pattern:
            anchor = Path(str(path).split("*")[0].split("?")[0])
            anchor = anchor if str(path).split("*")[0].endswith("/") else anchor.parent
            matched = {p for p in anchor.rglob("*") if p.is_file()
                       and fnmatch.fnmatch(str(p), str(path))} if anchor.is_dir() else set()
            root = anchor
        elif path.is_dir():
            matched = {p for p in path.rglob("*") if p.is_file()}
            root = path
        else:
            matched = {path} if path.is_file() else set()
            root = path.parent
        if negate:
            included -= matched
        else:
            included |= matched
            roots.append(root)
    if not hidden:
        included = {p for p in included
                    if not any(part.startswith(".") for part in p.relative_to(
                        _common_root(roots) or p.parent).parts)}
    return _common_root(roots), sorted(included)


def _common_root(roots: list[Path]) -> Path | None:
    if not roots:
        return None
    return Path(os.path.commonpath([str(r) for r in roots]))


def upload_artifact(call: ActionCall) -> int:
    """actions/upload-artifact (v4): the files go to the run's artifact store under
    ``name``; an existing name fails unless ``overwrite``; no file warns, errors or
    passes as ``if-no-files-found`` says."""
    name = call.input("name", "artifact")
    root, files = _artifact_files(call, call.input("path"),
                                  call.flag("include-hidden-files", False))
    store = call.job.runner.store / "artifacts" / name
    if not files:
        mode = call.input("if-no-files-found", "warn")
        message = f"No files were found with the provided path: {call.input('path')}. " \
                  "No artifacts will be uploaded."
        if mode == "error":
            return call.fail(message)
        if mode == "warn":
            call.warning(message)
        return 0
    if store.exists():
        if not call.flag("overwrite", False):
            return call.fail("Failed to CreateArtifact: Received non-retryable error: Failed "
                             "request: (409) Conflict: an artifact with this name already "
                             "exists on the workflow run")
        shutil.rmtree(store)
    assert root is not None
    for path in files:
        target = store / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    call.output("artifact-id", str(abs(hash(name)) % 10**9))
    return 0


def download_artifact(call: ActionCall) -> int:
    """actions/download-artifact (v4): ``name`` extracts that artifact into ``path``;
    otherwise every artifact matching ``pattern`` (all without one) lands in
    ``path/<artifact name>/``, or straight into ``path`` with ``merge-multiple``."""
    store = call.job.runner.store / "artifacts"
    given = Path(call.input("path", str(call.job.workspace)))
    destination = given if given.is_absolute() else call.job.workspace / given
    name = call.input("name")
    if name:
        if not (store / name).is_dir():
            return call.fail(f"Unable to download artifact(s): Artifact not found for name: "
                             f"{name}")
        chosen = [(store / name, destination)]
    else:
        pattern = call.input("pattern", "*")
        merge = call.flag("merge-multiple", False)
        chosen = [(p, destination if merge else destination / p.name)
                  for p in sorted(store.iterdir()) if fnmatch.fnmatchcase(p.name, pattern)]
        if not chosen:
            call.log.append(f"No artifacts found matching pattern {pattern!r}")
    for source, target in chosen:
        shutil.copytree(source, target, dirs_exist_ok=True)
    call.output("download-path", str(destination))
    return 0


def _cache_paths(call: ActionCall) -> list[Path]:
    return [Path(os.path.expanduser(line.strip())) for line in call.input("path").splitlines()
            if line.strip()]


def cache_restore(call: ActionCall) -> int:
    """actions/cache/restore: the entry saved under ``key``, else the newest whose key starts
    with one of ``restore-keys`` (in order); ``cache-hit`` is true only for ``key`` itself."""
    caches = call.job.runner.store / "caches"
    key = call.input("key")
    if not key:
        return call.fail("Input required and not supplied: key")
    call.output("cache-primary-key", key)
    candidates = [key] + [line.strip() for line in call.input("restore-keys").splitlines()
                          if line.strip()]
    matched: Path | None = None
    for index, wanted in enumerate(candidates):
        entries = [p for p in caches.iterdir()
                   if (p.name == _cache_dir(wanted) if index == 0
                       else json.loads((p / "key.json").read_text())["key"].startswith(wanted))]
        if entries:
            matched = max(entries, key=lambda p: p.stat().st_mtime_ns)
            break
    if matched is None:
        if call.flag("fail-on-cache-miss", False):
            return call.fail(f"Failed to restore cache entry. Exiting as fail-on-cache-miss is "
                             f"set. Input key: {key}")
        call.log.append(f"Cache not found for input keys: {', '.join(candidates)}")
        return 0
    matched_key = json.loads((matched / "key.json").read_text())["key"]
    for index, path in enumerate(_cache_paths(call)):
        saved = matched / str(index)
        if saved.is_dir():
            shutil.copytree(saved, path, dirs_exist_ok=True)
    call.output("cache-matched-key", matched_key)
    call.output("cache-hit", "true" if matched_key == key else "false")
    return 0


def _cache_dir(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def cache_save(call: ActionCall) -> int:
    """actions/cache/save: a key that exists already, or paths that do not, only warn (the
    real action does not fail the job for either)."""
    key = call.input("key")
    if not key:
        return call.fail("Input required and not supplied: key")
    entry = call.job.runner.store / "caches" / _cache_dir(key)
    if entry.exists():
        call.warning(f"Failed to save: Unable to reserve cache with key {key}, another job may "
                     "be creating this cache.")
        return 0
    paths = _cache_paths(call)
    if not any(p.exists() for p in paths):
        call.warning("Path Validation Error: Path(s) specified in the action for caching "
                     "do(es) not exist, hence no cache is being saved.")
        return 0
    entry.mkdir(parents=True)
    (entry / "key.json").write_text(json.dumps({"key": key}))
    for index, path in enumerate(paths):
        if path.is_dir():
            shutil.copytree(path, entry / str(index))
    return 0


#: The stand-ins, by action name (no ``@ref``; the ref is checked to be a commit sha).
STAND_INS: dict[str, StandIn] = {
    "actions/checkout": checkout,
    "actions/setup-python": setup_python,
    "google-github-actions/auth": google_auth,
    "github/codeql-action/upload-sarif": upload_sarif,
    "mikepenz/action-junit-report": junit_report,
    "dorny/test-reporter": test_reporter,
    "actions/upload-artifact": upload_artifact,
    "actions/download-artifact": download_artifact,
    "actions/cache/restore": cache_restore,
    "actions/cache/save": cache_save,
}


# =============================================================================================
# The project under test, as a repository pip can install from offline
# =============================================================================================

def dependency_links(site_dirs: Iterable[Path], destination: Path,
                     leave_out: Callable[[str], bool]) -> Path:
    """A directory of symlinks to every entry of ``site_dirs`` except those ``leave_out``
    names (and ``.pth`` files, which only a site directory would run): a job's Python sees
    the dependencies through it and nothing else."""
    destination.mkdir(parents=True, exist_ok=True)
    for site in site_dirs:
        for entry in sorted(site.iterdir()):
            if entry.name in ("__pycache__",) or entry.suffix == ".pth" or leave_out(entry.name):
                continue
            link = destination / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return destination


def git_bare_clone(source: Path, destination: Path) -> Path:
    """A bare clone that serves any commit it has (as GitHub serves refs/pull/N/merge by
    sha), for the checkout stand-in to fetch from."""
    subprocess.run(["git", "clone", "-q", "--bare", "--mirror", str(source), str(destination)],
                   check=True, capture_output=True, timeout=120)
    subprocess.run(["git", "-C", str(destination), "config", "uploadpack.allowAnySHA1InWant",
                    "true"], check=True, capture_output=True, timeout=30)
    return destination


@dataclass(frozen=True)
class PullRequest:
    """A pull request as GitHub serves it: ``refs/pull/N/head`` and the test merge
    ``refs/pull/N/merge`` in the base repository."""

    number: int
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    merge_sha: str


def publish_pull_request(work: Path, origin: Path, *, number: int, base: str = "main",
                         head: str = "feature", fork: bool = False) -> PullRequest:
    """Make ``origin`` a bare copy of the repository ``work`` (branches ``base`` and
    ``head``) holding the pull request's refs as GitHub does: ``refs/pull/N/head`` at the head
    and ``refs/pull/N/merge`` at a merge of the head into the base. A ``fork``'s head branch
    exists only in the fork, so ``origin`` has it only as ``refs/pull/N/head``."""
    env = {**os.environ, **FIXED_GIT_ENV, "HOME": str(work.parent)}

    def git(*args: str, cwd: Path = work) -> str:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                              check=True, timeout=120).stdout.strip()

    base_sha = git("rev-parse", base)
    head_sha = git("rev-parse", head)
    git("checkout", "-q", "--detach", base_sha)
    git("-c", "commit.gpgsign=false", "merge", "-q", "--no-ff", "-m",
        f"Merge {head_sha} into {base_sha}", head_sha)
    merge_sha = git("rev-parse", "HEAD")
    git("checkout", "-q", head)
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True,
                   capture_output=True, timeout=60)
    git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=origin)
    branches = [f"{base}:refs/heads/{base}"] + ([] if fork else [f"{head}:refs/heads/{head}"])
    git("push", "-q", str(origin), *branches, f"{head_sha}:refs/pull/{number}/head",
        f"{merge_sha}:refs/pull/{number}/merge")
    git("symbolic-ref", "HEAD", f"refs/heads/{base}", cwd=origin)
    return PullRequest(number, base, base_sha, head, head_sha, merge_sha)


def pull_request_event(pr: PullRequest, *, repository: str, head_repository: str,
                       author: str = "contributor", title: str = "A change",
                       body: str = "") -> Event:
    """The ``pull_request`` (synchronize) event GitHub sends for ``pr``: ``GITHUB_SHA`` and
    ``GITHUB_REF`` are the test merge, ``GITHUB_HEAD_REF``/``GITHUB_BASE_REF`` the branches;
    ``head_repository`` other than ``repository`` makes it a fork's."""
    fork = head_repository != repository
    repo = {"full_name": repository, "name": repository.split("/")[1],
            "owner": {"login": repository.split("/")[0]}, "default_branch": pr.base_ref,
            "fork": False, "private": False}
    payload = {
        "action": "synchronize", "number": pr.number,
        "pull_request": {
            "number": pr.number, "title": title, "body": body, "state": "open",
            "user": {"login": author, "type": "User"},
            "head": {"ref": pr.head_ref, "sha": pr.head_sha, "label": f"{author}:{pr.head_ref}",
                     "repo": {"full_name": head_repository, "fork": fork,
                              "name": head_repository.split("/")[1]}},
            "base": {"ref": pr.base_ref, "sha": pr.base_sha, "repo": repo},
            "author_association": "CONTRIBUTOR" if fork else "COLLABORATOR",
        },
        "repository": repo, "sender": {"login": author, "type": "User"},
    }
    return Event("pull_request", payload, sha=pr.merge_sha, ref=f"refs/pull/{pr.number}/merge",
                 base_ref=pr.base_ref, head_ref=pr.head_ref, actor=author)


def issue_comment_event(pr: PullRequest, *, repository: str, head_repository: str,
                        body: str, commenter: str, association: str, comment_id: int = 4242,
                        user_type: str = "User", title: str = "A change") -> Event:
    """The ``issue_comment`` (created) event of a comment on ``pr``: it runs on the default
    branch (``GITHUB_SHA`` its tip, ``GITHUB_REF`` ``refs/heads/<base>``), with no base or
    head ref, whatever repository the pull request comes from."""
    repo = {"full_name": repository, "name": repository.split("/")[1],
            "owner": {"login": repository.split("/")[0]}, "default_branch": pr.base_ref,
            "fork": False, "private": False}
    payload = {
        "action": "created",
        "issue": {"number": pr.number, "title": title, "body": "", "state": "open",
                  "user": {"login": head_repository.split("/")[0], "type": "User"},
                  "pull_request": {"url": f"https://api.github.com/repos/{repository}/pulls/"
                                          f"{pr.number}"}},
        "comment": {"id": comment_id, "body": body, "author_association": association,
                    "user": {"login": commenter, "type": user_type}},
        "repository": repo, "sender": {"login": commenter, "type": user_type},
    }
    return Event("issue_comment", payload, sha=pr.base_sha, ref=f"refs/heads/{pr.base_ref}",
                 actor=commenter)
