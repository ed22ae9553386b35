"""The MCP server over HTTP: the same tools at ``/mcp`` with the SDK's streamable-HTTP
transport, for agents on other machines (``memlens mcp --http [HOST:]PORT``).

Every request passes three checks before the SDK sees it, in this order:

1. **Host and Origin** (DNS rebinding: a web page must not reach a server on this machine by
   a name it controls): the Host header must name the address served (a loopback name, the
   bound host, or one allowed with ``--allow-host``), and an Origin, when sent, one of those.
   Refused: 421 (Host), 403 (Origin).
2. **A bearer token** on every request: ``Authorization: Bearer <token>``, compared in constant
   time with ``<root>/secrets/mcp_token`` (one line, mode 0600, made on first use and printed
   once; ``memlens mcp --rotate-token`` replaces it, and a running server takes the new one at
   its next request). ``secrets/`` is never indexed nor served
   by ``read_note`` (engine/index/protected.py). Refused: 401.
3. **Malformed JSON-RPC** is answered as over stdio (mcp_server/stdio_guard.py): the same error
   objects, status 400; a notification or a response the SDK would drop is taken (202).

The session manager runs stateless with JSON answers: each POST is one call, nothing is kept
between calls (no session to leak or expire), and many agents can share one server.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import os
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tools import MemlensTools

PATH = "/mcp"
TOKEN_FILE = Path("secrets") / "mcp_token"
MAX_BODY = 4 * 1024 * 1024  # the SDK's own limit for a request body
DEFAULT_PORT = 8765


class HttpSetupError(ValueError):
    """An address, a token file or a flag that cannot serve: one line for the person."""


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Address:
        """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; the host defaults to 127.0.0.1."""
        text = text.strip()
        host, port = "127.0.0.1", text
        if text.startswith("["):
            inside, _, rest = text[1:].partition("]")
            host, port = inside, rest.removeprefix(":")
        elif text.count(":") == 1:
            host, port = text.split(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise HttpSetupError(f"--http {text!r}: expected PORT or HOST:PORT "
                                 f"(e.g. {DEFAULT_PORT} or 127.0.0.1:{DEFAULT_PORT})")
        return cls(host, int(port))

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def everywhere(self) -> bool:
        """Bound to every interface (0.0.0.0 or ::)."""
        return self.host in ("0.0.0.0", "::")

    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{PATH}"


# --- the token ------------------------------------------------------------------------------

def token_path(root: Path) -> Path:
    return root / TOKEN_FILE


def read_token(root: Path) -> str | None:
    """The token, or None when there is none yet. A token file others may read is refused."""
    path = token_path(root)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HttpSetupError(f"{TOKEN_FILE} cannot be read ({exc.__class__.__name__}); "
                             "memlens mcp --rotate-token writes a new one") from None
    if os.name == "posix" and mode & 0o077:
        raise HttpSetupError(f"{TOKEN_FILE} may be read by other users (mode "
                             f"{mode & 0o777:o}): chmod 600 it, or memlens mcp --rotate-token")
    if not text or any(ch.isspace() for ch in text):
        raise HttpSetupError(f"{TOKEN_FILE} does not hold one token on one line; "
                             "memlens mcp --rotate-token writes a new one")
    return text


def write_token(root: Path) -> str:
    """A new token in ``secrets/mcp_token`` (mode 0600, replaced atomically)."""
    path = token_path(root)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    token = secrets.token_urlsafe(32)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return token


# --- the guard ------------------------------------------------------------------------------

def allowed_hosts(address: Address, extra: list[str]) -> set[str]:
    """Host header values that name this server: loopback names, the bound host, the
    machine's names when bound to every interface, and each ``--allow-host``."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if not address.loopback:
        if address.everywhere:
            names |= {socket.gethostname(), socket.getfqdn()}
        else:
            names.add(f"[{address.host}]" if ":" in address.host else address.host)
    names |= {h.strip().lower() for h in extra if h.strip()}
    return {f"{name.lower()}:{address.port}" for name in names}


@dataclass
class Guard:
    """The ASGI app in front of the SDK's: path, Host/Origin, token, malformed messages."""

    inner: Any  # the session manager's ASGI app
    manager: Any  # the StreamableHTTPSessionManager, run for the app's lifespan
    root: Path  # whose secrets/mcp_token is the token
    hosts: set[str]
    _token: tuple[int, str] | None = None  # (the file's mtime_ns, the token read then)

    def token(self) -> str | None:
        """The token file's token, read again when the file changes (a rotation takes effect
        at the next request); None when it is missing or unusable: every request refused."""
        try:
            stamp = token_path(self.root).stat().st_mtime_ns
        except OSError:
            return None
        if self._token is None or self._token[0] != stamp:
            try:
                token = read_token(self.root)
            except HttpSetupError:
                return None
            self._token = (stamp, token) if token else None
        return self._token[1] if self._token else None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        if scope["method"] != "POST":
            await self.inner(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            await _answer(send, 413, {"error": f"request body over {MAX_BODY} bytes"})
            return
        from .stdio_guard import answers_for

        answers = answers_for(body.decode("utf-8", errors="replace"))
        if answers == []:
            await _answer(send, 202, None)
        elif answers:
            out = [a.model_dump(mode="json", by_alias=True, exclude_unset=True) for a in answers]
            await _answer(send, 400, out[0] if len(out) == 1 else out)
        else:
            await self.inner(scope, _replay(body, receive), send)

    def _refusal(self, scope, headers: dict[str, str]) -> tuple[int, Any, dict] | None:
        if scope["path"].rstrip("/") != PATH:
            return 404, {"error": f"not found: memlens serves MCP at {PATH}"}, {}
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return 421, {"error": f"Host {host!r} is not this server's; add it with "
                                  "--allow-host"}, {}
        origin = headers.get("origin")
        if origin is not None and origin.lower().split("://", 1)[-1] not in self.hosts:
            return 403, {"error": f"Origin {origin!r} is not allowed"}, {}
        given = headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        token = self.token()
        if token is None or scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode("utf-8", "replace"), token.encode("utf-8")):
            why = "a bearer token is required" if not given else "the token is not valid"
            return 401, {"error": f"{why}: Authorization: Bearer <{TOKEN_FILE}>"}, {
                "www-authenticate": 'Bearer realm="memlens"'}
        return None

    async def _lifespan(self, receive, send) -> None:
        stack = contextlib.AsyncExitStack()
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await stack.enter_async_context(self.manager.run())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await stack.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _body(receive) -> bytes | None:
    """The whole request body, or None past MAX_BODY."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes, receive):
    """A receive that gives ``body`` once, then what the client sends next (its disconnect)."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _answer(send, status: int, payload: Any, headers: dict | None = None) -> None:
    body = b"" if payload is None else json.dumps(payload).encode("utf-8")
    head = [(b"content-type", b"application/json")] if payload is not None else []
    head += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    head.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def http_app(tools: MemlensTools, hosts: set[str]) -> Guard:
    """The ASGI app serving ``tools`` at /mcp behind the guard."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from .server import build_server

    # The guard checks Host/Origin first (with its own answers); the SDK's check stays off so a
    # request is judged once.
    manager = StreamableHTTPSessionManager(
        build_server(tools), json_response=True, stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return Guard(manager.handle_request, manager, tools.config.root, hosts)


def serve_http(tools: MemlensTools, address: Address, hosts: set[str],
               sock: socket.socket | None = None, ready=None) -> None:
    """Serve until interrupted (or the server's ``should_exit``). ``sock``: an already bound
    socket (tests bind port 0); ``ready(server)``: called with the uvicorn server once built."""
    import uvicorn

    config = uvicorn.Config(http_app(tools, hosts), host=address.host, port=address.port,
                            log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    if ready is not None:
        ready(server)
    server.run(sockets=[sock] if sock is not None else None)


def say(text: str) -> None:
    print(f"memlens mcp: {text}", file=sys.stderr, flush=True)
