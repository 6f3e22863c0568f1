"""Every path a review run writes to, checked when pytest starts, before anything is written.

The review's own files are written through :mod:`..atomic`, which refuses links at write time
too; pytest's ``--junitxml``, pytest-json-report's file, pytest's cache directory and
pytest-split's durations are written by those plugins, which follow links. A pull request
that commits one of these paths (or a parent directory) as a link to elsewhere gets a usage
error naming the link, and the session does not start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..atomic import UnsafeOutputPath, check_output_path
from ..options import Settings


def output_paths(config: pytest.Config, settings: Settings) -> list[tuple[str, Path]]:
    """(what, path) for each file or directory this session will write, made absolute."""
    base = config.invocation_params.dir
    option = config.option
    paths: list[tuple[str, Path | None]] = [
        ("--secreview-artifacts", settings.artifacts),
        ("--secreview-report", settings.report),
        ("--secreview-sarif", settings.sarif),
        ("--secreview-cache-dir", settings.cache_dir),
        ("--secreview-baseline", settings.baseline if settings.baseline_update else None),
        ("--junitxml", _path(getattr(option, "xmlpath", None))),
    ]
    if getattr(option, "json_report", False):
        paths.append(("--json-report-file", _path(getattr(option, "json_report_file", None))))
    if getattr(option, "store_durations", False):
        paths.append(("--durations-path", _path(getattr(option, "durations_path", None))))
    if config.pluginmanager.has_plugin("cacheprovider"):
        paths.append(("pytest's cache_dir", config.rootpath / str(config.getini("cache_dir"))))
    return [(what, base / path) for what, path in paths if path is not None]


def _path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str | Path) and str(value) else None


def refuse_linked_outputs(config: pytest.Config, settings: Settings) -> None:
    """Raise :class:`pytest.UsageError` when an output path of this session is, or passes
    through, a symbolic link inside the checkout (see :func:`..atomic.check_output_path`)."""
    for what, path in output_paths(config, settings):
        try:
            check_output_path(path, inside=config.invocation_params.dir)
        except UnsafeOutputPath as exc:
            raise pytest.UsageError(f"{what}: {exc}") from None
