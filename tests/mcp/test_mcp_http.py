"""The MCP server over HTTP (mcp_server/http.py): a real server on a loopback port, driven by
a plain HTTP client (httpx) and by the MCP SDK's own streamable-HTTP client."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from tests.conftest import make_root, run_cli

mcp = pytest.importorskip("mcp")
httpx = pytest.importorskip("httpx")
from anyio.from_thread import start_blocking_portal  # noqa: E402

from mcp_server import http  # noqa: E402
from mcp_server.server import build_server  # noqa: E402
from mcp_server.stdio_guard import answers_for  # noqa: E402
from mcp_server.tools import MemlensTools  # noqa: E402
from tests.mcp.conftest import split_page, start  # noqa: E402

JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
SEARCH = {"query": "garden dahlias", "limit": 5}


class Served:
    """One HTTP server on a free loopback port, in a thread."""

    def __init__(self, root: Path):
        self.root = root
        self.tools = MemlensTools(load_config(root))
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.address = http.Address("127.0.0.1", self.port)
        self.url = self.address.url()
        self.server = None
        self.sock.listen(64)
        self.thread = threading.Thread(target=http.serve_http, daemon=True, kwargs=dict(
            protocol=build_server(self.tools), tools=self.tools, address=self.address, hosts=http.allowed_hosts(self.address, []),
            sock=self.sock, ready=self._ready))
        self.thread.start()
        deadline = time.monotonic() + 20
        while not (self.server and self.server.started):
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def _ready(self, server) -> None:
        self.server = server

    def post(self, body, token: str | None = "", **headers) -> httpx.Response:
        token = http.read_token(self.root) if token == "" else token
        auth = {"Authorization": f"Bearer {token}"} if token is not None else {}
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        return httpx.post(self.url, content=data, headers={**JSON, **auth, **headers},
                          timeout=30)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.tools.close()


def call(name: str, args: dict, request_id: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": args}}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("http") / "root")
    reindex(config=load_config(root))
    http.write_token(root)
    return root


@pytest.fixture(scope="module")
def served(root):
    s = Served(root)
    yield s
    s.close()


def test_no_token_or_a_wrong_one_is_refused(served):
    for token in (None, "wrong", ""):
        response = served.post(call("index_status", {}), token=token if token != "" else "x y")
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"] == 'Bearer realm="memlens"'
        assert "secrets/mcp_token" in response.json()["error"]
    other = httpx.post(served.url, content="{}", timeout=10,
                       headers={**JSON, "Authorization": "Basic dXNlcjpwYXNz"})
    assert other.status_code == 401


def test_a_foreign_origin_or_host_is_refused(served):
    assert served.post(call("index_status", {}), Origin="http://evil.example").status_code == 403
    assert served.post(call("index_status", {}),
                       Host=f"evil.example:{served.port}").status_code == 421
    fine = served.post(call("index_status", {}), Origin=f"http://localhost:{served.port}")
    assert fine.status_code == 200, fine.text


def test_a_call_answers_the_same_page_as_stdio(served, root, tmp_path):
    response = served.post(call("hybrid_search", SEARCH))
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert result["isError"] is False
    over_http = result["content"][0]["text"]
    stdio = start(root, tmp_path, "stdio")
    try:
        over_stdio = stdio.ok("hybrid_search", SEARCH)
    finally:
        stdio.close()
    header_h, rows_h, tail_h = split_page(over_http)
    header_s, rows_s, tail_s = split_page(over_stdio)
    timing = ("timings", "took")  # the only lines that may differ between two runs
    assert [h for h in header_h if not h.startswith(timing)] == \
        [h for h in header_s if not h.startswith(timing)]
    assert rows_h and len(rows_h) == len(rows_s)
    for (obj_h, fields_h), (obj_s, fields_s) in zip(rows_h, rows_s, strict=True):
        assert obj_h == obj_s
        assert fields_h.split(" | ") == fields_s.split(" | ")
    assert tail_h == tail_s


def test_the_sdk_client_lists_and_calls_the_tools(served):
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    token = http.read_token(served.root)

    async def session():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as client, \
                streamable_http_client(served.url, http_client=client) as (read, write), \
                ClientSession(read, write) as s:
            await s.initialize()
            tools = await s.list_tools()
            result = await s.call_tool("keyword_search", {"query": "dahlias"})
            return {t.name for t in tools.tools}, result

    with start_blocking_portal() as portal:
        names, result = portal.call(session)
    assert {"hybrid_search", "read_note", "index_status"} <= names
    assert result.is_error is False and "garden" in result.content[0].text


@pytest.mark.parametrize("body", [
    "not json", "[1, 2", '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": [1]}',
    '{"jsonrpc": "2.0", "id": true, "method": "ping"}', "7",
])
def test_malformed_requests_get_the_stdio_answers(served, body):
    response = served.post(body)
    assert response.status_code == 400, response.text
    expected = [a.model_dump(mode="json", by_alias=True, exclude_unset=True)
                for a in answers_for(body)]
    got = response.json()
    assert (got if isinstance(got, list) else [got]) == expected
    assert all("id" in e and e["jsonrpc"] == "2.0" for e in expected)


def test_a_notification_is_taken_without_an_answer(served):
    response = served.post('{"jsonrpc": "2.0", "method": "notifications/initialized", '
                           '"params": [1]}')
    assert response.status_code == 202 and response.content == b""


def test_a_client_gone_mid_call_leaves_the_server_serving(served):
    token = http.read_token(served.root)
    body = json.dumps(call("hybrid_search", {"query": "garden", "limit": 50})).encode()
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", served.port)) as raw:
            raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                        b"Content-Type: application/json\r\nAccept: application/json\r\n"
                        b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n"
                        % (served.port, token.encode(), len(body)) + body[: len(body) // 2])
        # closed with half the body sent; then one with the whole body, closed unanswered
        with socket.create_connection(("127.0.0.1", served.port)) as raw:
            raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                        b"Content-Type: application/json\r\nAccept: application/json\r\n"
                        b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n"
                        % (served.port, token.encode(), len(body)) + body)
    response = served.post(call("index_status", {}))
    assert response.status_code == 200 and response.json()["result"]["isError"] is False


def test_a_rotated_token_takes_effect_at_the_next_request(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    http.write_token(root)
    s = Served(root)
    try:
        old = http.read_token(root)
        assert s.post(call("index_status", {})).status_code == 200
        code, out, err = run_cli(capsys, "mcp", "--root", str(root), "--rotate-token")
        assert code == 0
        new = http.read_token(root)
        # stderr is not a terminal here: the token is in the file, never in a log
        assert new != old and new not in err and out == ""
        assert "a new token is in" in err and "old token is refused" in err
        assert os.stat(http.token_path(root)).st_mode & 0o777 == 0o600
        assert s.post(call("index_status", {}), token=old).status_code == 401
        assert s.post(call("index_status", {}), token=new).status_code == 200
    finally:
        s.close()


def test_the_token_is_never_served_as_a_note(served):
    response = served.post(call("read_note", {"path": "secrets/mcp_token"}))
    result = response.json()["result"]
    assert result["isError"] is True
    assert http.read_token(served.root) not in json.dumps(response.json())


@pytest.mark.parametrize("argv, message", [
    (["--http", "0.0.0.0:8765"], "0.0.0.0 is not a loopback address"),
    (["--http", "nonsense"], "expected PORT or HOST:PORT"),
    (["--http", "127.0.0.1:99999"], "the port must be 1 to 65535"),
    (["--allow-remote"], "go with --http"),
    (["--http", "8765", "--allow-host", ""], "--allow-host ''"),
    (["--http", "8765", "--allow-host", "http://box"], "expected a name or an address"),
    (["--http", "8765", "--rotate-token"], "--rotate-token writes a new token and exits"),
])
def test_flags_that_cannot_serve_are_one_line(tmp_path, capsys, argv, message):
    root = make_root(tmp_path / "root")
    code, out, err = run_cli(capsys, "mcp", "--root", str(root), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not http.token_path(root).exists()


def test_a_token_file_others_may_read_is_refused(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    http.write_token(root)
    http.token_path(root).chmod(0o644)
    code, _, err = run_cli(capsys, "mcp", "--root", str(root), "--http", "127.0.0.1:1")
    assert code == 1 and "chmod 600" in err and len(err.strip().splitlines()) == 1


def test_a_port_in_use_is_one_line_and_nothing_says_serving(served, capsys):
    code, _, err = run_cli(capsys, "mcp", "--root", str(served.root), "--http",
                           f"127.0.0.1:{served.port}")
    assert code == 1 and "the port is in use" in err
    assert len(err.strip().splitlines()) == 1 and "serving" not in err


@pytest.mark.parametrize("argv", [["--http", "127.0.0.1:1"], ["--rotate-token"]])
def test_a_folder_without_an_index_gets_no_secrets(tmp_path, capsys, argv):
    folder = tmp_path / "vault"
    (folder / "notes").mkdir(parents=True)
    code, _, err = run_cli(capsys, "mcp", "--root", str(folder), *argv)
    assert code == 1 and "has no index yet" in err
    assert not (folder / "secrets").exists()


@pytest.mark.parametrize("setup, message", [
    (lambda root: http.token_path(root).write_text("short\n"), "under 16"),
    (lambda root: (http.token_path(root).unlink(), http.token_path(root).parent.rmdir(),
                   (root / "secrets").write_text("x")), "is a file, not the folder"),
])
def test_a_token_that_cannot_serve_is_one_line(tmp_path, capsys, setup, message):
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    http.write_token(root)
    setup(root)
    code, _, err = run_cli(capsys, "mcp", "--root", str(root), "--http", "127.0.0.1:1")
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_only_posts_of_json_are_calls(served):
    token = http.read_token(served.root)
    auth = {"Authorization": f"Bearer {token}"}
    got = httpx.get(served.url, headers={**auth, "Accept": "text/event-stream"}, timeout=10)
    assert got.status_code == 405 and got.headers["allow"] == "POST"
    assert served.post(call("index_status", {}), **{"Content-Type": "text/plain"}
                       ).status_code == 415
    empty = served.post("")
    assert empty.status_code == 400 and empty.json()["error"]["code"] == -32700
    twice = httpx.post(served.url, content=json.dumps(call("index_status", {})), timeout=10,
                       headers=[*JSON.items(), ("Authorization", "Bearer wrong"),
                                ("Authorization", f"Bearer {token}")])
    assert twice.status_code == 400 and "one Authorization header" in twice.text


def test_a_body_announced_too_big_is_refused_before_it_is_read(served):
    token = http.read_token(served.root)
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
        raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                    b"Content-Type: application/json\r\nAuthorization: Bearer %s\r\n"
                    b"Content-Length: 999999999\r\n\r\n{" % (served.port, token.encode()))
        assert raw.recv(200).startswith(b"HTTP/1.1 413")


def test_a_tunnel_from_another_local_port_and_named_hosts_are_let_in(served):
    assert served.post(call("index_status", {}), Host="127.0.0.1:9000").status_code == 200
    assert served.post(call("index_status", {}), Host="localhost:9000").status_code == 200
    hosts = http.allowed_hosts(http.Address("127.0.0.1", 8765), ["box.lan", "Box:9000"])
    assert hosts.allows("box.lan:8765") and hosts.allows("box:9000")
    assert not hosts.allows("box.lan:9000") and not hosts.allows("evil.example:8765")
    assert hosts.allows_origin("http://localhost:8765")
    assert not hosts.allows_origin("http://localhost:3000")


def test_a_token_file_broken_while_serving_refuses_every_call_and_says_why(tmp_path, capfd):
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    token = http.write_token(root)
    s = Served(root)
    try:
        assert s.post(call("index_status", {}), token=token).status_code == 200
        http.token_path(root).chmod(0o644)
        refused = s.post(call("index_status", {}), token=token)
        assert refused.status_code == 503 and "log says why" in refused.json()["error"]
        http.token_path(root).unlink()
        assert s.post(call("index_status", {}), token=token).status_code == 503
        fresh = http.write_token(root)
        assert s.post(call("index_status", {}), token=fresh).status_code == 200
    finally:
        s.close()
    err = capfd.readouterr().err
    assert "every request is refused" in err and "is missing" in err and "chmod 600" in err
    assert "usable again" in err


def test_addresses_parse_as_people_write_them():
    assert http.Address.parse("8765") == http.Address("127.0.0.1", 8765)
    assert http.Address.parse("0.0.0.0:80") == http.Address("0.0.0.0", 80)
    assert http.Address.parse("[::1]:9000") == http.Address("::1", 9000)
    assert http.Address.parse("[::1]:9000").loopback
    assert http.Address.parse("localhost:1").loopback
    assert not http.Address.parse("192.168.1.4:8765").loopback
    assert http.Address.parse("[::1]:9000").url() == "http://[::1]:9000/mcp"
