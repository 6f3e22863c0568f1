"""What the pull request could steer in this pytest run, and the settings it cannot.

pytest is configured by files in the checkout: the pull request's. Three things follow.

- **Settings** come from the base revision's configuration, resolved the way pytest would
  resolve it at the base (:mod:`.trust`), plus the trusted command line
  (:mod:`.invocation`). Gate settings never come from the checkout's ``addopts``.
- **Selection**: ``-k``, ``-m``, ``--deselect``, ``--collect-only``, ``--lf``... that pytest
  got from the checkout's ``addopts`` (and not from the job) stop the run with a usage error;
  review items deselected by the job's own options are counted and reported.
- **Exposure**: a change to a ``conftest.py``, a configuration file or a plugin entry point is
  called out at the top of the summary; in a plain ``pytest --secreview`` run (not hardened)
  also as a warning, because pytest already imported or read it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from .diff.model import Diff, FileDiff
from .errors import ConfigError
from .invocation import SELECTION, CommandLine, parse_command_line, trusted_args
from .notices import record_warning
from .options import SPECS, Settings, ini_values, load_settings
from .severity import one_line
from .trust import (
    CONFIG_NAMES,
    ResolvedConfig,
    config_file_at,
    inside,
    normalise,
    resolve_config_at,
    split_addopts,
)

#: The environment variable pytest reads to skip plugins installed with entry points.
AUTOLOAD_OFF = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"


@dataclass(frozen=True)
class Hardening:
    """How much of the checkout pytest ignored in this run."""

    noconftest: bool  # --noconftest: no conftest.py was imported
    config_outside: bool  # the configuration file is the job's (-c outside the checkout)
    autoload_off: bool  # PYTEST_DISABLE_PLUGIN_AUTOLOAD: no entry-point plugin was loaded


def hardening_of(config: pytest.Config, repo: Path, env: Mapping[str, str]) -> Hardening:
    """Read the facts of this run (not a flag anybody could set)."""
    if config.inipath is not None:
        outside = not inside(repo, config.inipath)
    else:  # `-c /dev/null`; without -c, no file at all, and then the base's files matter
        outside = _explicit_config(config)
    return Hardening(
        noconftest=bool(getattr(config.option, "noconftest", False)),
        config_outside=outside,
        autoload_off=bool(env.get(AUTOLOAD_OFF)),
    )


def _explicit_config(config: pytest.Config) -> bool:
    # `-c /dev/null` leaves inipath None; no -c and no file in the checkout does too, and then
    # the base's files are what matter.
    return parse_command_line(SPECS, config.invocation_params.args).config_file is not None


def base_configuration(
    config: pytest.Config, repo: Path, base_sha: str, command_line: CommandLine
) -> ResolvedConfig:
    """The configuration pytest would use at the base revision for this invocation."""
    invocation = config.invocation_params.dir
    if command_line.config_file is not None:
        return config_file_at(repo, base_sha, invocation / command_line.config_file)
    starts = [invocation / p for p in command_line.paths] or [invocation]
    return resolve_config_at(repo, base_sha, starts)


def _display(repo: Path, path: Path | None) -> str:
    if path is None:
        return "no configuration file"
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return str(path)


def trusted_settings(
    config: pytest.Config, settings: Settings, repo: Path, base_sha: str, notes: list[str],
    env: Mapping[str, str] | None = None,
) -> tuple[Settings, CommandLine]:
    """``settings`` resolved from the base revision's configuration and the trusted command
    line, with notes on what the pull request changed; and that trusted command line.

    Raises :class:`ConfigError` when pytest took selection options (``-m``, ``-k``,
    ``--collect-only``...) from the checkout's ``addopts``.
    """
    env = os.environ if env is None else env
    job = parse_command_line(SPECS, trusted_args(config.invocation_params.args, env))
    base = base_configuration(config, repo, base_sha, job)
    trusted = parse_command_line(SPECS, trusted_args(config.invocation_params.args, env,
                                                     base.addopts))
    ini = {**base.secreview, **{k: v for k, v in job.overrides.items()
                                if k == "secreview" or k.startswith("secreview_")}}
    resolved = replace(load_settings(config, env, ini_override=ini, trusted=trusted),
                       enabled=settings.enabled)
    head_path = config.inipath
    if not inside(repo, head_path) and job.config_file is not None:
        return resolved, trusted  # the job chose its configuration file: nothing to compare
    notes.extend(_config_notes(config, repo, base, head_path))
    steered = _steered_selection(config, trusted)
    if steered:
        raise ConfigError(
            f"{_display(repo, head_path)} in this pull request adds {', '.join(steered)} to "
            "pytest's options (addopts): the pull request would choose which review items "
            "run. Run the review with the `secreview` command (it ignores the checkout's "
            "configuration), or pass selection options on the command line only"
        )
    return resolved, trusted


def _config_notes(
    config: pytest.Config, repo: Path, base: ResolvedConfig, head_path: Path | None
) -> list[str]:
    notes: list[str] = []
    shown = _display(repo, head_path)
    if _display(repo, base.path) != shown:
        notes.append(
            f"pytest read {shown} from this pull request; at the base revision it reads "
            f"{_display(repo, base.path)}. The review's settings come from the base revision"
        )
    head = {k: v for k, v in ini_values(config).items() if v not in (None, "", [])}
    changed = sorted(k for k in set(head) | set(base.secreview)
                     if normalise(head.get(k)) != normalise(base.secreview.get(k)))
    if changed:
        notes.append(
            f"{shown}: this pull request changes {', '.join(changed)}; the base revision's "
            "values were used (the review's own configuration comes from the base, like its "
            "rules)"
        )
    head_addopts = split_addopts(config.getini("addopts")) if inside(repo, head_path) else []
    if head_path is not None and inside(repo, head_path) and head_addopts != base.addopts:
        gated = sorted({a.split("=", 1)[0] for a in head_addopts
                        if a.split("=", 1)[0] in _GATE_FLAGS} - set(base.addopts))
        ignored = (f"; {', '.join(gated)} there were not used (gate settings come only from "
                   "the job's command line, the environment or the base revision)"
                   if gated else "")
        given = " ".join(head_addopts)
        given = given if len(given) <= _SHOWN else given[:_SHOWN] + "..."  # the PR's text
        notes.append(f"{shown}: this pull request changes addopts (pytest's options) to "
                     f"{given!r}{ignored}")
    return notes


#: Characters of the pull request's addopts quoted in a note.
_SHOWN = 200

_GATE_FLAGS = frozenset(flag for spec in SPECS if spec.gate
                        for flag in (spec.cli, *spec.aliases))

#: pytest's defaults for the selection options that are not falsy.
_SELECTION_DEFAULTS: dict[str, Any] = {"last_failed_no_failures": "all"}


def _text(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return normalise([str(v) for v in value])
    return normalise(str(value))


def _steered_selection(config: pytest.Config, trusted: CommandLine) -> list[str]:
    """Selection options pytest applies that the trusted command line did not give."""
    given = trusted.selection()
    out = []
    for dest, (flags, _action) in SELECTION.items():
        value = getattr(config.option, dest, None)
        if not value or value == _SELECTION_DEFAULTS.get(dest):
            continue
        # Plugins may convert values (pytest-split's --splits is an int); the trusted command
        # line is parsed as text.
        if _text(value) != _text(given.get(dest)):
            out.append(flags[-1] if isinstance(value, bool) else f"{flags[0]} {value!r}")
    return out


# -- what the diff touches -------------------------------------------------------------------

@dataclass(frozen=True)
class Touched:
    """Files of the diff that configure or run inside pytest itself."""

    conftests: tuple[str, ...]
    config_files: tuple[str, ...]
    entry_points: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.conftests or self.config_files or self.entry_points)


_PACKAGING = ("setup.py", "setup.cfg", "pyproject.toml")


def touched(diff: Diff) -> Touched:
    """The ``conftest.py`` files, pytest configuration files and plugin entry points
    (``pytest11`` in packaging metadata, ``entry_points.txt``) this diff changes."""
    conftests, configs, entries = [], [], []
    for file in diff.files:
        name = file.path.rsplit("/", 1)[-1]
        if name == "conftest.py":
            conftests.append(file.path)
        if name in CONFIG_NAMES:
            configs.append(file.path)
        if name == "entry_points.txt" or (name in _PACKAGING and _mentions_pytest11(file)):
            entries.append(file.path)
    return Touched(tuple(sorted(conftests)), tuple(sorted(configs)), tuple(sorted(entries)))


def _mentions_pytest11(file: FileDiff) -> bool:
    # Only packaging files get here: the other files' lines are never split (a large pull
    # request has hundreds of thousands of them).
    return any("pytest11" in text for hunk in file.hunks
               for text in (*hunk.added_texts(), *hunk.removed_texts()))


@dataclass(frozen=True)
class Exposure:
    """One line about a file in :func:`touched`: ``ran`` when pytest already imported, read
    or loaded it in this run (and it deserves a ``PytestWarning``)."""

    text: str
    ran: bool


def exposure(found: Touched, hardening: Hardening) -> list[Exposure]:
    """What the summary says, at its top, about the files in :func:`touched`."""
    advice = ("run the review with the `secreview` command (see README, 'Running on pull "
              "requests from forks')")
    # Per kind of file: the names, whether this run kept them out, what that line says, and
    # what the other says (this run already imported, read or loaded them).
    kinds = (
        (found.conftests, hardening.noconftest, "{names}: not imported (--noconftest)",
         "{names}: pytest imported them before the review started, so code from the pull "
         "request ran in this job and hooks there can change what this review reports"),
        (found.config_files, hardening.config_outside,
         "{names}: not read (the configuration is the job's)",
         "{names}: pytest read the checkout's configuration (addopts, -p plugins, "
         "pythonpath); the review's own settings come from the base revision, but pytest's "
         "do not"),
        (found.entry_points, hardening.autoload_off,
         f"pytest plugin entry points in {{names}}: not loaded ({AUTOLOAD_OFF})",
         "pytest plugin entry points in {names}: when the checkout is installed in this "
         "environment, pytest loads them automatically"),
    )
    out = []
    for files, kept_out, safe, exposed in kinds:
        if files:
            said = (safe if kept_out else f"{exposed}; {advice}").replace(
                "{names}", ", ".join(files))
            out.append(Exposure(f"this pull request changes {said}", not kept_out))
    return out


def warn_exposure(config: pytest.Config, found: list[Exposure]) -> None:
    """Each exposure of this run also as a ``PytestWarning`` (on the controller only)."""
    if hasattr(config, "workerinput"):
        return
    for item in found:
        if item.ran:
            # The text names the pull request's files: one neutralised line.
            record_warning(config.hook, pytest.PytestWarning(f"secreview: {one_line(item.text)}"))


# -- deselected review items -----------------------------------------------------------------

def is_review_item(item: pytest.Item) -> bool:
    """True for the items the review created (they carry the ``secreview`` marker)."""
    return item.get_closest_marker("secreview") is not None


def count_review_items(items: Iterable[pytest.Item]) -> int:
    """How many of ``items`` are review items."""
    return sum(1 for item in items if is_review_item(item))
