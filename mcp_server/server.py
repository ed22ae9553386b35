"""The MCP server: the SDK's low-level Server (hand-written schemas, our own errors) wired to
:class:`mcp_server.tools.MemlensTools`, served over stdio (or HTTP: mcp_server/http.py).

Run it as ``memlens mcp --root DIR [--http [HOST:]PORT]`` or ``python -m mcp_server ...``. The SDK is
imported only when serving, so a missing or wrong SDK is one line, not a traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from engine.config import Config, ConfigError, load_config, resolve_root

from .descriptions import (
    HYBRID_DESCRIPTION,
    INSTRUCTIONS,
    KEYWORD_DESCRIPTION,
    NEIGHBORHOOD_DESCRIPTION,
    READ_NOTE_DESCRIPTION,
    SEMANTIC_DESCRIPTION,
    STATUS_DESCRIPTION,
    TIMELINE_DESCRIPTION,
)
from .handshake import DropAnswered, EarlyHandshake
from .schemas import (
    NEIGHBORHOOD_SCHEMA,
    READ_NOTE_SCHEMA,
    STATUS_SCHEMA,
    TIMELINE_SCHEMA,
    search_schema,
)

if TYPE_CHECKING:  # the tools load the engine: imported once the handshake is under way
    from .tools import MemlensTools

SERVER_NAME = "memlens"
MCP_REQUIREMENT = "mcp>=2.3,<2.4"  # the SDK version range this server is tested with

TOOL_SPECS: tuple[tuple[str, str, str, Callable[[], dict]], ...] = (
    ("hybrid_search", "Hybrid search", HYBRID_DESCRIPTION, search_schema),
    ("keyword_search", "Keyword search", KEYWORD_DESCRIPTION, search_schema),
    ("semantic_search", "Semantic search", SEMANTIC_DESCRIPTION, search_schema),
    ("read_note", "Read a note", READ_NOTE_DESCRIPTION, lambda: READ_NOTE_SCHEMA),
    ("get_neighborhood", "Chunks around a result", NEIGHBORHOOD_DESCRIPTION,
     lambda: NEIGHBORHOOD_SCHEMA),
    ("index_status", "Index status", STATUS_DESCRIPTION, lambda: STATUS_SCHEMA),
    ("timeline", "Timeline", TIMELINE_DESCRIPTION, lambda: TIMELINE_SCHEMA),
)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("memlens")
    except Exception:  # noqa: BLE001 - running from a checkout
        return "0.1.0"


def server_info() -> dict[str, str]:
    """The `serverInfo` of the initialize answer, as the SDK writes it."""
    return {"name": SERVER_NAME, "title": "memlens", "version": _version()}


def build_server(tools: MemlensTools):
    """The SDK's low-level Server wired to ``tools``."""
    import anyio
    import mcp.types as types
    from mcp.server import Server

    annotations = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                        idempotent_hint=True, open_world_hint=False)
    listed = [types.Tool(name=name, title=title, description=description,
                         input_schema=schema(), annotations=annotations)
              for name, title, description, schema in TOOL_SPECS]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params) -> types.CallToolResult:
        args = {} if params.arguments is None else params.arguments
        text, is_error = await anyio.to_thread.run_sync(tools.call, params.name, args)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)

    info = server_info()
    return Server(info["name"], version=info["version"], title=info["title"],
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def _run_stdio(server, stdin: TextIO, handshake: EarlyHandshake) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from .stdio_guard import GuardedStdin

    async def lines():
        # the first line was read (and an initialize answered) by the handshake thread
        first = await anyio.to_thread.run_sync(handshake.first_line, abandon_on_cancel=True)
        if not first:
            return
        yield first
        async for line in anyio.wrap_file(stdin):
            yield line

    # The SDK drops lines it cannot validate without answering them (see stdio_guard), so we
    # hand it stdin through a guard that answers those itself. With an explicit stdin the SDK
    # no longer points fd 0 at /dev/null while serving: harmless, as no tool reads stdin or
    # starts a process that could.
    guard = GuardedStdin(lines())
    async with stdio_server(stdin=guard) as (read_stream, write_stream):
        guard.answer_through(write_stream)
        await server.run(read_stream, DropAnswered(write_stream, handshake),
                         server.create_initialization_options())


def sdk_problem() -> str | None:
    """Why the installed MCP SDK cannot run this server, or None when it can."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        installed = version("mcp")
    except PackageNotFoundError:
        return f"the MCP server needs the `mcp` package: pip install '{MCP_REQUIREMENT}'"
    major = installed.split(".")[0]
    if not major.isdigit() or int(major) < 2:
        return (f"the MCP server needs {MCP_REQUIREMENT} (the SDK's 2.x API), but mcp "
                f"{installed} is installed: pip install '{MCP_REQUIREMENT}'")
    return None


def _config(root: Path | str | None, db: str | None) -> Config | None:
    """The root's configuration, or None after saying on stderr (stdout is the protocol's)
    why it cannot be served."""
    problem = sdk_problem()
    if problem:
        print(f"memlens: {problem}", file=sys.stderr)
        return None
    resolved, _ = resolve_root(root)
    if not resolved.is_dir():
        print(f"memlens: data root {resolved} does not exist", file=sys.stderr)
        return None
    try:
        config = load_config(resolved, db)
    except ConfigError as exc:
        print(f"memlens: {exc}", file=sys.stderr)
        return None
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                            format="memlens mcp: %(levelname)s %(message)s")
    return config


def serve(root: Path | str | None, db: str | None = None) -> int:
    """Serve the tools over stdio until the client closes the connection. Returns an exit
    code; configuration problems are one line on stderr (stdout is the protocol's)."""
    config = _config(root, db)
    if config is None:
        return 1
    # Decoded as the SDK decodes it; closefd=False so closing this reader never closes fd 0.
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace",  # noqa: SIM115
                 closefd=False)
    handshake = EarlyHandshake(stdin, server_info(), INSTRUCTIONS)
    import anyio

    from .tools import MemlensTools

    tools = MemlensTools(config)
    try:
        anyio.run(_run_stdio, build_server(tools), stdin, handshake)
    except KeyboardInterrupt:
        return 0
    finally:
        tools.close()
    return 0


def serve_http(root: Path | str | None, db: str | None, where: str, allow_remote: bool = False,
               allow_hosts: tuple[str, ...] = ()) -> int:
    """Serve the tools over HTTP at ``where`` ([HOST:]PORT) until interrupted
    (mcp_server/http.py). Exit 2 for an address or flag that cannot serve, 1 otherwise."""
    import errno

    from . import http

    try:
        address = http.Address.parse(where)
        if not address.loopback and not allow_remote:
            raise http.HttpSetupError(
                f"{address.host} is not a loopback address: every machine that reaches it "
                "could call the tools; add --allow-remote to serve other machines")
        hosts = http.allowed_hosts(address, list(allow_hosts))
    except http.HttpSetupError as exc:
        print(f"memlens: {exc}", file=sys.stderr)
        return 2
    config = _config(root, db)
    if config is None:
        return 1
    if not _indexed(config):
        return 1
    try:
        token = http.read_token(config.root)
        sock = http.bind(address)
    except http.HttpSetupError as exc:
        print(f"memlens: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        why = ("the port is in use" if exc.errno == errno.EADDRINUSE else
               "the address is not this machine's" if exc.errno == errno.EADDRNOTAVAIL else
               exc.strerror or str(exc))
        print(f"memlens: cannot serve at {address.url()}: {why}", file=sys.stderr)
        return 1
    if token is None:
        _new_token(http, config.root, http.write_token(config.root))
    if not address.loopback:
        http.say(f"serving on {address.url()}: any machine that reaches it and holds the token "
                 f"can search and read everything under {config.root} (read-only)")
    from .tools import MemlensTools

    tools = MemlensTools(config)
    http.say(f"serving {config.root} at {address.url()} (Authorization: Bearer <token>); "
             "ctrl+c stops")
    try:
        http.serve_http(build_server(tools), tools, address, hosts, sock)
    except KeyboardInterrupt:
        pass
    finally:
        tools.close()
        sock.close()
    return 0


def _indexed(config: Config) -> bool:
    """Whether the root has an index: a folder that is not a data root (a mistyped --root,
    a synced vault) gets no secrets/ written into it. Says why not on stderr."""
    if config.db_path.exists():
        return True
    print(f"memlens: {config.root} has no index yet: memlens reindex --root {config.root} "
          "builds it", file=sys.stderr)
    return False


def _new_token(http, root: Path, token: str) -> None:
    """Say where a new token is; show it once to a person at a terminal (never into a log
    such as a service's journal)."""
    where = root / http.TOKEN_FILE
    if sys.stderr.isatty():
        http.say(f"a new token, shown this once (also in {where}): {token}")
    else:
        http.say(f"a new token is in {where} (mode 0600); give it to your MCP clients")


def rotate_token(root: Path | str | None, db: str | None) -> int:
    """Replace ``secrets/mcp_token`` and show the new token once; a running server refuses the
    old one from its next request."""
    from . import http

    config = _config(root, db)
    if config is None or not _indexed(config):
        return 1
    try:
        had = http.token_path(config.root).exists()
        token = http.write_token(config.root)
    except (http.HttpSetupError, OSError) as exc:
        why = exc if isinstance(exc, http.HttpSetupError) else exc.strerror or exc
        print(f"memlens: cannot write {http.TOKEN_FILE}: {why}", file=sys.stderr)
        return 1
    _new_token(http, config.root, token)
    if had:
        http.say("the old token is refused from now on, also by a server already running")
    return 0


def run_mcp(args) -> int:
    """stdio, HTTP or a token rotation, as the flags ask."""
    if args.rotate_token:
        if args.http is not None or args.allow_remote or args.allow_host:
            print("memlens: --rotate-token writes a new token and exits; start the server "
                  "with --http on its own", file=sys.stderr)
            return 2
        return rotate_token(args.root, args.db)
    if args.http is not None:
        return serve_http(args.root, args.db, args.http, args.allow_remote,
                          tuple(args.allow_host))
    if args.allow_remote or args.allow_host:
        print("memlens: --allow-remote and --allow-host go with --http", file=sys.stderr)
        return 2
    return serve(args.root, args.db)
