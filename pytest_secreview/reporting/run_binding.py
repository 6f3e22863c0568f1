"""Binding a shard's report to the CI run that produced it, so the merge step accepts only
reports of this run.

A sharded review's merge job reads files from directories: whatever a pull request can place
there (a committed ``shard-1/report/summary.json`` saying "0 items, all passed") must never be
merged as a result. The run's first job makes a random key (``SECREVIEW_RUN_KEY``) and passes
it only to its own jobs. Each shard writes, beside its ``summary.json``, a binding
(:data:`BINDING_NAME`): the run id, the reviewed head and base commits, the shard's group of
the split, and the SHA-256 of its ``summary.json`` and JUnit file, with an HMAC-SHA256 under
that key. A file committed before the run cannot carry a valid one: the key did not exist yet.

The key is a per-run value, not a long-lived secret: it never appears in a report, an artifact
or a comment, and a key that leaked after its run binds nothing of a later one.

A shard of a split review run without the key still writes the file, unsigned (``"hmac":
null``), so that ``secreview report --merge --trust-unbound-shards`` knows which group of the
split each report claims to be (:func:`unchecked_binding`). An unsigned binding proves nothing:
with a key, :func:`verify_binding` refuses it like any other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from ..atomic import write_text_atomic

#: The environment variable that carries the run's key to every job of the run.
RUN_KEY_ENV = "SECREVIEW_RUN_KEY"
#: The binding file written beside each shard's ``summary.json``.
BINDING_NAME = "run-binding.json"
_VERSION = 1
_MIN_KEY_CHARS = 16


class ForeignShard(Exception):
    """A shard report that this run cannot be shown to have produced; says why."""


@dataclass(frozen=True)
class ShardBinding:
    """What a shard's binding asserts (everything in it is covered by the HMAC)."""

    run_id: str | None
    head_sha: str
    base_sha: str
    group: int | None
    splits: int | None
    summary_sha256: str
    junit: str | None = None
    junit_sha256: str | None = None

    def junit_path(self, report_dir: Path) -> Path | None:
        """The shard's JUnit file, resolved against the directory of its ``summary.json``."""
        return None if self.junit is None else report_dir / self.junit


def run_key(env: Mapping[str, str]) -> bytes | None:
    """The run's key from :data:`RUN_KEY_ENV`, or None when it is not set.

    Raises :class:`ValueError` for a key too short to bind anything."""
    value = env.get(RUN_KEY_ENV, "").strip()
    if not value:
        return None
    if len(value) < _MIN_KEY_CHARS:
        raise ValueError(f"{RUN_KEY_ENV} holds {len(value)} characters; it must be a random "
                         f"value of at least {_MIN_KEY_CHARS} (e.g. `openssl rand -hex 32`) "
                         "made once per run by its first job")
    return value.encode("utf-8")


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mac(key: bytes, binding: ShardBinding) -> str:
    canonical = json.dumps({"v": _VERSION, **asdict(binding)}, sort_keys=True,
                           separators=(",", ":"))
    return hmac.new(key, canonical.encode("utf-8"), hashlib.sha256).hexdigest()


def write_binding(report_dir: Path, binding: ShardBinding, key: bytes | None) -> Path:
    """Write ``binding`` with its HMAC under ``key`` into ``report_dir`` (``key`` None: unsigned,
    it binds nothing); returns the file."""
    data = {"v": _VERSION, **asdict(binding),
            "hmac": None if key is None else _mac(key, binding)}
    return write_text_atomic(report_dir / BINDING_NAME,
                             json.dumps(data, indent=1, sort_keys=True) + "\n")


def _read_binding(summary: Path) -> tuple[ShardBinding, object]:
    """The binding beside ``summary`` as written, and its ``hmac`` (unchecked). Raises
    :class:`ForeignShard` when there is none or it cannot be read."""
    path = summary.parent / BINDING_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ForeignShard(f"no {BINDING_NAME} beside it") from None
    except (OSError, ValueError) as exc:
        raise ForeignShard(f"{BINDING_NAME} is unreadable ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("v") != _VERSION:
        raise ForeignShard(f"{BINDING_NAME} is not a version {_VERSION} binding")
    fields = {k: data.get(k) for k in ShardBinding.__dataclass_fields__}
    try:
        binding = ShardBinding(**fields)  # type: ignore[arg-type]
    except TypeError:
        raise ForeignShard(f"{BINDING_NAME} is malformed") from None
    for name in ("group", "splits"):
        value = getattr(binding, name)
        if value is not None and (type(value) is not int or value < 1):
            raise ForeignShard(f"{BINDING_NAME} is malformed ({name} {value!r})")
    return binding, data.get("hmac")


def unchecked_binding(summary: Path) -> ShardBinding:
    """What the binding beside ``summary`` says, signed or not, checked for nothing: for a
    merge told to trust unchecked reports (``--trust-unbound-shards``), which still needs to
    know the group each report claims. Raises :class:`ForeignShard` when there is none or it
    cannot be read."""
    return _read_binding(summary)[0]


def verify_binding(summary: Path, key: bytes, env: Mapping[str, str]) -> ShardBinding:
    """The binding of the shard whose ``summary.json`` is ``summary``, checked: its HMAC
    under ``key``, the run id (when ``GITHUB_RUN_ID`` is set here), the SHA-256 of the
    summary and of the JUnit file it names. Raises :class:`ForeignShard` saying what failed."""
    binding, given = _read_binding(summary)
    if given is None:
        raise ForeignShard(f"{BINDING_NAME} is unsigned: its shard ran without {RUN_KEY_ENV}")
    if not (isinstance(given, str) and hmac.compare_digest(given, _mac(key, binding))):
        raise ForeignShard(f"{BINDING_NAME} was not made with this run's {RUN_KEY_ENV}")
    run_id = env.get("GITHUB_RUN_ID")
    if run_id and binding.run_id != run_id:
        raise ForeignShard(f"it belongs to run {binding.run_id}, not to this run {run_id}")
    if sha256_file(summary) != binding.summary_sha256:
        raise ForeignShard("summary.json was changed after the shard wrote it")
    junit = binding.junit_path(summary.parent)
    if junit is not None and (not junit.is_file() or sha256_file(junit) != binding.junit_sha256):
        raise ForeignShard(f"its JUnit file {binding.junit} is missing or was changed")
    return binding
