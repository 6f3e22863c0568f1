"""The security gate: paths the model may never read, whatever the tool.

A CI checkout keeps a token in ``.git/config``; a repository may track ``.env`` files, private
keys and package-manager credentials. The gate is checked before every tool call (on path
arguments) and on every path a tool is about to return (listings, search hits), after symlinks
are resolved. It fails closed: if deciding raises, the path is denied. Every denial is logged on
the ``pytest_secreview.tools`` logger and counted for the item's usage report.

Matching is case-insensitive and ignores what some file systems ignore (trailing dots and
spaces, zero-width characters, NTFS short name ``GIT~1``), so ``.GIT/config`` or ``.env.``
cannot slip through on a case-insensitive checkout.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from typing import Any

from ..logs import get_logger
from .errors import GateDenied
from .output import valid_utf8
from .redaction import redact, strip_control

logger = get_logger("pytest_secreview.tools")

#: A custom rule: returns a denial reason for a (normalised, lower-case) path, or None.
DenyRule = Callable[[str], str | None]

_GIT = "git internals (.git may hold credentials, such as a CI token in .git/config)"
_ENV = "environment file (.env files hold secrets)"
_KEY = "private key or keystore"
_CRED = "credential file"
_STATE = "Terraform state (holds secrets in plain text)"

# Directories whose whole content is denied.
_DENIED_DIRS: dict[str, str] = {
    ".git": _GIT,
    "git~1": _GIT,
    ".ssh": "SSH keys and configuration",
    ".gnupg": "GnuPG keyring",
    ".aws": "AWS credentials and configuration",
}

# Directory sequences (consecutive components) whose content is denied.
_DENIED_DIR_SEQUENCES: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".config", "gcloud"), "gcloud credentials"),
    ((".config", "gh"), "GitHub CLI credentials"),
)

# Exact file names.
_DENIED_NAMES: dict[str, str] = {
    ".env": _ENV,
    ".envrc": _ENV,
    **dict.fromkeys(
        ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
         "identity", "secring.gpg"),
        _KEY,
    ),
    **dict.fromkeys(
        (".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".pgpass", ".htpasswd",
         ".yarnrc", ".yarnrc.yml", ".vault-token", ".boto", ".s3cfg", ".dockercfg", ".my.cnf",
         ".terraformrc", "terraform.rc", "kubeconfig", "application_default_credentials.json",
         "credentials.db", "access_tokens.db", "legacy_credentials"),
        _CRED,
    ),
}

# Glob patterns on the file name.
_DENIED_NAME_GLOBS: tuple[tuple[str, str], ...] = (
    (".env.*", _ENV),
    ("*.env", _ENV),
    *((glob, _KEY) for glob in (
        "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.p8", "*.ppk", "*.bks",
        "*.kdbx",
    )),
    ("service-account*.json", _CRED),
    ("service_account*.json", _CRED),
    ("*-service-account*.json", _CRED),
    ("client_secret*.json", _CRED),
    ("kubeconfig*", _CRED),
    ("*.kubeconfig", _CRED),
    ("*.tfstate", _STATE),
    ("*.tfstate.*", _STATE),
)

# Trailing path sequences (parent directory + file name).
_DENIED_SUFFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".docker", "config.json"), _CRED),
    ((".kube", "config"), _CRED),
    ((".cargo", "credentials"), _CRED),
    ((".cargo", "credentials.toml"), _CRED),
    ((".gem", "credentials"), _CRED),
    ((".composer", "auth.json"), _CRED),
    ((".config", "hub"), _CRED),
)


def _normalise(path: str) -> list[str]:
    """Lower-case components as a permissive file system would see them."""
    text = unicodedata.normalize("NFKC", path)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").casefold()
    parts = [part for part in text.replace("\\", "/").split("/") if part not in ("", ".")]
    # Windows drops trailing dots and spaces: ".git." and ".env " name the same files.
    return [part.rstrip(" .") or part for part in parts]


def _contains(parts: list[str], sequence: tuple[str, ...]) -> bool:
    size = len(sequence)
    return any(tuple(parts[i : i + size]) == sequence for i in range(len(parts) - size + 1))


def deny_reason(path: str) -> str | None:
    """Why the built-in rules deny ``path``, or None when it may be read.

    Raises on malformed input; :meth:`Gate.reason` turns that into a denial.
    """
    parts = _normalise(path)
    if not parts:
        return None
    for part in parts[:-1]:
        if part in _DENIED_DIRS:
            return _DENIED_DIRS[part]
    for sequence, reason in _DENIED_DIR_SEQUENCES:
        if _contains(parts[:-1], sequence):
            return reason
    name = parts[-1]
    # A ".git" *file* (submodules, worktrees) points at git internals too.
    if name in _DENIED_DIRS:
        return _DENIED_DIRS[name]
    if name in _DENIED_NAMES:
        return _DENIED_NAMES[name]
    for glob, reason in _DENIED_NAME_GLOBS:
        if fnmatchcase(name, glob):
            return reason
    for suffix, reason in _DENIED_SUFFIXES:
        if tuple(parts[-len(suffix) :]) == suffix:
            return reason
    return None


@dataclass(frozen=True)
class Denial:
    """One refusal. ``stage`` is ``"call"`` (the call was refused) or ``"result"`` (a path was
    withheld from a listing or search). ``path`` is already cleaned for logs and reports."""

    tool: str
    path: str
    reason: str
    stage: str

    def to_dict(self) -> dict[str, str]:
        """JSON-safe form for reports."""
        return asdict(self)


def display_path(path: str) -> str:
    """A path made safe for logs and reports: one line, no control characters, no secrets."""
    one_line = strip_control(path).replace("\n", "\\n").replace("\t", "\\t")
    return valid_utf8(redact(one_line))[:200]


class Gate:
    """Decides which paths tools may touch; one instance per :class:`ToolRegistry`.

    ``extra_rules`` add project-specific denials (each receives the lower-cased, normalised
    path and returns a reason or None). A rule that raises denies the path.
    """

    def __init__(self, extra_rules: Iterable[DenyRule] = ()) -> None:
        self._rules: tuple[DenyRule, ...] = (deny_reason, *extra_rules)
        self._denials: list[Denial] = []

    @property
    def denials(self) -> tuple[Denial, ...]:
        """Every denial recorded so far, oldest first."""
        return tuple(self._denials)

    def reason(self, path: str) -> str | None:
        """The denial reason for ``path``, or None. Fails closed: any error denies."""
        try:
            normalised = "/".join(_normalise(path))
            for rule in self._rules:
                reason = rule(normalised)
                if reason:
                    return str(reason)
        except Exception as exc:  # fail closed: a broken rule must not open the gate
            return f"security gate error ({type(exc).__name__}); denied to be safe"
        return None

    def record(self, tool: str, path: str, reason: str, *, stage: str = "call") -> Denial:
        """Count and log one denial."""
        denial = Denial(tool, display_path(path), reason, stage)
        self._denials.append(denial)
        level = logging.WARNING if stage == "call" else logging.INFO
        logger.log(level, "secreview tool %s: %s %r: %s", tool,
                   "denied" if stage == "call" else "withheld", denial.path, reason)
        return denial

    def require(self, path: str, *, tool: str) -> None:
        """Raise :class:`GateDenied` (recorded and logged) when ``path`` is denied."""
        reason = self.reason(path)
        if reason is not None:
            self.record(tool, path, reason)
            raise GateDenied(path, reason)

    def filter(
        self, paths: Iterable[str], *, tool: str
    ) -> tuple[list[str], list[tuple[str, str]]]:
        """Split result paths into those that may be shown and the ``(path, reason)`` of those
        withheld (:func:`withheld_note` names them to the model)."""
        allowed: list[str] = []
        withheld: list[tuple[str, str]] = []
        for path in paths:
            reason = self.reason(path)
            if reason is None:
                allowed.append(path)
            else:
                withheld.append((path, reason))
                self.record(tool, path, reason, stage="result")
        return allowed, withheld


#: Withheld entries a tool result names one by one; the rest are counted.
MAX_WITHHELD_NAMED = 30


def _denied_directory(path: str) -> str | None:
    """The leading directories of ``path`` that a whole-directory rule denies (``.aws`` for
    ``.aws/credentials``), as written in ``path``; None when the file itself is denied."""
    parts = path.split("/")
    lowered = _normalise(path)
    if len(lowered) != len(parts):
        return None
    for i, part in enumerate(lowered[:-1]):
        if part in _DENIED_DIRS:
            return "/".join(parts[: i + 1])
    for sequence, _reason in _DENIED_DIR_SEQUENCES:
        for i in range(len(lowered) - len(sequence)):
            if tuple(lowered[i : i + len(sequence)]) == sequence:
                return "/".join(parts[: i + len(sequence)])
    return None


def withheld_note(withheld: Iterable[tuple[str, str]]) -> str:
    """The lines telling a model what the gate withheld from a result and why: each file by
    name, a directory withheld as a whole once with its file count; at most
    :data:`MAX_WITHHELD_NAMED` entries, then a count. Empty when nothing was withheld."""
    entries: dict[str, list[Any]] = {}
    total = 0
    for path, reason in withheld:
        total += 1
        directory = _denied_directory(path)
        key = f"{directory}/" if directory is not None else path
        entry = entries.setdefault(key, [0, reason])
        entry[0] += 1
    if not total:
        return ""
    lines = [f"[{total} matching paths withheld by the security gate (secret-bearing files, "
             "which no tool may read):"]
    for key, (count, reason) in list(entries.items())[:MAX_WITHHELD_NAMED]:
        what = f"{display_path(key)} ({count} files)" if key.endswith("/") else display_path(key)
        lines.append(f"  {what}: {reason}")
    if len(entries) > MAX_WITHHELD_NAMED:
        lines.append(f"  ... and {len(entries) - MAX_WITHHELD_NAMED} more entries")
    lines.append("]")
    return "\n".join(lines)
