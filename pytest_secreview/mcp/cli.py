"""``secreview-mcp``: serve the review tools of one repository over MCP.

    secreview-mcp --repo . --base origin/main                 # stdio (editors, agents)
    secreview-mcp --repo . --base origin/main --http 8765     # http://127.0.0.1:8765/mcp

The MCP SDK is imported only once the arguments are valid, so a missing extra is reported as
an installation hint instead of a traceback.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from ..cli.flags import add_setting
from ..errors import SecreviewError
from ..options import BY_NAME

_LOOPBACK_NAMES = {"localhost"}
_MISSING_SDK = (
    "secreview-mcp needs the MCP SDK: pip install 'pytest-secreview[mcp]'"
)


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` -> ``(host, port)``; the host defaults to
    127.0.0.1. IPv6 hosts are written in brackets: ``[::1]:8765``."""
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"--http {value!r}: expected HOST:PORT or PORT with a port from 0 to 65535, "
            "e.g. --http 127.0.0.1:8765"
        )
    return host, port


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``secreview-mcp``."""
    parser = argparse.ArgumentParser(
        prog="secreview-mcp",
        description="Serve pytest-secreview's read-only review tools over MCP (stdio by "
        "default).",
    )
    parser.add_argument("--repo", default=".", type=Path, help="git checkout (default: .)")
    parser.add_argument("--base", required=True, help="base ref of the change, e.g. origin/main")
    parser.add_argument("--head", default="HEAD", help="head ref (default: HEAD, followed)")
    parser.add_argument(
        "--rules", action="append", default=[], metavar="PATH",
        help="rule files or directories, or :bundled (default: the bundled pack and the "
        "repository's secreview/rules); may be repeated",
    )
    add_setting(parser, "rules-from", default=BY_NAME["rules-from"].default,
                help="read rule files inside the repository from the base revision (default) "
                "or the working tree")
    parser.add_argument(
        "--http", type=parse_http, metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
        "(host default 127.0.0.1)",
    )
    parser.add_argument(
        "--allow-remote", action="store_true",
        help="allow --http on a non-loopback address (there is no authentication: anyone "
        "who can reach the port can read the repository through the tools)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``secreview-mcp`` console script."""
    args = build_parser().parse_args(argv)
    # stdout is the protocol channel over stdio: every diagnostic goes to stderr.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if args.http and not is_loopback(args.http[0]) and not args.allow_remote:
        print(
            f"secreview-mcp: refusing to serve on {args.http[0]}, which is not a loopback "
            "address; the tools have no authentication. Use 127.0.0.1, or pass "
            "--allow-remote behind an authenticating proxy.",
            file=sys.stderr,
        )
        return 2
    try:
        import anyio

        from .server import serve_http, serve_stdio
    except ImportError:
        print(f"secreview-mcp: {_MISSING_SDK}", file=sys.stderr)
        return 2
    from .review_tools import ReviewScope
    from .service import ReviewService

    scope = ReviewScope(
        repo=args.repo, base=args.base, head=args.head, rules=tuple(args.rules),
        rules_from=args.rules_from,
    )
    try:
        service = ReviewService(scope)
    except SecreviewError as exc:
        print(f"secreview-mcp: {exc}", file=sys.stderr)
        return 2
    try:
        if args.http:
            anyio.run(serve_http, service, *args.http)
        else:
            anyio.run(serve_stdio, service)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
