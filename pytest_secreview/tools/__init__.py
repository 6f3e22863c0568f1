"""Read-only repository tools for the agentic review, and the safety around them.

* :mod:`.registry`: one registry of tools (declared to models, exposed as an MCP server would);
* :mod:`.repo_tools` / :mod:`.git_tools`: files and history of the reviewed revision;
* :mod:`.github_tools`: the pull request's file list, with an injected token;
* :mod:`.sandbox`, :mod:`.gate`: which paths may be read at all;
* :mod:`.redaction`: secrets removed from everything the product shows or writes.
"""

from __future__ import annotations

from .errors import GateDenied, SandboxError, ToolError
from .gate import Denial, Gate, deny_reason
from .github_tools import FetchPRFiles, GitHubPRContext
from .limits import ToolLimits
from .output import MAX_OUTPUT_CHARS, for_model, truncate
from .redaction import SecretMatch, find_secrets, redact, sanitize, strip_control
from .registry import Tool, ToolRegistry, ToolResult, ToolUsage
from .repo_tools import build_registry
from .sandbox import clean_relative, resolve_in_root, resolve_in_tree

__all__ = [
    "MAX_OUTPUT_CHARS",
    "Denial",
    "FetchPRFiles",
    "Gate",
    "GateDenied",
    "GitHubPRContext",
    "SandboxError",
    "SecretMatch",
    "Tool",
    "ToolError",
    "ToolLimits",
    "ToolRegistry",
    "ToolResult",
    "ToolUsage",
    "build_registry",
    "clean_relative",
    "deny_reason",
    "find_secrets",
    "for_model",
    "redact",
    "resolve_in_root",
    "resolve_in_tree",
    "sanitize",
    "strip_control",
    "truncate",
]
