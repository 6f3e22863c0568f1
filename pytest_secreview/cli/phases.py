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

from ..errors import ConfigError
from ..invocation import env_addopts, parse_command_line
from ..options import SPECS, Settings
from ..phase_names import PHASES
from ..phases.store import JUNIT, phase_dir, phase_file
from ..severity import one_line
from . import review


def artifacts_dir(args: Sequence[str], env: Mapping[str, str]) -> Path:
    """The artifacts directory the run will use: ``--secreview-artifacts``, else
    ``SECREVIEW_ARTIFACTS``, else ``secreview-artifacts`` (relative to the working directory)."""
    given = parse_command_line(SPECS, [*env_addopts(env), *args]).values
    return Path(given.get("secreview_artifacts") or env.get("SECREVIEW_ARTIFACTS")
                or "secreview-artifacts")


def stored_settings(env: Mapping[str, str], *, root: Path, pr: int | None, repo: str | None,
                    comment: str | None = None, sarif: Path | None = None) -> Settings:
    """The settings of ``secreview comment``/``report``: the flags given, else the
    ``SECREVIEW_PR``/``SECREVIEW_REPO`` a pytest run would read, and the range to check the
    stored diff against (``SECREVIEW_BASE``, else the stored base ref; ``SECREVIEW_HEAD``,
    else ``HEAD``), as a pytest run's later phases check it. Raises
    :class:`~..errors.ConfigError` for a ``SECREVIEW_PR`` that is not a number."""
    number = pr
    if number is None and env.get("SECREVIEW_PR"):
        try:
            number = int(env["SECREVIEW_PR"])
        except ValueError:
            raise ConfigError(f"SECREVIEW_PR={env['SECREVIEW_PR']!r} is not a pull request "
                              "number; pass --pr N") from None
    return Settings(enabled=True, comment=comment, pr=number, sarif=sarif,
                    repo=repo or env.get("SECREVIEW_REPO") or None, artifacts=root,
                    base=env.get("SECREVIEW_BASE") or None,
                    head=env.get("SECREVIEW_HEAD") or "HEAD")


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
    if phase != PHASES[0] and not (given.get("secreview_base") or env.get("SECREVIEW_BASE")):
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
