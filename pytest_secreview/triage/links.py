"""Symlinks of the head revision, judged by what they point at.

A pull request can replace ``app.py`` with a symlink to ``notes/impl.txt`` and put the code
there: Python runs it as ``app.py``, but by its path the target is documentation, which no
rule and not the general review reads. So a changed file that a symlink of the head revision
reaches is also judged under the link's name (an *alias*: rules select it by either path, and
it has the link's kind). A changed symlink is itself reviewed content; one that leaves the
repository or points at a secret file is a gap (:mod:`.gaps`) that the
``--secreview-unreviewed`` policy judges, never a silent pass.

Read from the head commit's objects (:class:`~pytest_secreview.tools.gittree.GitTree`), never
from the working tree, and only when the diff holds a symlink or a file the review would
otherwise leave out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..diff.kinds import classify
from ..diff.model import ChangeKind, FileDiff

#: The tree mode of a symlink.
SYMLINK_MODE = "120000"
#: Targets a link must not expose under another name: environment files, keys, credentials,
#: the repository's own git directory.
_SECRET_TARGET = re.compile(
    r"(^|/)(\.env(\.[\w.-]+)?|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.htpasswd|"
    r"id_(rsa|dsa|ecdsa|ed25519)|credentials(\.json)?|secrets?\.(ya?ml|json|toml)|"
    r"[^/]+\.(pem|key|p12|pfx|jks|keystore|kdbx))$|(^|/)\.(git|ssh|aws|gnupg)(/|$)",
    re.IGNORECASE)


@dataclass(frozen=True)
class Links:
    """What the head revision's symlinks mean for this diff."""

    #: Changed path -> the path of a symlink that reaches it under a name the review reads.
    aliases: dict[str, str] = field(default_factory=dict)
    #: Changed symlink path -> why its target is not something to pass silently.
    refused: dict[str, str] = field(default_factory=dict)


def is_symlink(file: FileDiff) -> bool:
    """True when ``file`` is a symlink at the head revision."""
    return file.kind is not ChangeKind.DELETED and file.new_mode == SYMLINK_MODE


def _needed(files: Sequence[FileDiff]) -> bool:
    return any(is_symlink(f) or (f.hunks and not classify(f.path).reviewed) for f in files)


def read_links(repo: Path, head_sha: str, files: Sequence[FileDiff]) -> Links:
    """The aliases and refused links of ``files`` at ``head_sha`` (empty when the diff holds
    no symlink and no file the review would leave out: no git call then)."""
    if not _needed(files):
        return Links()
    from ..tools.errors import SandboxError  # loaded only when a link may matter
    from ..tools.gittree import GitTree

    tree = GitTree(repo, head_sha)
    changed = {f.path for f in files if f.kind is not ChangeKind.DELETED}
    aliases: dict[str, str] = {}
    refused: dict[str, str] = {}
    for path in sorted(p for p, e in tree.entries.items() if e.kind == "symlink"):
        raw = tree.link_target(path) or ""
        try:
            target = tree.resolve(path)
        except SandboxError as exc:
            if path in changed:
                refused[path] = f"symlink to {raw!r}: {exc.reason}"
            continue
        if path in changed and _SECRET_TARGET.search(target):
            refused[path] = f"symlink to {raw!r} points at a secret file ({target})"
        if target in changed and target not in aliases and classify(path).reviewed and (
                not classify(target).reviewed):
            aliases[target] = path
    return Links(aliases, refused)
