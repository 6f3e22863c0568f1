"""Bounds on what one tool call may read, return and spend."""

from __future__ import annotations

from dataclasses import dataclass

from .output import MAX_OUTPUT_CHARS


@dataclass(frozen=True)
class ToolLimits:
    """Every bound of the repository tools in one place (tests shrink them)."""

    #: Characters of any result; the registry truncates beyond with a visible marker.
    max_output_chars: int = MAX_OUTPUT_CHARS
    #: Lines ``read_file`` returns when no ``limit`` is given, and the most it accepts.
    read_default_lines: int = 400
    read_max_lines: int = 2000
    #: A longer single line (minified code) is cut with a marker.
    max_line_chars: int = 2000
    #: Files larger than this are described, not read.
    max_read_bytes: int = 32 << 20
    #: ``search_files`` skips larger files (and says so).
    max_search_file_bytes: int = 2 << 20
    #: ``search_files`` stops after this many matching lines or this many seconds.
    max_matches: int = 200
    search_seconds: float = 10.0
    #: ``list_files`` shows at most this many paths.
    max_list_entries: int = 2000
    #: Bytes of git output kept for ``git_diff``/``git_log``/``git_show`` (git is then killed).
    git_output_bytes: int = 1 << 20
    #: Default and maximum ``git_log`` count.
    log_default_count: int = 20
    log_max_count: int = 200
