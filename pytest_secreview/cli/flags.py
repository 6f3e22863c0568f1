"""The subcommands' flags for settings of the option table (:data:`..options.SPECS`): a
``secreview comment --pr N`` is the ``--secreview-pr`` of the table, with its parser, choices
and metavar, so a choice list or a validation exists once.

A flag's argparse default is ``None`` (not given), as for the pytest run's flags: the command
then reads the setting's environment variable (:func:`..options.environment_value`), and a
:class:`..options.Settings` built without it takes the table's default.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..options import BY_NAME, OptionSpec


def _argparse_type(spec: OptionSpec) -> Callable[[str], Any]:
    """``spec``'s parser, its ``ValueError`` turned into argparse's usage error (exit 2,
    naming the flag and why the value is refused)."""

    def parse(value: str) -> Any:
        try:
            return spec.parse(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"invalid value {value!r}: {exc}") from None

    return parse


def add_setting(parser: argparse.ArgumentParser, name: str, flag: str | None = None, *,
                help: str | None = None, default: Any = None) -> None:
    """Add the table's setting ``name`` to ``parser`` as ``flag`` (default ``--NAME``).

    ``help`` replaces the table's text when the command uses the setting in its own words;
    ``default`` is for a command whose own meaning of the setting has another default (say
    why where it is passed)."""
    spec = BY_NAME[name]
    flag = flag or f"--{spec.name}"
    text = help or spec.help
    if spec.flag:
        parser.add_argument(flag, action="store_true", help=text)
    elif spec.multiple:
        parser.add_argument(flag, action="append", type=_argparse_type(spec),
                            metavar=spec.metavar, default=default, help=text)
    else:
        parser.add_argument(flag, type=_argparse_type(spec), metavar=spec.metavar,
                            default=default, help=text)
