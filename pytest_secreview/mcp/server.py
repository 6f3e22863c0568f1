"""The MCP face of :class:`~.service.ReviewService`, on the official ``mcp`` SDK's low-level
server (the 1.x API: ``semgrep``, installed by the ``scanners`` extra, pins ``mcp`` 1.x):
``tools/list`` answers with the registry's own declarations and ``tools/call`` runs the
registry. Nothing is declared twice.

Only this module (and :mod:`.cli`, lazily) imports the SDK; it is installed by the
``pytest-secreview[mcp]`` extra.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

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
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

#: The one path of the streamable HTTP endpoint.
HTTP_PATH = "/mcp"


def build_server(service: ReviewService) -> Server[Any, Any]:
    """An MCP server whose tools are exactly ``service``'s registry."""
    server: Server[Any, Any] = Server(
        "pytest-secreview", version=__version__, instructions=_INSTRUCTIONS
    )

    async def list_tools() -> list[types.Tool]:
        specs = await anyio.to_thread.run_sync(service.specs)
        return [
            types.Tool(
                name=spec["name"],
                description=spec["description"],
                inputSchema=spec["parameters"],
                annotations=_ANNOTATIONS,
            )
            for spec in specs
        ]

    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        # Tools run git and read blobs: off the event loop, so one slow call does not stall
        # the transport (the registry's counters are thread-safe).
        result = await anyio.to_thread.run_sync(service.call, name, arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)], isError=result.is_error
        )

    # The SDK leaves the decorator factory unannotated (it takes two handler shapes).
    server.list_tools()(list_tools)  # type: ignore[no-untyped-call]
    # The registry validates arguments itself (the same path and "Error: ..." wording as for
    # the agent); the SDK's own jsonschema pass would answer bad arguments differently.
    server.call_tool(validate_input=False)(call_tool)
    return server


async def serve_stdio(service: ReviewService) -> None:
    """Serve over stdin/stdout until the client closes the stream."""
    server = build_server(service)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class _SessionsApp:
    """The ASGI endpoint at :data:`HTTP_PATH`: every request goes to the session manager.

    A class, not a function, so Starlette's ``Route`` passes it the raw ASGI call (and
    ``/mcp`` is served without a redirect to ``/mcp/``)."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


def _security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection on a loopback host (what the SDK's own HTTP app does):
    only ``localhost``/loopback Host and Origin headers are accepted, so a web page cannot
    drive the tools through the browser. A remote bind (``--allow-remote``) is behind a
    proxy whose Host the server cannot know."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def build_http_app(service: ReviewService, host: str) -> Starlette:
    """A Starlette app serving streamable HTTP at :data:`HTTP_PATH`."""
    manager = StreamableHTTPSessionManager(
        app=build_server(service), security_settings=_security(host)
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route(HTTP_PATH, endpoint=_SessionsApp(manager))], lifespan=lifespan)


async def serve_http(service: ReviewService, host: str, port: int) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted."""
    import uvicorn  # an SDK dependency; imported here so stdio never pays for it

    app = build_http_app(service, host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()
