"""A real HTTP server on 127.0.0.1 that plays a scripted sequence of responses.

Providers are tested against this (stdlib ``ThreadingHTTPServer`` in a thread, ephemeral port),
never by patching their HTTP client. Each test scripts what the server answers and reads back
what it was sent::

    def test_retry(http_server):
        server = http_server(Reply(500), Reply(200, {"ok": True}))
        ...  # point the client at server.url
        assert len(server.requests) == 2

A script item is a :class:`Reply` or a callable ``(Request) -> Reply`` (to answer from the
request, e.g. one embedding per input). When the script is used up the server plays ``default``
(``Reply(500)`` unless given), so "500 forever" is ``http_server(default=Reply(500))``. Requests
beyond ``max_requests`` get a 503 without touching the script, so a runaway client loop stays
bounded, and every delayed reply is cut short when the server stops.

Test modules get the fixture with a three-line local fixture (importing it would trip ruff's
F811 on every test that names it)::

    @pytest.fixture
    def http_server():
        with ServerFactory() as start:
            yield start
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    body: bytes | str | None = None  # raw body; wins over ``json`` (for malformed answers)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (a slow server)

    def encoded(self) -> tuple[bytes, str]:
        if self.body is not None:
            raw = self.body.encode() if isinstance(self.body, str) else self.body
            return raw, "text/plain"
        payload = {"error": {"message": f"scripted {self.status}"}} \
            if self.json is None and self.status != 200 else self.json
        return json.dumps(payload).encode(), "application/json"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Responder = Reply | Callable[[Request], Reply]


class ScriptedServer:
    def __init__(self, script: Sequence[Responder] = (), default: Responder | None = None,
                 max_requests: int = 200):
        self.script: list[Responder] = list(script)
        self.default: Responder = default if default is not None else Reply(500)
        self.max_requests = max_requests
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if len(self.requests) > self.max_requests:
                return Reply(503, {"error": {"message": "test server request limit reached"}})
            responder = self.script.pop(0) if self.script else self.default
        return responder(request) if callable(responder) else responder

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Request(self.command, self.path,
                                  {k.lower(): v for k, v in self.headers.items()}, body)
                reply = server._next(request)
                if reply.delay and server._stopping.wait(reply.delay):
                    return
                raw, content_type = reply.encoded()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

            do_POST = do_GET = do_PUT = _serve

            def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib name
                pass

        return Handler


class ServerFactory:
    """Starts :class:`ScriptedServer` s on demand and stops them all on exit."""

    def __init__(self) -> None:
        self.servers: list[ScriptedServer] = []

    def __call__(self, *script: Responder, default: Responder | None = None,
                 max_requests: int = 200) -> ScriptedServer:
        server = ScriptedServer(script, default, max_requests).start()
        self.servers.append(server)
        return server

    def __enter__(self) -> ServerFactory:
        return self

    def __exit__(self, *exc) -> None:
        for server in self.servers:
            server.stop()


@pytest.fixture
def http_server() -> Iterator[ServerFactory]:
    """For a conftest.py to re-export; test modules define the same three lines locally."""
    with ServerFactory() as start:
        yield start
