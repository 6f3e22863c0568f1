"""Errors raised inside the repository tools.

They never leave :meth:`ToolRegistry.call <pytest_secreview.tools.registry.ToolRegistry.call>`:
the registry turns each into a short text the model reads as the tool's result. They subclass
:class:`~pytest_secreview.errors.SecreviewError` so the product keeps one error hierarchy.
"""

from __future__ import annotations

from ..errors import SecreviewError


class ToolError(SecreviewError):
    """A tool could not do what was asked; the message is shown to the model as is."""


class SandboxError(ToolError):
    """A path was refused because it could leave the repository, or is malformed.

    ``reason`` is a short phrase ("absolute path", "symlink leaves the repository") suitable
    for logs and for the model.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused path: {reason}")


class GateDenied(ToolError):
    """The security gate refused a path or a call. ``reason`` says which rule matched."""

    def __init__(
        self, path: str, reason: str, hint: str = "No tool may read this path."
    ) -> None:
        self.path = path
        self.reason = reason
        self.hint = hint
        super().__init__(f"denied by the security gate: {reason}")
