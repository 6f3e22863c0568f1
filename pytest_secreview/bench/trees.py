"""The files of a case's trees as the reviewer sees them: placeholders filled with fake
credentials built here at run time, and a ``patch`` applied to ``base/`` with ``git apply``.

A corpus is committed to git, so it must never hold a real-looking secret: a case that tests
secret detection writes a placeholder (``fill: {AWS_KEY: aws_access_key_id}`` in case.yaml and
``AWS_KEY`` in the code) and gets a value of the right shape only in the temporary repository.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from ..errors import SecreviewError
from ..gitcmd import run_git

_UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
#: Letters and digits: the alphabet of most generated keys.
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def noise(seed: str, alphabet: str, length: int) -> str:
    """``length`` characters of ``alphabet`` that look generated, the same on every run: no
    run, short repeat or sequence, which would make the value a placeholder to the rule
    (:mod:`pytest_secreview.evaluation.credentials`)."""
    out: list[str] = []
    counter = 0
    while len(out) < length:
        block = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
        for byte in block:
            char = alphabet[byte % len(alphabet)]
            if out and (char == out[-1] or (len(out) > 1 and char == out[-2])):
                continue
            out.append(char)
            if len(out) == length:
                break
    return "".join(out)


def _generated(prefix: str, seed: str, alphabet: str, length: int) -> Callable[[], str]:
    # Built at run time, so that no complete credential-shaped literal exists in the source.
    return lambda: prefix + noise(seed, alphabet, length)


#: Placeholder kind -> a builder of a shape-correct fake (never a working credential).
FAKES: Mapping[str, Callable[[], str]] = {
    "aws_access_key_id": _generated("AK" + "IA", "aws-key-id", _UPPER_DIGITS, 16),
    "aws_secret_access_key": _generated("", "aws-secret", ALNUM + "/+", 40),
    "github_token": _generated("gh" + "p_", "github", ALNUM, 36),
    "slack_bot_token": _generated("xo" + "xb-", "slack", "0123456789", 20),
    "stripe_secret_key": _generated("sk" + "_live_", "stripe", ALNUM, 24),
    "password": _generated("", "password", ALNUM + "!-", 15),
    # The first line of a PEM private key block: what a committed key file starts with.
    "private_key_header": lambda: "-" * 5 + "BEGIN RSA " + "PRIVATE KEY" + "-" * 5,
}


def fake(kind: str) -> str:
    """The fake value of ``kind`` (a key of :data:`FAKES`)."""
    return FAKES[kind]()


def fill(data: bytes, placeholders: Mapping[str, str]) -> bytes:
    """``data`` with every placeholder name replaced by the fake of its kind (longest name
    first, so ``KEY`` never eats the start of ``KEY_ID``)."""
    for name, kind in sorted(placeholders.items(), key=lambda item: -len(item[0])):
        data = data.replace(name.encode(), fake(kind).encode())
    return data


class PatchError(SecreviewError):
    """A case's patch does not apply to its base tree; the message holds git's reason."""


def apply_patch(base: Mapping[str, bytes], patch: bytes) -> dict[str, bytes]:
    """The files of ``base`` after ``git apply`` of ``patch`` (a unified diff, ``a/`` and
    ``b/`` prefixes as ``git diff`` writes them), in a throwaway repository.

    Raises :class:`PatchError` with git's message when the patch does not apply, or when it
    creates a symbolic link (a case holds regular files only).
    """
    with tempfile.TemporaryDirectory(prefix="secreview-patch-") as tmp:
        root = Path(tmp)
        # A repository of its own, so paths are relative to it even when TMPDIR lies inside
        # some other work tree.
        run_git(root, "init", "-q")
        for rel, data in base.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            proc = run_git(root, "apply", "--whitespace=nowarn", "-", input_bytes=patch,
                           check=False)
        except SecreviewError as exc:
            raise PatchError(str(exc)) from exc
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip() or "no reason given"
            raise PatchError(why)
        files: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            if ".git" in path.relative_to(root).parts:
                continue
            if path.is_symlink():
                raise PatchError(f"it creates the symbolic link {path.relative_to(root)}")
            if path.is_file():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
        return files


