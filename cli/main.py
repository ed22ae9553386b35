"""The ``memlens`` command: the app by default, plus search/reindex/stats/... subcommands.

Each command family is a module of this package (search, index, inspect, importer, watch, timeline); it
imports the engine only when its command runs, so ``memlens search`` loads no more than a
search needs, and the Textual app is imported only by the commands that open it. Errors are one
clear line on stderr and a non-zero exit (cli/errors.py).
"""

from __future__ import annotations

import argparse
import sys

from . import importer, index, inspect, search, sources, timeline, watch
from .app import open_app
from .args import VersionAction, common_options, existing
from .errors import OneLineParser, run


def cmd_app(args) -> int:
    from engine.config import resolve_root

    root, is_demo = resolve_root(args.root)
    if is_demo and not (root / ".memlens-demo.json").exists():
        args.root, args.chunks, args.today, args.no_app = None, None, None, False
        return index.cmd_demo(args)
    return open_app(existing(root), args.db)


def cmd_mcp(args) -> int:
    from engine.config import resolve_root
    from mcp_server.server import run_mcp

    existing(resolve_root(args.root)[0])
    return run_mcp(args)


def add_mcp_options(parser) -> None:
    """``memlens mcp``'s flags for serving over HTTP (mcp_server/http.py)."""
    parser.add_argument("--http", metavar="[HOST:]PORT",
                        help="serve over HTTP at /mcp instead of stdio (host 127.0.0.1 unless "
                        "given); every request needs the token in secrets/mcp_token")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow --http on an address other machines can reach")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name clients reach this server by (its Host header)")
    parser.add_argument("--rotate-token", action="store_true",
                        help="write a new token to secrets/mcp_token, show it once, and exit")


def build_parser() -> argparse.ArgumentParser:
    common = common_options(OneLineParser(add_help=False), top=False)
    parser = common_options(OneLineParser(
        prog="memlens", description="A person's long-term memory, browsable from the terminal."),
        top=True)
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command")
    search.add_parser(sub, common)
    index.add_parsers(sub, common)  # reindex, maintenance, demo
    inspect.add_parsers(sub, common)  # discover, stats
    importer.add_parser(sub, common)
    watch.add_parser(sub, common)
    sources.add_parser(sub, common)
    timeline.add_parser(sub, common)
    p = sub.add_parser("mcp", parents=[common],
                       help="serve search to AI agents over MCP (stdio, or HTTP with --http)")
    add_mcp_options(p)
    p.set_defaults(func=cmd_mcp)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # a usage error (exit 2, one line), --help or --version
        return exc.code if isinstance(exc.code, int) else 0
    return run(getattr(args, "func", cmd_app), args)


if __name__ == "__main__":
    sys.exit(main())
