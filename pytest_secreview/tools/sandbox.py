"""Confine model-supplied paths to the repository.

Everything a model passes as a path was possibly chosen by the pull request's author (through
prompt injection), so a path is refused rather than repaired whenever it is ambiguous:
absolute, Windows-style, with ``..``, with control characters or NUL bytes, or too long.

Two resolvers share those checks:

* :func:`resolve_in_root` for the file system: symlinks are resolved by the OS and the result
  must stay under the real repository root;
* :func:`resolve_in_tree` for git trees: symlinks are blobs whose content is the target, so they
  are followed lexically, and a target that is absolute or climbs above the root is refused.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from .errors import SandboxError

#: Longest path accepted, in characters. Real repository paths are far shorter; a limit keeps
#: every later step (gate, logs, git arguments) cheap.
MAX_PATH_CHARS = 1024
#: Longest single path component, in UTF-8 bytes (the common file-system limit).
MAX_COMPONENT_BYTES = 255
#: Same bound as the Linux kernel (ELOOP after 40 links).
MAX_SYMLINK_HOPS = 40

_DRIVE = re.compile(r"^[A-Za-z]:")
# Unicode categories refused anywhere in a path: control characters and invisible formatting
# characters (bidi overrides, zero-width joiners) that make a path read differently than it is.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _refusal(path: str, *, what: str) -> str | None:
    """The reason ``path`` is malformed, or None. ``what`` names it in messages."""
    if len(path) > MAX_PATH_CHARS:
        return f"{what} longer than {MAX_PATH_CHARS} characters"
    if "\x00" in path:
        return f"NUL byte in {what}"
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES for ch in path):
        return f"control or invisible formatting character in {what}"
    if "\\" in path:
        return f"backslash in {what} (Windows-style paths are not accepted; use '/')"
    if _DRIVE.match(path):
        return f"Windows drive letter in {what}"
    if path.startswith("/"):
        return f"absolute {what} (use a path relative to the repository root)"
    return None


def _is_dots(part: str) -> bool:
    # "..", "...", ". ." and friends: a parent reference on some systems, never a real need.
    return set(part) <= {".", " "} and part.count(".") >= 2


def clean_relative(path: str, *, allow_root: bool = False) -> str:
    """Validate a model-supplied repository path and return it normalised.

    ``"./src//app.py"`` becomes ``"src/app.py"``; the root itself is ``""`` and is accepted
    only with ``allow_root``. Raises :class:`SandboxError` for absolute, drive and UNC paths,
    backslashes, ``..`` components, NUL and control characters, ``~`` prefixes and over-long
    paths. Nothing is decoded: ``%2e%2e`` is a literal file name, not a parent reference.
    """
    if not isinstance(path, str):
        raise SandboxError(repr(path)[:80], "path must be a string")
    reason = _refusal(path, what="path")
    if reason is None and path.startswith("~"):
        reason = "home-directory path (use a path relative to the repository root)"
    if reason is not None:
        raise SandboxError(path[:MAX_PATH_CHARS], reason)
    parts = [part for part in path.split("/") if part not in ("", ".")]
    for part in parts:
        if _is_dots(part):
            raise SandboxError(path, "'..' in path (paths must stay inside the repository)")
        if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
            raise SandboxError(path, f"path component longer than {MAX_COMPONENT_BYTES} bytes")
    if not parts and not allow_root:
        raise SandboxError(path, "empty path")
    return "/".join(parts)


def resolve_in_root(root: Path, path: str) -> Path:
    """Return the real path of ``path`` under ``root``, every symlink resolved.

    Raises :class:`SandboxError` when the path is malformed (see :func:`clean_relative`),
    when a symlink loops, or when the resolved path is not ``root`` or below it: a symlink to
    ``/etc``, to a parent directory, or a chain of links ending outside are all refused. The
    path need not exist; the part that exists is resolved.
    """
    rel = clean_relative(path, allow_root=True)
    real_root = Path(os.path.realpath(root))
    candidate = real_root / rel if rel else real_root
    try:
        resolved = Path(os.path.realpath(candidate, strict=True))
    except FileNotFoundError:
        # A missing path (or a dangling link) still resolves as far as it exists; the
        # containment check below decides.
        resolved = Path(os.path.realpath(candidate, strict=False))
    except (OSError, RuntimeError, ValueError) as exc:
        raise SandboxError(path, "symlink loop or unresolvable path") from exc
    if resolved != real_root and real_root not in resolved.parents:
        raise SandboxError(path, "symlink leaves the repository")
    return resolved


def resolve_in_tree(path: str, link_target: Callable[[str], str | None]) -> str:
    """Follow symlinks of a git tree lexically and return the resolved repository path.

    ``path`` must already be clean (:func:`clean_relative`). ``link_target(p)`` returns the
    target text of the tracked symlink ``p``, or None when ``p`` is not a symlink. A target is
    interpreted relative to the link's directory, as the OS would; ``..`` inside a target is
    honoured but may not climb above the root. Raises :class:`SandboxError` for absolute or
    malformed targets, escapes and loops.
    """
    pending = [part for part in path.split("/") if part]
    resolved: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not resolved:
                raise SandboxError(path, "symlink leaves the repository")
            resolved.pop()
            continue
        current = "/".join([*resolved, part])
        target = link_target(current)
        if target is None:
            resolved.append(part)
            continue
        hops += 1
        if hops > MAX_SYMLINK_HOPS:
            raise SandboxError(path, "too many levels of symlinks (loop?)")
        reason = _refusal(target, what="symlink target")
        if reason is not None:
            leaves = target.startswith("/") or _DRIVE.match(target) or "\\" in target
            raise SandboxError(path, "symlink leaves the repository" if leaves else reason)
        pending = [*target.split("/"), *pending]
    return "/".join(resolved)
