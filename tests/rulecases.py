"""Semgrep-style test cases for the bundled rule pack.

Layout: ``tests/rule_cases/<rule-id>/`` is a miniature repository root. Every file below it is
one case whose repository path is its path relative to that directory (so
``gha-script-injection/.github/workflows/triage.yml`` is reviewed as
``.github/workflows/triage.yml``). A plain file is a newly added file: all of its lines are
added lines. A pair ``name.before.ext`` / ``name.after.ext`` is a modification of ``name.ext``;
its diff comes from :func:`difflib` with git's three lines of context.

Annotations are comment lines (``#``, ``//``, ``--``, ``<!-- -->``, ``{# #}``, ``{/* */}``) that
apply to
the next code line and are stripped before the diff is built, so they can never match a rule:

``ruleid: <id>[, <id>...]``
    the next line MUST produce a ``detect`` finding of that rule: on an added line in a new file
    or an ``.after`` file, on a removed line when written in a ``.before`` file.
``ok: <id>``
    the next line must NOT produce a finding of that rule (a safe twin).
``match: <id>``
    the hunk holding the next line must be selected by the rule's matcher: an item is created
    and the model judges it (for what a per-line regex cannot decide).
``noitem: <id>``
    (anywhere) the rule's matcher must not select this file at all.

Secrets never appear literally: ``{{NAME}}`` placeholders are replaced at run time with values
assembled here, so neither this repository nor its history trips a secret scanner.
"""

from __future__ import annotations

import base64
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pytest_secreview.bench.trees import ALNUM, noise
from pytest_secreview.diff.model import ChangeKind, FileDiff, Hunk, Line
from pytest_secreview.rules.model import Rule
from pytest_secreview.rules.parse import parse_rule

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"
CASES_DIR = Path(__file__).resolve().parent / "rule_cases"
#: Files of this directory are ordinary, security-irrelevant changes: no rule may select them.
BENIGN_DIR = "_benign"

KINDS = ("ruleid", "ok", "match", "noitem")
CONTEXT = 3  # git's default number of context lines

_ANNOTATION = re.compile(
    r"^\s*(?:#|//|--|;|<!--|\{#|\{/\*|/\*)\s*(?P<kind>ruleid|ok|match|noitem)\s*:\s*"
    r"(?P<ids>[a-z0-9][a-z0-9._-]*(?:\s*,\s*[a-z0-9][a-z0-9._-]*)*)\s*(?:-->|#\}|\*/\}|\*/)?\s*$"
)
_PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")
_PAIR = re.compile(r"^(?P<stem>.+)\.(?P<side>before|after)(?P<ext>(\.[^.]+)?)$")


def _key_body(width: int, lines: int) -> list[str]:
    # Deterministic base64-looking filler: structurally a key block, cryptographically nothing.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return ["".join(alphabet[(i * 7 + j * 13) % 64] for j in range(width)) for i in range(lines)]


def _pem(label: str) -> list[str]:
    dashes = "-" * 5
    return [f"{dashes}BEGIN {label}{dashes}", *_key_body(64, 4), f"{dashes}END {label}{dashes}"]


_UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_BASE64 = ALNUM + "/+"
_URLSAFE = ALNUM + "_-"


def _placeholders() -> dict[str, str]:
    """Fake credentials with the shape of real ones, assembled so that no literal exists.
    Their bodies look generated (:func:`pytest_secreview.bench.trees.noise`): a value made
    of a repeated unit or a sequence says it is a placeholder, and the rule does not report
    it."""
    private = "PRIVATE " + "KEY"
    aws_key_id = "AK" + "IA" + noise("aws-key-id", _UPPER_DIGITS, 16)
    return {
        "AWS_ACCESS_KEY_ID": aws_key_id,
        # The same key split, encoded and reversed (tests/rule_cases/hardcoded-secrets/
        # disguised_keys.py): none of these forms is a key shape as written.
        "AWS_ACCESS_KEY_ID_HEAD": aws_key_id[:4],
        "AWS_ACCESS_KEY_ID_TAIL": aws_key_id[4:],
        "AWS_ACCESS_KEY_ID_BASE64": base64.b64encode(aws_key_id.encode()).decode(),
        "AWS_ACCESS_KEY_ID_HEX": aws_key_id.encode().hex(),
        "AWS_ACCESS_KEY_ID_REVERSED": aws_key_id[::-1],
        "AWS_SECRET_ACCESS_KEY": noise("aws-secret", _BASE64, 40),
        "AWS_EXAMPLE_KEY_ID": "AK" + "IA" + "IOSFODNN7" + "EXAMPLE",
        "PUTTY_KEY_HEADER": "PuTTY-User-" + "Key-File-3: ssh-ed25519",
        "GITHUB_TOKEN": "gh" + "p_" + noise("github", ALNUM, 36),
        "GITHUB_TOKEN_FILLER": "gh" + "p_" + "x" * 36,  # the shape, filled: a placeholder
        "GITHUB_PAT": "github" + "_pat_" + noise("github-pat", ALNUM, 22) + "_"
        + noise("github-pat-2", ALNUM, 59),
        "SLACK_TOKEN": "xo" + "xb-" + noise("slack-1", "0123456789", 11) + "-"
        + noise("slack-2", "0123456789", 12) + "-" + noise("slack-3", ALNUM, 24),
        "SLACK_WEBHOOK": "https://hooks." + "slack.com/services/" + "T0"
        + noise("hook-t", _UPPER_DIGITS, 7) + "/B0" + noise("hook-b", _UPPER_DIGITS, 7)
        + "/" + noise("hook", ALNUM, 24),
        "GCP_API_KEY": "AI" + "za" + "Sy" + noise("gcp", _URLSAFE, 33),
        "STRIPE_SECRET_KEY": "sk" + "_live_" + noise("stripe", ALNUM, 27),
        "GENERIC_PASSWORD": "".join(["Tr0ub4dor", "-3xyzzy!"]),
        "GENERIC_SECRET": "".join(["s3cr3t", "VaLuE", "9f8e7d6c"]),
        "DB_URL_WITH_PASSWORD": "".join(
            ["postgres", "://app:", "Pa55", "w0rdValue", "@db.internal:5432/app"]
        ),
        "PRIVATE_KEY_BLOCK": "\n".join(_pem("RSA " + private)),
        "OPENSSH_PRIVATE_KEY_BLOCK": "\n".join(_pem("OPENSSH " + private)),
        "PRIVATE_KEY_JSON": "\\n".join(_pem(private)) + "\\n",
        "PRIVATE_KEY_MARKER": _pem("RSA " + private)[0],
        "PUBLIC_KEY_BLOCK": "\n".join(_pem("PUBLIC KEY")),
        "GITLAB_TOKEN": "gl" + "pat-" + noise("gitlab", ALNUM, 24),
        "NPM_TOKEN": "np" + "m_" + noise("npm", ALNUM, 36),
        "PYPI_TOKEN": "py" + "pi-AgE" + noise("pypi", _URLSAFE, 60),
        "HUGGINGFACE_TOKEN": "h" + "f_" + noise("hf", ALNUM, 34),
        "SENDGRID_KEY": "S" + "G." + noise("sg-1", _URLSAFE, 22) + "." + noise("sg-2",
                                                                                  _URLSAFE, 43),
        "ANTHROPIC_KEY": "sk-" + "ant-" + "api03-" + noise("anthropic", _URLSAFE, 36),
        "OPENAI_KEY": "sk-" + "proj-" + noise("openai", _URLSAFE, 36),
        "GOOGLE_OAUTH_SECRET": "GOC" + "SPX-" + noise("oauth", _URLSAFE, 28),
        "JWT": "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiIxMjM0In0" + "."
        + "dBjftJeZ4CVP" + "mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "CERTIFICATE_BLOCK": "\n".join(_pem("CERTIFICATE")),
        # The example token jwt.io shows (HS256; claims sub "1234567890", name "John Doe"):
        # a documented example of the standard, not a credential.
        "JWT_IO_EXAMPLE": ".".join([
            _b64url('{"alg":"HS256","typ":"JWT"}'),
            _b64url('{"sub":"1234567890","name":"John Doe","iat":1516239022}'),
            "SflKxwRJSMeKKF2QT4fwpMeJ" + "f36POk6yJV_adQssw5c"]),
    }


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


PLACEHOLDERS = _placeholders()


def substitute(text: str, origin: str = "<text>") -> str:
    """Replace every ``{{NAME}}`` placeholder; an unknown name is an error, not a silent miss."""

    def repl(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in PLACEHOLDERS:
            known = ", ".join(sorted(PLACEHOLDERS))
            raise ValueError(f"{origin}: unknown placeholder {{{{{name}}}}}; known: {known}")
        return PLACEHOLDERS[name]

    return _PLACEHOLDER.sub(repl, text)


@dataclass(frozen=True)
class Annotation:
    kind: str  # one of KINDS
    rule_id: str
    line: int  # 1-based line of the stripped text it applies to (0 for ``noitem``)


@dataclass(frozen=True)
class CaseText:
    """One side of a case: its code lines (annotations stripped) and its annotations."""

    lines: tuple[str, ...]
    annotations: tuple[Annotation, ...]

    def lines_for(self, kind: str, rule_id: str) -> set[int]:
        return {a.line for a in self.annotations if a.kind == kind and a.rule_id == rule_id}


def parse_case_text(raw: str, origin: str) -> CaseText:
    """Substitute placeholders, then strip annotation lines and attach each to the next line."""
    text = substitute(raw.replace("\r\n", "\n"), origin)
    lines: list[str] = []
    pending: list[tuple[str, str]] = []
    annotations: list[Annotation] = []
    body = text[:-1] if text.endswith("\n") else text
    for line in body.split("\n"):
        found = _ANNOTATION.match(line)
        if found is None:
            lines.append(line)
            for kind, rule_id in pending:
                annotations.append(Annotation(kind, rule_id, len(lines)))
            pending.clear()
            continue
        for rule_id in (s.strip() for s in found.group("ids").split(",")):
            if found.group("kind") == "noitem":
                annotations.append(Annotation("noitem", rule_id, 0))
            else:
                pending.append((found.group("kind"), rule_id))
    if pending:
        raise ValueError(f"{origin}: annotation {pending[0]} is not followed by a code line")
    return CaseText(tuple(lines), tuple(annotations))


def _line_text(text: str) -> str:
    return text.rstrip("\r")


def added_file(path: str, lines: tuple[str, ...]) -> FileDiff:
    """A new file: one hunk of added lines, as ``git diff`` prints it."""
    added = tuple(Line(i, _line_text(t), i) for i, t in enumerate(lines, start=1))
    header = f"@@ -0,0 +1,{len(lines)} @@"
    body = "".join(f"+{t}\n" for t in lines)
    hunk = Hunk(0, 0, 1, len(lines), header, added, (), f"{header}\n{body}")
    return FileDiff(path=path, old_path=None, kind=ChangeKind.ADDED, hunks=(hunk,))


def _range(start: int, count: int) -> str:
    # git prints the line before an empty range, and omits a count of one
    return f"{start}" if count == 1 else f"{start},{count}"


def modified_file(
    path: str, before: tuple[str, ...], after: tuple[str, ...], context: int = CONTEXT
) -> FileDiff:
    """A modification of ``path`` with git-style hunks.

    A removed line's ``anchor`` is the head line now at the place of the removal (the next
    surviving line), or the last head line when the removal is at the end of the file.
    """
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    last_head = max(len(after), 1)
    hunks: list[Hunk] = []
    for group in matcher.get_grouped_opcodes(context):
        i1, j1 = group[0][1], group[0][3]
        i2, j2 = group[-1][2], group[-1][4]
        old_count, new_count = i2 - i1, j2 - j1
        old_start = i1 + 1 if old_count else i1
        new_start = j1 + 1 if new_count else j1
        header = f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@"
        added: list[Line] = []
        removed: list[Line] = []
        body: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                body.extend(f" {t}" for t in before[a1:a2])
                continue
            if tag in ("replace", "delete"):
                anchor = min(b1 + 1, last_head)
                for k in range(a1, a2):
                    removed.append(Line(k + 1, _line_text(before[k]), anchor))
                    body.append(f"-{before[k]}")
            if tag in ("replace", "insert"):
                for k in range(b1, b2):
                    added.append(Line(k + 1, _line_text(after[k]), k + 1))
                    body.append(f"+{after[k]}")
        text = header + "\n" + "".join(f"{b}\n" for b in body)
        hunks.append(
            Hunk(old_start, old_count, new_start, new_count, header, tuple(added),
                 tuple(removed), text)
        )
    return FileDiff(path=path, old_path=path, kind=ChangeKind.MODIFIED, hunks=tuple(hunks))


def git_patch(file: FileDiff) -> str:
    """``file`` rendered as a ``diff --git`` patch (for cross-checking a diff parser)."""
    old = "/dev/null" if file.kind is ChangeKind.ADDED else f"a/{file.old_path or file.path}"
    head = [f"diff --git a/{file.path} b/{file.path}"]
    if file.kind is ChangeKind.ADDED:
        head.append("new file mode 100644")
    head += [f"--- {old}", f"+++ b/{file.path}"]
    return "\n".join(head) + "\n" + "".join(h.text for h in file.hunks)


@dataclass(frozen=True)
class Case:
    """One case file (or before/after pair) of one rule directory."""

    rule_dir: str  # the directory under rule_cases/, normally a rule id
    name: str  # display name relative to the rule directory
    path: str  # repository path the diff is about
    after: CaseText
    before: CaseText | None = None
    files: tuple[Path, ...] = field(default=())

    @property
    def id(self) -> str:
        return f"{self.rule_dir}/{self.name}"

    @property
    def suffix(self) -> str:
        return Path(self.path).suffix.lower()

    @property
    def file_diff(self) -> FileDiff:
        return _file_diff(self)

    def annotated_rules(self) -> set[str]:
        sides = [self.after] + ([self.before] if self.before else [])
        return {a.rule_id for side in sides for a in side.annotations}

    def _locations(self, kind: str, rule_id: str) -> set[tuple[str, int]]:
        """(side, head line) pairs: ``+`` for added lines, ``-`` for removed lines (anchor)."""
        found = {("+", n) for n in self.after.lines_for(kind, rule_id)}
        if self.before is not None:
            removed = {line.number: line for line in self.file_diff.removed_lines}
            for number in self.before.lines_for(kind, rule_id):
                if number in removed:
                    found.add(("-", removed[number].anchor))
                elif kind in ("ruleid", "match"):
                    raise AssertionError(
                        f"{self.id}: '{kind}: {rule_id}' marks before-line {number}, which this "
                        "diff does not remove"
                    )
        if kind in ("ruleid", "match"):
            added = {line.number for line in self.file_diff.added_lines}
            for side, number in found:
                if side == "+" and number not in added:
                    raise AssertionError(
                        f"{self.id}: '{kind}: {rule_id}' marks line {number}, which this diff "
                        "does not add"
                    )
        return found

    def expected_findings(self, rule_id: str) -> set[tuple[str, int]]:
        return self._locations("ruleid", rule_id)

    def safe_locations(self, rule_id: str) -> set[tuple[str, int]]:
        return self._locations("ok", rule_id)

    def match_locations(self, rule_id: str) -> set[tuple[str, int]]:
        return self._locations("match", rule_id) | self._locations("ruleid", rule_id)

    def forbids_item(self, rule_id: str) -> bool:
        if self.rule_dir == BENIGN_DIR:
            return True
        sides = [self.after] + ([self.before] if self.before else [])
        return any(
            a.kind == "noitem" and a.rule_id == rule_id for side in sides for a in side.annotations
        )

    def is_vulnerable_for(self, rule_id: str) -> bool:
        return bool(self.match_locations(rule_id))


@cache
def _file_diff(case: Case) -> FileDiff:
    if case.before is None:
        return added_file(case.path, case.after.lines)
    return modified_file(case.path, case.before.lines, case.after.lines)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def iter_cases(cases_dir: Path = CASES_DIR) -> Iterator[Case]:
    """Every case below ``cases_dir``, in a stable order."""
    for rule_dir in sorted(p for p in cases_dir.iterdir() if p.is_dir()):
        if rule_dir.name.startswith((".", "__")):
            continue
        files = sorted(
            p for p in rule_dir.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )
        pairs: dict[str, dict[str, Path]] = {}
        for file in files:
            rel = file.relative_to(rule_dir).as_posix()
            pair = _PAIR.match(rel)
            if pair is None:
                yield Case(rule_dir.name, rel, rel, parse_case_text(_read(file), str(file)),
                           files=(file,))
                continue
            target = pair.group("stem") + pair.group("ext")
            pairs.setdefault(target, {})[pair.group("side")] = file
        for target, sides in sorted(pairs.items()):
            if set(sides) != {"before", "after"}:
                raise ValueError(f"{rule_dir.name}/{target}: a .before file needs an .after twin")
            stem, ext = Path(target).stem, Path(target).suffix
            parent = Path(target).parent.as_posix()
            name = f"{stem}.before-after{ext}"
            name = name if parent == "." else f"{parent}/{name}"
            yield Case(
                rule_dir.name,
                name,
                target,
                parse_case_text(_read(sides["after"]), str(sides["after"])),
                parse_case_text(_read(sides["before"]), str(sides["before"])),
                files=(sides["before"], sides["after"]),
            )


@cache
def load_cases() -> tuple[Case, ...]:
    return tuple(iter_cases())


@cache
def pack_rule_files() -> list[Path]:
    """The bundled rules the annotated cases describe: every rule but the scanner rules (an
    external scanner's results are tested with the real scanner in tests/test_scanners.py)
    and the pull-request-scoped ones (the intent audit makes one item per change, not per
    file; tests/test_audit_intent.py tests it)."""
    return [path for path in sorted(RULES_DIR.glob("*.md"))
            if b"\nscanner:" not in path.read_bytes()
            and b"\nscope: pull_request" not in path.read_bytes()]


def all_rules() -> tuple[Rule, ...]:
    """Every bundled rule, parsed exactly as the plugin parses it."""
    return tuple(
        parse_rule(path.read_bytes(), f"rules/{path.name}")
        for path in sorted(RULES_DIR.glob("*.md"))
    )


def load_rules() -> tuple[Rule, ...]:
    """Every specific pack rule (:func:`pack_rule_files`), parsed exactly as the plugin parses
    it: not the general review rule (``coverage:``), which reads every hunk by design and has
    its own corpus in ``tests/coverage_cases/``."""
    parsed = (parse_rule(path.read_bytes(), f"rules/{path.name}") for path in pack_rule_files())
    return tuple(rule for rule in parsed if rule.coverage is None)


def rules_by_id() -> dict[str, Rule]:
    return {rule.id: rule for rule in all_rules()}
