"""One registry of the tools a model may call: the single source of truth for what is declared
to a model (and what an MCP server would expose) and for how a call is executed.

:meth:`ToolRegistry.call` never raises. Unknown tools, malformed arguments, gate denials and any
exception inside a tool come back as a :class:`ToolResult` whose text the model can read and act
on (errors are answers, never exceptions). Every result is cleaned of control characters,
redacted of secrets and truncated before it is returned.
"""

from __future__ import annotations

import copy
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import SecreviewError
from ..logs import get_logger
from .errors import GateDenied, SandboxError
from .gate import Denial, Gate, display_path
from .output import MAX_OUTPUT_CHARS, for_model
from .sandbox import clean_relative
from .schema import described, tool_schema

logger = get_logger("pytest_secreview.tools")

# The strictest name rule among providers (OpenAI: ^[a-zA-Z0-9_-]{1,64}$; Gemini: no dash
# first). Checked at registration so a bad name fails in tests, not at the provider.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


@dataclass(frozen=True)
class Tool:
    """A tool a model may call.

    ``args_model`` (pydantic, closed: see :class:`~.schema.ToolArgs`) validates the arguments
    actually received and is passed to ``function``, which returns the result text or raises.
    ``parameters``, the JSON Schema declared to the model, is derived from ``args_model``
    (:func:`~.schema.tool_schema`), so the two cannot disagree, and the bounds of its arguments
    are appended to ``description`` (:func:`~.schema.described`). ``path_params`` names the
    arguments the gate checks before the call.
    """

    name: str
    description: str
    function: Callable[[Any], str] = field(repr=False)
    args_model: type[BaseModel] = field(repr=False)
    path_params: tuple[str, ...] = ()
    parameters: Mapping[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"tool name {self.name!r} must match {_NAME.pattern}")
        fields = set(self.args_model.model_fields)
        if not set(self.path_params) <= fields:
            raise ValueError(
                f"tool {self.name}: path_params {sorted(self.path_params)} are not all fields "
                f"of the argument model {sorted(fields)}"
            )
        object.__setattr__(self, "parameters", tool_schema(self.args_model))
        object.__setattr__(self, "description", described(self.description, self.args_model))


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: ``text`` for the model; ``is_error`` when the call failed;
    ``denied`` when the security layer (sandbox or gate) refused it."""

    text: str
    is_error: bool = False
    denied: bool = False


@dataclass(frozen=True)
class ToolUsage:
    """Counters of one registry, reported per item.

    ``errors`` counts failed calls that were not denials; ``denied`` counts refused calls;
    ``withheld`` counts paths hidden from results. ``denials`` lists them all with reasons.
    """

    calls: int
    errors: int
    denied: int
    withheld: int
    by_tool: Mapping[str, int]
    denials: tuple[Denial, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form for reports."""
        return {
            "calls": self.calls,
            "errors": self.errors,
            "denied": self.denied,
            "withheld": self.withheld,
            "by_tool": dict(self.by_tool),
            "denials": [denial.to_dict() for denial in self.denials],
        }


def _describe_validation(exc: ValidationError) -> str:
    problems: list[str] = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error["loc"])[:60] or "arguments"
        if error["type"] == "extra_forbidden":
            problems.append(f"unexpected argument {where!r}")
        elif error["type"] == "missing":
            problems.append(f"missing required argument {where!r}")
        else:
            problems.append(f"{where}: {error['msg']}")
    return "; ".join(problems)


class ToolRegistry:
    """The tools of one review (one pytest item), with their gate and usage counters."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        gate: Gate | None = None,
        max_output_chars: int = MAX_OUTPUT_CHARS,
    ) -> None:
        self.gate = gate if gate is not None else Gate()
        self.max_output_chars = max_output_chars
        self._tools: dict[str, Tool] = {}
        self._calls = 0
        self._errors = 0
        self._denied = 0
        self._by_tool: Counter[str] = Counter()
        self._count_lock = threading.Lock()
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool (for example the evaluation's ``report_findings``). Names are unique."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def names(self) -> tuple[str, ...]:
        """Registered tool names, in registration order."""
        return tuple(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def specs(self) -> list[dict[str, Any]]:
        """``name``, ``description`` and ``parameters`` (JSON Schema) of every tool, for
        declaring to a model. Copies: callers may adapt them to a wire format freely."""
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": copy.deepcopy(dict(tool.parameters)),
            }
            for tool in self._tools.values()
        ]

    def usage(self) -> ToolUsage:
        """A snapshot of the counters."""
        denials = self.gate.denials
        return ToolUsage(
            calls=self._calls,
            errors=self._errors,
            denied=self._denied,
            withheld=sum(1 for denial in denials if denial.stage == "result"),
            by_tool=dict(self._by_tool),
            denials=denials,
        )

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> ToolResult:
        """Validate ``args``, check the gate, run the tool and return its cleaned result.

        Never raises: every failure becomes a short error text for the model.
        """
        with self._count_lock:  # the calls of one model turn run concurrently
            self._calls += 1
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            shown = display_path(str(name))[:64]
            return self._error(
                f"Error: unknown tool {shown!r}. Available tools: {', '.join(self._tools)}."
            )
        with self._count_lock:
            self._by_tool[tool.name] += 1
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            return self._error(f"Error: arguments for {tool.name} must be a JSON object.")
        try:
            parsed = tool.args_model.model_validate(dict(args))
        except ValidationError as exc:
            return self._error(
                f"Error: invalid arguments for {tool.name}: {_describe_validation(exc)}. "
                f"Accepted arguments: {', '.join(tool.parameters.get('properties', {}))}."
            )
        try:
            self._check_paths(tool, parsed)
            text = tool.function(parsed)
        except GateDenied as exc:
            return self._deny(f"Error: {exc}. {exc.hint}")
        except SandboxError as exc:
            self.gate.record(tool.name, exc.path, exc.reason)
            return self._deny(f"Error: {exc}. Use a path relative to the repository root.")
        except SecreviewError as exc:
            return self._error(f"Error: {exc}")
        except Exception as exc:
            logger.debug("tool %s raised", tool.name, exc_info=True)
            return self._error(
                f"Error: {tool.name} failed unexpectedly ({type(exc).__name__}). "
                "Try other arguments or another tool."
            )
        if not isinstance(text, str):
            return self._error(f"Error: {tool.name} returned no text.")
        return ToolResult(for_model(text, self.max_output_chars))

    def _check_paths(self, tool: Tool, parsed: BaseModel) -> None:
        for param in tool.path_params:
            value = getattr(parsed, param)
            if value is None:
                continue
            try:
                self.gate.require(clean_relative(value, allow_root=True), tool=tool.name)
            except (GateDenied, SandboxError):
                raise
            except Exception as exc:  # fail closed: a gate that breaks denies the call
                reason = f"security gate error ({type(exc).__name__}); denied to be safe"
                self.gate.record(tool.name, str(value), reason)
                raise GateDenied(str(value), reason) from exc

    def _error(self, text: str) -> ToolResult:
        with self._count_lock:
            self._errors += 1
        return ToolResult(for_model(text, self.max_output_chars), is_error=True)

    def _deny(self, text: str) -> ToolResult:
        with self._count_lock:
            self._denied += 1
        return ToolResult(for_model(text, self.max_output_chars), is_error=True, denied=True)
