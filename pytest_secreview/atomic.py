"""Writing an output file: the one definition, used for every file the review writes (the
artifacts, the reports, SARIF, JUnit, the baseline, the dry-run requests, the cache).

Two promises. A reader never sees half a file: it is written to a temporary file beside it and
renamed into place. And no output follows a symbolic link: the checkout is the pull request's,
and a link it commits where an output goes (``secreview-artifacts -> /home/runner/.ssh``)
would otherwise make the job write outside the directory the user chose.
:func:`check_output_path` refuses a target that is a link, and any link among its parent
directories inside ``inside`` (the working directory unless told: the checkout, which
relative output paths are resolved from). Directories above ``inside`` are the user's own
choice and are not judged.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from .errors import SecreviewError

__all__ = ["UnsafeOutputPath", "check_output_path", "write_bytes_atomic", "write_chunks_atomic",
           "write_text_atomic"]


class UnsafeOutputPath(SecreviewError, OSError):
    """An output path that is, or passes through, a symbolic link. An :class:`OSError` too,
    so every writer's "could not be written" handling reports it."""


def _absolute(path: Path) -> Path:
    # Lexical, not resolved: resolving would follow the very links being looked for.
    return Path(os.path.abspath(path))


def check_output_path(path: Path, *, inside: Path | None = None) -> Path:
    """``path`` made absolute, after checking that neither it nor any existing directory
    between ``inside`` (default: the working directory) and it is a symbolic link. A path
    outside ``inside`` is the user's own: only the target itself is judged there.

    Raises :class:`UnsafeOutputPath` naming the link, the output and the fix."""
    target = _absolute(path)
    root = _absolute(inside if inside is not None else Path.cwd())
    candidates = [target]
    if target.is_relative_to(root):
        relative = target.relative_to(root)
        candidates = [root / Path(*relative.parts[:n]) for n in range(1, len(relative.parts) + 1)]
    for candidate in candidates:
        if candidate.is_symlink():
            where = "is" if candidate == target else "passes through"
            raise UnsafeOutputPath(
                f"{target}: the output path {where} the symbolic link {candidate} "
                f"(-> {os.readlink(candidate)}); outputs never follow a link, since the "
                "checkout's links are the pull request's. Remove the link, or choose an "
                "output path outside the checkout (e.g. under $RUNNER_TEMP)")
    return target


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Read once, at import (reading it means setting it): new files get the permissions a plain
#: ``open(path, "w")`` gives them, not the temporary file's private 0600.
_UMASK = _process_umask()


def _write_atomic(path: Path, write: Callable[[BinaryIO], object], inside: Path | None) -> Path:
    target = check_output_path(path, inside=inside)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)  # replaces a link at the target itself, never follows it
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str, *, inside: Path | None = None) -> Path:
    """Write ``text`` to ``path`` as UTF-8 with ``\\n`` line endings through a temporary file
    renamed into place; creates missing parent directories and returns ``path``. Raises
    :class:`UnsafeOutputPath` for a path through a link (see :func:`check_output_path`)."""
    data = text.encode("utf-8")
    return _write_atomic(path, lambda handle: handle.write(data), inside)


def write_bytes_atomic(path: Path, data: bytes, *, inside: Path | None = None) -> Path:
    """:func:`write_text_atomic` for bytes."""
    return _write_atomic(path, lambda handle: handle.write(data), inside)


def write_chunks_atomic(path: Path, chunks: Iterable[str], *,
                        inside: Path | None = None) -> Path:
    """:func:`write_text_atomic` for text produced piece by piece (a JSON encoder's
    output): each chunk is written as it comes, so the whole text is never held at once.
    The file appears only when every chunk was written."""
    def write(handle: BinaryIO) -> None:
        # The text layer gathers the small pieces into large writes; newline="" keeps
        # "\n" as it is, as write_text_atomic does.
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="", write_through=False)
        text.writelines(chunks)
        text.flush()
        text.detach()  # the caller closes the file
    return _write_atomic(path, write, inside)
