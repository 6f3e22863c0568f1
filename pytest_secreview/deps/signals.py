"""Supply-chain signals that need no database: each a :class:`Signal` on the head line that
introduces it.

- ``typosquat``: a new package name one or two edits from a popular one (:mod:`.popular`)
  and not itself well known (one of the registry's 15,000 most downloaded);
- ``direct-url``, ``vcs``, ``local-path``: a requirement fetched from a URL, a version control
  repository or a path instead of the registry (``insecure-url`` when over plain http);
- ``index-url``, ``extra-index-url``, ``trusted-host``, ``find-links``, ``registry``,
  ``remote-include``: where packages come from changes (dependency confusion, TLS checks off);
- ``hashes-removed``, ``require-hashes-removed``: hash pinning removed;
- ``pin-widened``: an exact or bounded pin becomes an open range;
- ``unpinned-action``: a GitHub Actions ``uses:`` added or changed without a full commit SHA.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.severity import Severity
from .changes import ManifestChange
from .model import Requirement, Source
from .popular import POPULAR, well_known
from .versions import is_open


@dataclass(frozen=True)
class Signal:
    """One supply-chain finding of a file, before it becomes a Finding."""

    check: str
    line: int
    severity: Severity
    cwe: str
    message: str
    recommendation: str
    confidence: float = 0.9
    anchor: str = ""  # what identifies it across line shifts (default: the line's text)
    #: What a model's second look is shown besides the message (an advisory's details and
    #: affected functions: untrusted text); '' for none.
    context: str = ""


def distance(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b`` (edits, adjacent swaps
    included), or ``limit + 1`` when it is above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1] if previous[-1] <= limit else limit + 1


def _squashed(name: str) -> str:
    return re.sub(r"[-_.]", "", name)


def look_alike(ecosystem: str, key: str) -> str | None:
    """The popular package ``key`` (a normalised name) imitates, or None: within one edit
    (two from a name of ten characters or more), or equal once separators are dropped; never
    for a well-known package (:func:`~.popular.well_known`)."""
    popular = POPULAR.get(ecosystem, frozenset())
    if key in popular or len(key) < 4:
        return None
    squashed = _squashed(key)
    best: tuple[int, str] | None = None
    for name in sorted(popular):
        limit = 2 if len(name) >= 10 else 1
        found = 0 if _squashed(name) == squashed else distance(key, name, limit)
        if found <= limit and (best is None or found < best[0]):
            best = (found, name)
    if best is None or well_known(ecosystem, key):
        return None
    return best[1]


_CWE_URL = "CWE-829"


def requirement_signals(change: ManifestChange) -> list[Signal]:
    """The signals of one manifest or lock file's change."""
    signals: list[Signal] = []
    for item in change.introduced:
        requirement, before = item.requirement, item.before
        signals += _origin_signal(requirement, before)
        if before is None or before.key != requirement.key:
            imitated = None if requirement.origin else look_alike(requirement.ecosystem,
                                                                  requirement.key)
            if imitated is not None:
                signals.append(Signal(
                    "typosquat", requirement.line, Severity.HIGH, "CWE-1357",
                    f"{requirement.name} is one typo away from the popular package "
                    f"{imitated}, and is not itself a well-known package",
                    f"Check that {requirement.name} is the package you mean; if you meant "
                    f"{imitated}, fix the name. Typosquatting packages run code at install.",
                    confidence=0.6, anchor=f"typosquat {requirement.key}"))
        if before is not None and before.hashes and not requirement.hashes \
                and not requirement.origin:
            signals.append(Signal(
                "hashes-removed", requirement.line, Severity.HIGH, "CWE-494",
                f"{requirement.name} was pinned by hash and no longer is",
                "Keep the --hash (or lock file integrity) values: without them a changed or "
                "substituted artifact installs unnoticed.", anchor=f"hashes {requirement.key}"))
        if before is not None and not requirement.lock and not requirement.origin \
                and not is_open(before.ecosystem, before.spec) \
                and is_open(requirement.ecosystem, requirement.spec):
            was = before.spec or "(any)"
            now = requirement.spec or "any version"
            signals.append(Signal(
                "pin-widened", requirement.line, Severity.LOW, "CWE-1357",
                f"{requirement.name} was pinned ({was}) and now takes {now}",
                "Keep an upper bound or an exact pin (with a lock file): an open range installs "
                "whatever is published next, a compromised release included.",
                anchor=f"widened {requirement.key}"))
    signals += _source_signals(change.new_sources)
    if change.require_hashes_removed:
        signals.append(Signal(
            "require-hashes-removed", change.require_hashes_removed, Severity.HIGH, "CWE-494",
            "--require-hashes was removed from this requirements file",
            "Keep --require-hashes: pip then refuses any artifact whose hash is not pinned.",
            anchor="require-hashes removed"))
    return signals


def _origin_signal(requirement: Requirement, before: Requirement | None) -> list[Signal]:
    if not requirement.origin or (before is not None and before.origin == requirement.origin
                                  and before.location == requirement.location):
        return []
    location = requirement.location[:200]
    if (requirement.origin == "url" and location.lower().startswith("http://")) or (
            requirement.origin == "vcs" and "+http://" in location.lower()):
        return [Signal("insecure-url", requirement.line, Severity.HIGH, "CWE-494",
                       f"{requirement.name} is fetched over plain http from {location}",
                       "Fetch packages over https from the registry, pinned to a version "
                       "and hash; anyone on the network path can replace an http download.",
                       anchor=f"insecure {requirement.key} {location}")]
    kind, what = {"url": ("direct-url", "a URL"), "vcs": ("vcs", "a version control repository"),
                  "path": ("local-path", "a local path")}[requirement.origin]
    pinned = requirement.origin == "vcs" and re.search(r"@[0-9a-f]{40}\b|#[0-9a-f]{40}\b",
                                                       location)
    return [Signal(kind, requirement.line, Severity.LOW if pinned else Severity.MEDIUM,
                   _CWE_URL, f"{requirement.name} is installed from {what}: {location}",
                   "Install from the registry, pinned to a version (and hash); a direct "
                   "reference bypasses the registry's checks and the advisory databases, and a "
                   "branch or tag can be moved.", confidence=0.8,
                   anchor=f"{kind} {requirement.key} {location}")]


_SOURCE_TEXT = {
    "index-url": (Severity.MEDIUM, "CWE-427", "the package index is changed to {value}",
                  "Check that {value} is your organisation's index and serves over https."),
    "extra-index-url": (Severity.HIGH, "CWE-427", "an extra package index is added: {value}",
                        "pip takes the highest version from any index, so a public package "
                        "with your internal package's name wins (dependency confusion); use "
                        "one index that proxies the others, or pin by hash."),
    "trusted-host": (Severity.HIGH, "CWE-295", "TLS verification is turned off for {value}",
                     "Remove --trusted-host and serve the index over valid https."),
    "find-links": (Severity.MEDIUM, "CWE-829", "packages may now be taken from {value}",
                   "Check that {value} is trusted; pin what it provides by hash."),
    "registry": (Severity.MEDIUM, "CWE-427", "packages now resolve from the registry {value}",
                 "Check that {value} is your organisation's registry."),
    "requirement": (Severity.HIGH, "CWE-829", "requirements are read from {value}",
                    "Keep included requirement files in the repository: a remote file can "
                    "change what is installed at any time."),
    "constraint": (Severity.HIGH, "CWE-829", "constraints are read from {value}",
                   "Keep constraint files in the repository."),
}


def _source_signals(sources: Iterable[Source]) -> list[Signal]:
    signals = []
    for source in sources:
        remote = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", source.value) is not None
        if source.kind in ("requirement", "constraint") and not remote:
            continue  # a file of the repository: reviewed when it changes
        severity, cwe, message, fix = _SOURCE_TEXT[source.kind]
        value = source.value[:200]
        if source.value.lower().startswith("http://") and severity is not Severity.HIGH:
            severity = Severity.HIGH
        check = "remote-include" if source.kind in ("requirement", "constraint") else source.kind
        signals.append(Signal(check, source.line, severity, cwe, message.format(value=value),
                              fix.format(value=value), anchor=f"{source.kind} {value}"))
    return signals


_USES = re.compile(r"""^\s*(?:-\s+)?uses\s*:\s*["']?([^"'\s#]+)""")
_FULL_SHA = re.compile(r"@[0-9a-f]{40}$|@[0-9a-f]{64}$")


def action_signals(base_text: str | None, head_text: str) -> list[Signal]:
    """``uses:`` lines of a workflow or action file that the pull request adds or changes and
    that do not pin a full commit SHA (a tag or branch can be moved to other code)."""
    before = {m.group(1) for line in (base_text or "").splitlines()
              if (m := _USES.match(line))}
    signals = []
    for number, line in enumerate(head_text.splitlines(), start=1):
        match = _USES.match(line)
        if match is None or match.group(1) in before:
            continue
        ref = match.group(1)
        if ref.startswith("./"):
            continue  # an action of this repository, reviewed with it
        if ref.startswith("docker://"):
            if "@sha256:" in ref:
                continue
            what = "a container image without a digest"
        elif _FULL_SHA.search(ref):
            continue
        else:
            what = "a tag or branch, not a full commit SHA" if "@" in ref else "no version"
        signals.append(Signal(
            "unpinned-action", number, Severity.MEDIUM, "CWE-829",
            f"action {ref[:200]} is referenced by {what}",
            "Pin the action to a full 40-character commit SHA (with the tag in a comment); "
            "whoever controls the tag can change the code that runs with your workflow's "
            "secrets and token.", anchor=f"uses {ref}"))
    return signals
