"""The MCP server over HTTP: the same tools at ``/mcp`` with the SDK's streamable-HTTP
transport, for agents on other machines (``memlens mcp --http [HOST:]PORT``).

Every request passes these checks before the SDK sees it, in this order:

1. **Host and Origin** (DNS rebinding: a web page must not reach a server on this machine by
   a name it controls): the Host header must name this server (a loopback name at any port,
   so a tunnel may forward another local port; the bound host; the machine's names and
   addresses when bound to every interface; each ``--allow-host``), and an Origin, when sent,
   exactly one of those at this port. Refused: 421 (Host), 403 (Origin).
2. **A bearer token**: one ``Authorization: Bearer <token>`` header, compared in constant time
   with ``<root>/secrets/mcp_token`` (one line, mode 0600, at least 16 characters; made on
   first use; ``memlens mcp --rotate-token`` replaces it). The file is read again whenever it
   changes, so a rotation (or a chmod) takes effect at the next request; a file that cannot
   serve refuses every call (503; the why goes to the server's log, not to callers). ``secrets/`` is never indexed
   nor served by ``read_note`` (engine/index/protected.py). Refused: 401.
3. **One JSON-RPC call a POST**: other methods 405 (stateless: no stream, no session), another
   Content-Type 415, a body over 4 MiB 413 (from its Content-Length when it says so), and
   malformed JSON-RPC answered as over stdio (mcp_server/stdio_guard.py), with the same
   error objects and status 400; a notification or a response the SDK would drop is taken (202).

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
        if not host or not port.isdigit():
            raise HttpSetupError(f"--http {text!r}: expected PORT or HOST:PORT "
                                 f"(e.g. {DEFAULT_PORT} or 127.0.0.1:{DEFAULT_PORT})")
        if not 0 < int(port) < 65536:
            raise HttpSetupError(f"--http {text!r}: the port must be 1 to 65535")
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


MIN_TOKEN = 16  # characters: a hand-written "a" is not a secret


def read_token(root: Path) -> str | None:
    """The token, or None when there is none yet. A token file others may read is refused."""
    path = token_path(root)
    _secrets_folder(root)
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
    if len(text) < MIN_TOKEN:
        raise HttpSetupError(f"{TOKEN_FILE} holds a token of {len(text)} characters, under "
                             f"{MIN_TOKEN}; memlens mcp --rotate-token writes a strong one")
    return text


def _secrets_folder(root: Path) -> None:
    folder = root / TOKEN_FILE.parent
    if folder.exists() and not folder.is_dir():
        raise HttpSetupError(f"{folder} is a file, not the folder the token lives in: move it "
                             "away, then start again")


def write_token(root: Path) -> str:
    """A new token in ``secrets/mcp_token`` (mode 0600, replaced atomically)."""
    path = token_path(root)
    _secrets_folder(root)
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

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


@dataclass(frozen=True)
class Hosts:
    """The Host header values that name this server: ``exact`` ones (``name:port``), and
    loopback names at any port (a tunnel may forward another local port to this one; a DNS
    rebinding page reaches a server by its own domain's name, never by a loopback name)."""

    exact: frozenset[str]

    def allows(self, host: str) -> bool:
        host = host.lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return host in self.exact or name in LOOPBACK_NAMES

    def allows_origin(self, origin: str) -> bool:
        """An Origin (``scheme://host[:port]``) of a page this server answers: exact names
        only (a page of another local server is not this one's)."""
        return origin.lower().split("://", 1)[-1].rstrip("/") in self.exact


def check_host_name(value: str) -> str:
    """An ``--allow-host`` value as a Host header spells it (NAME or NAME:PORT), else
    HttpSetupError."""
    text = value.strip().lower()
    if not text or any(ch.isspace() or ch in "/@?#" for ch in text):
        raise HttpSetupError(f"--allow-host {value!r}: expected a name or an address as "
                             "clients write it, with an optional :PORT (e.g. homeserver.lan)")
    return text


def allowed_hosts(address: Address, extra: list[str]) -> Hosts:
    """Host values that name this server: loopback names, the bound host, the machine's
    names and addresses when bound to every interface, and each ``--allow-host``."""
    names: set[str] = set(LOOPBACK_NAMES)
    if not address.loopback:
        if address.everywhere:
            names |= _machine_names()
        else:
            names.add(f"[{address.host}]" if ":" in address.host else address.host)
    exact = set()
    for value in [*names, *extra]:
        name = check_host_name(value)
        has_port = (name.rsplit(":", 1)[-1].isdigit() and not name.endswith("]")
                    and (name.count(":") == 1 or name.startswith("[")))
        exact.add(name if has_port else f"{name}:{address.port}")
    return Hosts(frozenset(exact))


def _machine_names() -> set[str]:
    """This machine's names and the addresses of its interfaces, as far as the standard
    library can tell without a network call."""
    names = {socket.gethostname(), socket.getfqdn()}
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]))
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # UDP: picks the outgoing interface, sends nothing
            names.add(s.getsockname()[0])
    return {f"[{n}]" if ":" in n else n for n in names if n}


@dataclass
class Guard:
    """The ASGI app in front of the SDK's: path, Host/Origin, token, malformed messages."""

    inner: Any  # the session manager's ASGI app
    manager: Any  # the StreamableHTTPSessionManager, run for the app's lifespan
    root: Path  # whose secrets/mcp_token is the token
    hosts: Hosts
    # (the file's stat stamp, the token read then or why it is unusable)
    _token: tuple[tuple, str | HttpSetupError] | None = None

    def token(self) -> str | HttpSetupError:
        """The token file's token, read again when the file changes (a rotation takes effect
        at the next request, a chmod too), or why it cannot serve (said once on stderr)."""
        try:
            st = token_path(self.root).stat()
            stamp: tuple = (st.st_mtime_ns, st.st_mode, st.st_ino, st.st_size)
        except OSError:
            stamp = ()
        if self._token is None or self._token[0] != stamp:
            try:
                token: str | HttpSetupError = read_token(self.root) or HttpSetupError(
                    f"{TOKEN_FILE} is missing; memlens mcp --rotate-token writes one")
            except HttpSetupError as exc:
                token = exc
            if isinstance(token, HttpSetupError):
                say(f"every request is refused: {token}")
            elif self._token is not None and isinstance(self._token[1], HttpSetupError):
                say(f"{TOKEN_FILE} is usable again: calls are answered")
            self._token = (stamp, token)
        return self._token[1]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        pairs = [(k.decode("latin-1").lower(), v.decode("latin-1"))
                 for k, v in scope.get("headers", [])]
        headers = dict(pairs)
        refusal = self._refusal(scope, headers, [v for k, v in pairs if k == "authorization"])
        if refusal is not None:
            await _answer(send, *refusal)
            return
        body = await _body(receive)
        if body is None:
            await _answer(send, 413, {"error": f"request body over {MAX_BODY} bytes"})
            return
        from .stdio_guard import answers_for, parse_error

        text = body.decode("utf-8", errors="replace")
        answers = answers_for(text) if text.strip() else [parse_error("the body is empty")]
        if answers == []:
            await _answer(send, 202, None)
        elif answers:
            out = [a.model_dump(mode="json", by_alias=True, exclude_unset=True) for a in answers]
            await _answer(send, 400, out[0] if len(out) == 1 else out)
        else:
            await self.inner(scope, _replay(body, receive), send)

    def _refusal(self, scope, headers: dict[str, str],
                 authorizations: list[str]) -> tuple[int, Any, dict] | None:
        """Why the request is refused before the SDK sees it: (status, answer, headers)."""
        if scope["path"].rstrip("/") != PATH:
            return 404, {"error": f"not found: memlens serves MCP at {PATH}"}, {}
        host = headers.get("host", "")
        if not self.hosts.allows(host):
            return 421, {"error": f"Host {host!r} is not this server's; add it with "
                                  "--allow-host"}, {}
        origin = headers.get("origin")
        if origin is not None and not self.hosts.allows_origin(origin):
            return 403, {"error": f"Origin {origin!r} is not allowed"}, {}
        token = self.token()
        if isinstance(token, HttpSetupError):  # the why is the server's log's, not a caller's
            return 503, {"error": "the server cannot check tokens now; its log says why"}, {}
        if len(authorizations) > 1:
            return 400, {"error": "send one Authorization header"}, {}
        given = authorizations[0] if authorizations else ""
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode("utf-8", "replace"), token.encode("utf-8")):
            why = ("a bearer token is required" if not given else
                   "only a bearer token is accepted" if scheme.lower() != "bearer" else
                   "the token is not valid")
            return 401, {"error": f"{why}: Authorization: Bearer <{TOKEN_FILE}>"}, {
                "www-authenticate": 'Bearer realm="memlens"'}
        if scope["method"] != "POST":  # stateless: no stream to open, no session to end
            return 405, {"error": "memlens answers POST only: one JSON-RPC call a request"}, {
                "allow": "POST"}
        if not headers.get("content-type", "").lower().startswith("application/json"):
            return 415, {"error": "Content-Type must be application/json"}, {}
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            return 413, {"error": f"request body over {MAX_BODY} bytes"}, {}
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


def http_app(protocol, tools: MemlensTools, hosts: Hosts) -> Guard:
    """The ASGI app serving ``protocol`` (the SDK server over ``tools``, built by
    mcp_server/server.py, which calls into this module) at /mcp behind the guard."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    # The guard checks Host/Origin first (with its own answers); the SDK's check stays off so a
    # request is judged once.
    manager = StreamableHTTPSessionManager(
        protocol, json_response=True, stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return Guard(manager.handle_request, manager, tools.config.root, hosts)


def bind(address: Address) -> socket.socket:
    """A listening socket at ``address`` (OSError when it cannot be had: the port is taken,
    the address is not this machine's). ``::`` takes IPv4 too."""
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and address.host == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((address.host, address.port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


def serve_http(protocol, tools: MemlensTools, address: Address, hosts: Hosts,
               sock: socket.socket, ready=None) -> None:
    """Serve ``protocol`` on ``sock`` (bound by :func:`bind`, or a test's port 0) until
    interrupted or the server's ``should_exit``; ``ready(server)`` is called with the uvicorn
    server once built."""
    import uvicorn

    config = uvicorn.Config(http_app(protocol, tools, hosts), log_level="warning", lifespan="on",
                            access_log=False)
    server = uvicorn.Server(config)
    if ready is not None:
        ready(server)
    server.run(sockets=[sock])


def say(text: str) -> None:
    print(f"memlens mcp: {text}", file=sys.stderr, flush=True)
