"""The team's guidance for the model: its instructions (``--secreview-instructions``, default
``.secreview/instructions.md``) and its precedents of what not to report
(``.secreview/precedents.yml``).

Both judge the pull request, so both are read like the rules (``--secreview-rules-from``):
from the base revision by default, never from the pull request's own version of the file. A
file the pull request adds or edits is not used, and a note says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from ..errors import ConfigError, GitError
from ..gitcmd import run_git, validate_ref

#: The instructions file used when ``--secreview-instructions`` is not given (if present).
DEFAULT_INSTRUCTIONS = ".secreview/instructions.md"
#: The team's precedents, next to the instructions.
PRECEDENTS_FILE = ".secreview/precedents.yml"
#: Characters of team instructions allowed: they ride along in every prompt.
MAX_INSTRUCTIONS_CHARS = 20_000
#: Characters of the precedents file allowed.
MAX_PRECEDENTS_CHARS = 20_000
#: The key of the precedents that apply to every rule.
ALL_RULES = "*"


class _Precedents(RootModel[dict[str, list[str]]]):
    """``rule-id: [precedent, ...]``, with ``"*"`` for every rule."""


class _Precedent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=3, max_length=500)


@dataclass(frozen=True)
class Guidance:
    """What the team tells every model review, read from a trusted revision."""

    instructions: str = ""
    #: Where the instructions came from, e.g. ``.secreview/instructions.md at base 1a2b3c``.
    instructions_source: str = ""
    #: ``(rule id or "*", precedents)`` pairs from the team's precedents file.
    precedents: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def precedents_for(self, rule_id: str) -> tuple[str, ...]:
        """The team's precedents that apply to ``rule_id``: those for every rule first."""
        found = dict(self.precedents)
        return (*found.get(ALL_RULES, ()), *found.get(rule_id, ()))

    @property
    def digest(self) -> str:
        """Part of a cache key: a review under other guidance is another review."""
        text = repr((self.instructions, self.precedents))
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class _Read:
    text: str
    where: str


def load_guidance(
    repo: Path, base_sha: str, invocation_dir: Path, instructions: Path | None,
    rules_from: str, notes: list[str],
) -> Guidance:
    """The instructions and precedents for this review. Raises :class:`ConfigError` naming
    the file when one is missing (an explicitly requested one), too big or malformed."""
    named = instructions is not None
    path = (invocation_dir / instructions) if instructions is not None else (
        repo / DEFAULT_INSTRUCTIONS)
    read = _read(repo, base_sha, path, rules_from, notes, required=named,
                 option="--secreview-instructions")
    text = ""
    if read is not None:
        text = _capped(read, MAX_INSTRUCTIONS_CHARS, "--secreview-instructions").strip()
    precedents = _read(repo, base_sha, repo / PRECEDENTS_FILE, rules_from, notes,
                       required=False, option=PRECEDENTS_FILE)
    return Guidance(
        instructions=text, instructions_source=read.where if read is not None and text else "",
        precedents=_parse_precedents(precedents) if precedents is not None else (),
    )


def _capped(read: _Read, limit: int, option: str) -> str:
    if len(read.text) > limit:
        raise ConfigError(
            f"{read.where}: {len(read.text):,} characters, more than the {limit:,} allowed "
            f"({option}); it is sent with every model prompt. Shorten it to what a reviewer "
            "needs: scope, trusted inputs, internal frameworks"
        )
    return read.text


def _parse_precedents(read: _Read) -> tuple[tuple[str, tuple[str, ...]], ...]:
    text = _capped(read, MAX_PRECEDENTS_CHARS, PRECEDENTS_FILE)
    try:
        data = yaml.safe_load(text)
        parsed = _Precedents.model_validate(data if data is not None else {})
        for rule, items in parsed.root.items():
            for i, item in enumerate(items):
                try:
                    _Precedent(text=item)
                except ValidationError as exc:
                    raise ConfigError(
                        f"{read.where}: {rule}.{i}: {exc.errors()[0]['msg']}; write each "
                        "precedent as one line of 3 to 500 characters") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{read.where}: not valid YAML ({exc}); expected "
                          "'rule-id: [what not to report, ...]' with '\"*\"' for every rule"
                          ) from None
    except ValidationError:
        raise ConfigError(f"{read.where}: expected a mapping 'rule-id: [what not to report, "
                          "...]' (a list of strings per rule id, '\"*\"' for every rule)"
                          ) from None
    return tuple((rule, tuple(s.strip() for s in items))
                 for rule, items in sorted(parsed.root.items()))


def _read(repo: Path, base_sha: str, path: Path, rules_from: str, notes: list[str], *,
          required: bool, option: str) -> _Read | None:
    """The file at the trusted revision: the base's blob for a file inside the repository
    (``rules_from == "base"``), else the file on disk."""
    try:
        relative: str | None = path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        relative = None
    if relative is None or rules_from == "head":
        if not path.is_file():
            if required:
                raise ConfigError(f"{option} {path}: no such file. Fix the path (relative "
                                  "to the directory pytest was started in) to name a markdown "
                                  "file, or drop the option")
            return None
        return _Read(path.read_text("utf-8", "replace"), str(path))
    blob = _blob_at(repo, base_sha, relative)
    on_disk = path.read_bytes() if path.is_file() else None
    if blob is None:
        if on_disk is not None:
            notes.append(f"{relative}: not present at the base revision {base_sha[:12]}; "
                         "added by this pull request, so it is not used "
                         "(--secreview-rules-from=base). Merge it first.")
        elif required:
            raise ConfigError(f"{option} {relative}: no such file at the base revision "
                              f"{base_sha[:12]} nor in the working tree. Fix the path, or "
                              "commit the file on the base branch first (it is read from the "
                              "base revision), or drop the option")
        return None
    if on_disk is not None and on_disk != blob:
        notes.append(f"{relative} differs from the base revision {base_sha[:12]}; the base "
                     "version was used (--secreview-rules-from=base)")
    return _Read(blob.decode("utf-8", "replace"), f"{relative} at base {base_sha[:12]}")


def _blob_at(repo: Path, revision: str, relative: str) -> bytes | None:
    """A regular file's content at ``revision``; None when there is none there."""
    validate_ref(revision)
    listing = run_git(repo, "ls-tree", "-z", "--full-tree", "--end-of-options", revision,
                      "--", relative).stdout
    for record in listing.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        # A symlink blob would point the reader somewhere else: only a regular file counts.
        if (len(fields) == 3 and fields[0] in {"100644", "100755"} and fields[1] == "blob"
                and name.decode("utf-8", "surrogateescape") == relative):
            try:
                return run_git(repo, "cat-file", "blob", fields[2]).stdout
            except GitError:
                return None
    return None


def precedents_text(general: str, rule: tuple[str, ...], team: tuple[str, ...]) -> str:
    """The precedents as a markdown list: the bundled general ones, the rule's own (its
    frontmatter ``precedents:``), then the team's."""
    parts = [general.strip()]
    if rule:
        parts.append("For this rule:\n" + "\n".join(f"- {p}" for p in rule))
    if team:
        parts.append("From the team (its precedents file):\n"
                     + "\n".join(f"- {p}" for p in team))
    return "\n\n".join(p for p in parts if p)


__all__ = ["DEFAULT_INSTRUCTIONS", "PRECEDENTS_FILE", "Guidance", "load_guidance",
           "precedents_text"]
