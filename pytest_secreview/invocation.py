"""The trusted command line: what pytest was told by the CI job, not by the pull request.

pytest merges three sources into its options: the ``addopts`` of the configuration file it
found (the checkout's, so the pull request's), ``PYTEST_ADDOPTS`` (the CI job's environment)
and the arguments it was started with. Only the last two are the job's. This module parses
them, plus the base revision's ``addopts``, with a parser built from the same option table, so
the review can tell a value the job chose from one the pull request slipped in.
"""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class _Spec(Protocol):
    """The part of an ``OptionSpec`` (see :mod:`.options`) a parser needs."""

    @property
    def dest(self) -> str: ...
    @property
    def cli(self) -> str: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...
    @property
    def multiple(self) -> bool: ...
    @property
    def flag(self) -> bool: ...


#: pytest's own options that decide which items run or whether they are judged at all; a
#: pull request must not set them for the review (``-m "not secreview"`` in its addopts).
#: dest -> (flags, argparse action).
SELECTION: dict[str, tuple[tuple[str, ...], str]] = {
    "keyword": (("-k",), "store"),
    "markexpr": (("-m",), "store"),
    "deselect": (("--deselect",), "append"),
    "collectonly": (("--co", "--collect-only", "--collectonly"), "store_true"),
    "lf": (("--lf", "--last-failed"), "store_true"),
    "last_failed_no_failures": (("--lfnf", "--last-failed-no-failures"), "store"),
    "stepwise": (("--sw", "--stepwise"), "store_true"),
    "stepwise_skip": (("--sw-skip", "--stepwise-skip"), "store_true"),
    "ignore": (("--ignore",), "append"),
    "ignore_glob": (("--ignore-glob",), "append"),
    # pytest-split's sharding runs a fraction of the items: the job's choice, never the PR's.
    "splits": (("--splits",), "store"),
    "group": (("--group",), "store"),
}


@dataclass(frozen=True)
class CommandLine:
    """Options parsed from trusted arguments: ``values`` by dest (only those given),
    ``config_file`` (``-c``), ``overrides`` (``-o key=value``) and positional ``paths``."""

    values: dict[str, Any] = field(default_factory=dict)
    config_file: str | None = None
    rootdir: str | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    paths: tuple[str, ...] = ()

    def selection(self) -> dict[str, Any]:
        """The selection options given (see :data:`SELECTION`), falsy ones left out."""
        return {k: v for k, v in self.values.items() if k in SELECTION and v}


def _parser(specs: Sequence[_Spec]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    for spec in specs:
        if spec.flag:
            parser.add_argument(spec.cli, *spec.aliases, dest=spec.dest, action="store_const",
                                const="true", default=None)
        else:
            parser.add_argument(spec.cli, *spec.aliases, dest=spec.dest, default=None,
                                action="append" if spec.multiple else "store")
    for dest, (flags, action) in SELECTION.items():
        parser.add_argument(*flags, dest=dest, action=action, default=None)
    parser.add_argument("-c", "--config-file", "--inifile", dest="__config_file")
    parser.add_argument("--rootdir", dest="__rootdir")
    parser.add_argument("-o", "--override-ini", dest="__override", action="append")
    # Options of pytest that take a value, so that the value is not read as a path.
    for flags in (("-p",), ("--basetemp",), ("--confcutdir",), ("-n", "--numprocesses"),
                  ("--maxfail",), ("--junitxml", "--junit-xml"), ("--tb",), ("-r",),
                  ("--dist",), ("--tx",), ("--json-report-file",), ("-W", "--pythonwarnings"),
                  ("--durations",), ("--import-mode",), ("--log-level",)):
        parser.add_argument(*flags, dest="__other_" + flags[0].lstrip("-"), action="append")
    parser.add_argument("__paths", nargs="*")
    return parser


_PARSERS: dict[int, tuple[Sequence[_Spec], argparse.ArgumentParser]] = {}


def parse_command_line(specs: Sequence[_Spec], args: Sequence[str]) -> CommandLine:
    """Parse ``args`` for the options in ``specs`` and pytest's selection options; anything
    else is ignored (pytest has parsed it already)."""
    # Built once per option table: a session parses its command line several times
    # (trust, steering, options), and building the parser costs more than using it.
    parser = _PARSERS.get(id(specs))
    if parser is None or parser[0] is not specs:
        parser = _PARSERS[id(specs)] = (specs, _parser(specs))
    try:
        namespace, unknown = parser[1].parse_known_args(list(args))
    except argparse.ArgumentError:
        # pytest accepted these arguments; a value we cannot place is not one of ours.
        namespace, unknown = argparse.Namespace(), []
    raw = vars(namespace)
    values = {k: v for k, v in raw.items() if not k.startswith("__") and v is not None}
    overrides: dict[str, str] = {}
    for item in raw.get("__override") or []:
        key, sep, value = str(item).partition("=")
        if sep:
            overrides[key.strip()] = value
    # Like pytest's own search for its configuration file: positional arguments and the
    # values of options it does not know, minus anything that looks like an option.
    paths = tuple(str(p).split("::", 1)[0] for p in [*(raw.get("__paths") or []), *unknown]
                  if not str(p).startswith("-"))
    return CommandLine(values=values, config_file=raw.get("__config_file"),
                       rootdir=raw.get("__rootdir"), overrides=overrides, paths=paths)


def env_addopts(env: Mapping[str, str] | None = None) -> list[str]:
    """``PYTEST_ADDOPTS`` as pytest splits it: the CI job's own options."""
    env = os.environ if env is None else env
    try:
        return shlex.split(env.get("PYTEST_ADDOPTS", ""))
    except ValueError:
        return []


def trusted_args(
    invocation_args: Sequence[str], env: Mapping[str, str] | None = None,
    base_addopts: Sequence[str] = (),
) -> list[str]:
    """The arguments the review trusts, in pytest's merge order (ini addopts, then
    ``PYTEST_ADDOPTS``, then the command line, later ones winning)."""
    return [*base_addopts, *env_addopts(env), *invocation_args]
