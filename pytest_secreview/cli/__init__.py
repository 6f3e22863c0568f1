"""The ``secreview`` command: one entry point with subcommands, ``review`` by default.

``secreview --base origin/main [options]`` is ``secreview review ...``: the hardened pytest
run (see :mod:`.review`). Later subcommands register in :data:`COMMANDS`; each is a module
with ``main(argv) -> int`` imported only when chosen, so the command starts fast.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

#: name -> (module with ``main(argv) -> int``, one line of help).
COMMANDS: dict[str, tuple[str, str]] = {
    "review": ("pytest_secreview.cli.review",
               "review the pull request with the hardened pytest run (the default)"),
    "diff": ("pytest_secreview.cli.diff",
             "phase: resolve the range, store the parsed diff in <artifacts>/phases/"),
    "rules": ("pytest_secreview.cli.rules",
              "phase: choose the rules and items for the stored diff"),
    "evaluate": ("pytest_secreview.cli.evaluate",
                 "phase: evaluate the stored items (the hardened pytest run)"),
    "comment": ("pytest_secreview.cli.comment",
                "phase: post the stored results on the PR (--dry-run, --interactive)"),
    "report": ("pytest_secreview.cli.report",
               "phase: render summary.md, SARIF, JUnit from the stored results; --merge: "
               "merge a sharded review's results, one PR comment"),
    "test-rules": ("pytest_secreview.cli.rule_examples",
                   "check that each rule finds its bad examples and none of its good ones "
                   "(default: the bundled rules)"),
    "bench": ("pytest_secreview.cli.bench",
              "measure the rules on a labelled PR corpus: precision, recall, F1 and cost"),
    "init": ("pytest_secreview.cli.init",
             "write .github/workflows/secreview.yml (and, with --rule NAME, a starter rule)"),
}
DEFAULT = "review"

USAGE = """\
usage: secreview [COMMAND] [OPTIONS]

Security review of a pull request with pytest-secreview.

commands:
{commands}

`secreview --version` names this package and its version (`secreview review --version`:
pytest's). `python -m pytest_secreview` is this command.

Without a command, `secreview ARGS` is `secreview {default} ARGS`: every --secreview-* option
and pytest option is accepted, e.g. `secreview --base origin/main -n 4 --junitxml=r.xml`.
`secreview {default} --help` lists them (pytest's help).
"""


def usage() -> str:
    """The command's help text."""
    width = max(len(name) for name in COMMANDS)
    lines = "\n".join(f"  {name.ljust(width)}  {text}" for name, (_, text) in COMMANDS.items())
    return USAGE.format(commands=lines, default=DEFAULT)


def version_line() -> str:
    """``pytest-secreview <version> (pytest <version>)``: what ``--version`` prints."""
    import pytest

    try:
        ours = version("pytest-secreview")
    except PackageNotFoundError:  # run from a source tree that is not installed
        from .. import __version__ as ours
    return f"pytest-secreview {ours} (pytest {pytest.__version__})"


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a subcommand; the exit status is the subcommand's."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if args and args[0] in ("--version", "-V"):
        print(version_line())
        return 0
    name = args.pop(0) if args and args[0] in COMMANDS else DEFAULT
    module = importlib.import_module(COMMANDS[name][0])
    status: int = module.main(args)
    return status
