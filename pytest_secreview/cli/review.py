"""``secreview review``: the review under a pytest that runs nothing from the pull request.

``pytest --secreview`` imports the checkout's ``conftest.py`` files, reads its configuration
file (``addopts``, ``-p`` plugins, ``pythonpath``) and loads every installed plugin before the
review can object: code and options from the pull request. This command runs pytest
**in this process** with:

- ``--noconftest``: no ``conftest.py`` is imported;
- ``-c`` a configuration file it writes outside the checkout, holding the ``secreview*`` keys
  of the **base revision's** configuration (resolved the way pytest would at the base), and
  ``--rootdir`` so the checkout's ``pytest.ini``/``pyproject.toml``/... are never read;
- ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` and only the plugins named: this one, pytest-xdist,
  pytest-json-report when ``--json-report`` is asked for and pytest-split when ``--splits``
  is;
- ``PYTHONSAFEPATH=1``: xdist's workers start with ``python -c``, which would otherwise put
  the checkout first on ``sys.path`` (a ``pytest.py`` there would be imported).

In process rather than in a subprocess: the console script's ``sys.path`` starts at its own
``bin`` directory, not the checkout, so nothing is imported from the pull request, and there
is one interpreter start instead of two. The exit status is pytest's.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import SecreviewError
from ..invocation import CommandLine, env_addopts, parse_command_line
from ..options import BY_NAME, SPECS, environment_value
from ..steering import AUTOLOAD_OFF
from ..trust import ResolvedConfig, resolve_config_at

#: Plugins the hardened run loads by name (autoload is off).
PLUGINS = ("pytest_secreview.plugin", "xdist.plugin")
#: Plugins loaded only when one of their options is given: (option prefixes, plugin module).
OPTIONAL_PLUGINS = (
    (("--json-report",), "pytest_jsonreport.plugin"),
    (("--splits", "--group", "--durations-path", "--store-durations",
      "--splitting-algorithm"), "pytest_split.plugin"),
)


def _base_config(cwd: Path, given: CommandLine, env: Mapping[str, str]) -> ResolvedConfig:
    """The base revision's configuration, or an empty one when the range cannot be resolved
    yet (the review itself then stops with git's reason and how to fix it)."""
    from ..diff.git import resolve_base
    from ..diff.prefetch import repository_root
    from ..gitcmd import run_git

    try:
        repo = repository_root(cwd)
        base = _job_setting(given, "base", env)
        head = _job_setting(given, "head", env) or BY_NAME["head"].default
        base_ref = resolve_base(repo, base, env)
        sha = run_git(repo, "merge-base", "--end-of-options", base_ref, head).stdout
        starts = [cwd / p for p in given.paths] or [cwd]
        return resolve_config_at(repo, sha.decode("ascii").strip(), starts)
    except SecreviewError:
        return ResolvedConfig(None)


def _job_setting(given: CommandLine, name: str, env: Mapping[str, str]) -> str | None:
    """A text setting from the job's command line, else its environment variable."""
    spec = BY_NAME[name]
    value: str | None = given.values.get(spec.dest) or environment_value(spec, env)
    return value


def _toml_value(value: Any) -> str:
    # JSON strings and arrays of strings are valid TOML.
    if isinstance(value, list):
        return json.dumps([str(v) for v in value])
    return json.dumps(str(value))


def write_config(base: ResolvedConfig, directory: Path) -> Path:
    """A ``pyproject.toml`` in ``directory`` with the base revision's ``secreview*`` keys
    (not its ``addopts`` or plugins: the hardened run takes options from the job only)."""
    lines = ["# written by `secreview review` from the base revision's pytest configuration",
             f"# ({str(base.path or 'none found').replace(chr(10), ' ')})",
             "[tool.pytest.ini_options]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in sorted(base.secreview.items())]
    path = directory / "pyproject.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def hardened_args(args: Sequence[str], config: Path | None, rootdir: Path | None) -> list[str]:
    """pytest's arguments for the hardened run of ``args``."""
    plugins = [*PLUGINS]
    plugins += [plugin for prefixes, plugin in OPTIONAL_PLUGINS
                if any(a.startswith(prefixes) for a in args)]
    out = ["--secreview", "--noconftest"]
    for plugin in plugins:
        out += ["-p", plugin]
    if config is not None:
        out += ["-c", str(config)]
    if rootdir is not None:
        out += ["--rootdir", str(rootdir)]
    return [*out, *args]


def main(argv: Sequence[str]) -> int:
    """Run the hardened review; the exit status is pytest's."""
    import pytest

    args = list(argv)
    env = os.environ
    cwd = Path.cwd()
    given = parse_command_line(SPECS, [*env_addopts(env), *args])
    env[AUTOLOAD_OFF] = "1"
    env["PYTHONSAFEPATH"] = "1"
    with tempfile.TemporaryDirectory(prefix="secreview-config-") as tmp:
        config: Path | None = None
        rootdir: Path | None = None
        if given.config_file is None:  # a file the job names is the job's choice
            base = _base_config(cwd, given, env)
            config = write_config(base, Path(tmp))
            if given.rootdir is None:
                parent = base.path.parent if base.path is not None else cwd
                rootdir = parent if parent.is_dir() else cwd
        return int(pytest.main(hardened_args(args, config, rootdir)))
