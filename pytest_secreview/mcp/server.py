"""The MCP face of :class:`~.service.ReviewService`, on the official ``mcp`` SDK's low-level
server: ``tools/list`` answers with the registry's own declarations and ``tools/call`` runs
the registry. Nothing is declared twice.

Only this module (and :mod:`.cli`, lazily) imports the SDK; it is installed by the
``pytest-secreview[mcp]`` extra.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from .. import __version__
from .service import ReviewService

logger = logging.getLogger("pytest_secreview.mcp")

_INSTRUCTIONS = (
    "Read-only security-review tools over one git repository and one change "
    "(merge-base(base, head)..head). Paths are relative to the repository root; secret files "
    "and .git internals are refused and secrets in results are redacted. review_diff runs the "
    "deterministic rules; list_rules and explain_rule describe them."
)

#: Every tool is read-only and acts on a local repository only (hints for clients).
_ANNOTATIONS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def build_server(service: ReviewService) -> Server[Any]:
    """An MCP server whose tools are exactly ``service``'s registry."""

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        specs = await anyio.to_thread.run_sync(service.specs)
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=spec["name"],
                    description=spec["description"],
                    input_schema=spec["parameters"],
                    annotations=_ANNOTATIONS,
                )
                for spec in specs
            ]
        )

    async def call_tool(
        _ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # Tools run git and read blobs: off the event loop, so one slow call does not stall
        # the transport (the registry's counters are thread-safe).
        result = await anyio.to_thread.run_sync(service.call, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)], is_error=result.is_error
        )

    return Server(
        "pytest-secreview",
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(service: ReviewService) -> None:
    """Serve over stdin/stdout until the client closes the stream."""
    server = build_server(service)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(service: ReviewService, host: str, port: int) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted.

    On a loopback host the SDK's DNS-rebinding protection is on (only ``localhost`` Host and
    Origin headers are accepted), so a web page cannot drive the tools through the browser.
    """
    import uvicorn  # an SDK dependency; imported here so stdio never pays for it

    app = build_server(service).streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()
