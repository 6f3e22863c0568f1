"""``secreview diff``, ``secreview rules`` and ``secreview evaluate``: the hardened pytest run
(:mod:`.review`) limited to one phase.

``secreview diff ARGS`` is ``secreview review --secreview-stop-after=diff ARGS``;
``secreview rules``/``evaluate`` add ``--secreview-from-phase`` of the same phase, so they
read the earlier phases' artifacts (``<artifacts>/phases/``) instead of recomputing them.
Every pytest and ``--secreview-*`` option is accepted, and ``--artifacts DIR`` as in
``secreview comment``/``report`` (``--secreview-artifacts``). Two conveniences:

- without ``--base``, a later phase reviews the base ref the diff phase recorded (the merge
  base is still checked against the repository);
- ``secreview evaluate`` writes pytest's JUnit file to ``<artifacts>/phases/junit.xml`` when
  the job names none, for ``secreview report --junitxml``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..invocation import env_addopts, parse_command_line
from ..options import BY_NAME, SPECS, Settings, environment_value
from ..phase_names import PHASES
from ..phases.store import JUNIT, phase_dir, phase_file
from ..severity import one_line
from . import review


def setting_from_env(name: str, env: Mapping[str, str], flag: str | None = None) -> Any:
    """The table's setting ``name`` from its environment variable (``None`` when unset), as
    the pytest run reads it. Raises :class:`~..errors.ConfigError` for a value the table
    refuses, naming the variable and an example for ``flag``."""
    try:
        return environment_value(BY_NAME[name], env, flag)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def artifacts_dir(args: Sequence[str], env: Mapping[str, str]) -> Path:
    """The artifacts directory the run will use: ``--secreview-artifacts``, else
    ``SECREVIEW_ARTIFACTS``, else the table's default (relative to the working directory)."""
    given = parse_command_line(SPECS, [*env_addopts(env), *args]).values
    if given.get("secreview_artifacts"):
        return Path(given["secreview_artifacts"])
    root: Path = setting_from_env("artifacts", env) or BY_NAME["artifacts"].default
    return root


def stored_settings(env: Mapping[str, str], *, root: Path, pr: int | None, repo: str | None,
                    comment: str | None = None, sarif: Path | None = None) -> Settings:
    """The settings of ``secreview comment``/``report``: the flags given, else the
    ``SECREVIEW_PR``/``SECREVIEW_REPO`` a pytest run would read, and the range to check the
    stored diff against (``SECREVIEW_BASE``, else the stored base ref; ``SECREVIEW_HEAD``,
    else the table's ``HEAD``), as a pytest run's later phases check it. Raises
    :class:`~..errors.ConfigError` for an environment value the table refuses."""
    values = {"pr": pr if pr is not None else setting_from_env("pr", env, "--pr"),
              "repo": repo or setting_from_env("repo", env, "--repo"),
              "base": setting_from_env("base", env), "head": setting_from_env("head", env)}
    # A setting given nowhere keeps the table's default.
    return Settings(enabled=True, comment=comment, sarif=sarif, artifacts=root,
                    **{name: value for name, value in values.items() if value is not None})


def error_line(prog: str, exc: BaseException) -> str:
    """One line for stderr: ``prog: message``, without naming ``prog`` twice when the
    message already starts with it (a phase error names the phase that needed the file)."""
    text = one_line(str(exc))
    return text if text.startswith(f"{prog}:") or text.startswith(f"{prog} ") else (
        f"{prog}: {text}")


def _own_flags(argv: Sequence[str]) -> list[str]:
    """``--artifacts DIR`` (the flag of every phase command) as ``--secreview-artifacts``."""
    out: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg == "--artifacts":
            out.append(f"--secreview-artifacts={next(rest, '')}")
        elif arg.startswith("--artifacts="):
            out.append("--secreview-artifacts=" + arg.split("=", 1)[1])
        else:
            out.append(arg)
    return out


def phase_args(phase: str, argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The hardened run's arguments for ``secreview <phase> argv``."""
    argv = _own_flags(argv)
    args = [f"--secreview-stop-after={phase}"]
    if phase != PHASES[0]:
        args.insert(0, f"--secreview-from-phase={phase}")
    given = parse_command_line(SPECS, [*env_addopts(env), *argv]).values
    root = artifacts_dir(argv, env)
    base_spec = BY_NAME["base"]
    if phase != PHASES[0] and not (given.get(base_spec.dest) or env.get(base_spec.env)):
        try:
            stored = json.loads(phase_file(root, "diff").read_text(encoding="utf-8"))
            base = stored.get("base_ref") if isinstance(stored, dict) else None
        except (OSError, ValueError):
            base = None  # the run itself says which file is missing and what to run
        if isinstance(base, str) and base:
            args.append(f"--secreview-base={base}")
    if phase == "evaluate" and not any(a.startswith(("--junitxml", "--junit-xml"))
                                       for a in argv):
        args.append(f"--junitxml={phase_dir(root) / JUNIT}")
    return [*args, *argv]


def run(phase: str, argv: Sequence[str]) -> int:
    """Run ``phase`` through the hardened pytest run; the exit status is pytest's."""
    return review.main(phase_args(phase, argv, os.environ))
