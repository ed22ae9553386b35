"""`initialize` is answered before the SDK loads (mcp_server/handshake.py): the early answer is
the SDK's own, byte for byte, for every protocol revision; the SDK's duplicate never reaches the
client; a first line that is not a plain `initialize` is left to the SDK as before."""

from __future__ import annotations

import json

import pytest

from tests.mcp.conftest import INVALID_PARAMS, PARSE_ERROR, TOOLS, RawServer, assert_error

mcp = pytest.importorskip("mcp")
import anyio  # noqa: E402
import mcp_types  # noqa: E402
from mcp.shared.message import SessionMessage  # noqa: E402
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS  # noqa: E402

from engine.config import load_config  # noqa: E402
from mcp_server.descriptions import INSTRUCTIONS  # noqa: E402
from mcp_server.handshake import initialize_answer  # noqa: E402
from mcp_server.server import build_server, server_info  # noqa: E402
from mcp_server.tools import MemlensTools  # noqa: E402


def initialize(version: str, request_id: int | str = 1, **extra) -> str:
    params = {"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}},
              "clientInfo": {"name": "test_mcp_handshake", "version": "1"}, **extra}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize",
                       "params": params})


async def _sdk_answer(server, line: str) -> str:
    """What the SDK itself writes for ``line``, serialized as its stdio transport does."""
    into, read_stream = anyio.create_memory_object_stream(4)
    write_stream, out = anyio.create_memory_object_stream(4)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.run, read_stream, write_stream,
                      server.create_initialization_options())
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        await into.send(SessionMessage(message))
        answer = await out.receive()
        tg.cancel_scope.cancel()
    return answer.message.model_dump_json(by_alias=True, exclude_unset=True)


@pytest.mark.parametrize("version", [*KNOWN_PROTOCOL_VERSIONS, "1999-01-01"])
@pytest.mark.parametrize("request_id", [7, "init-1"])
def test_the_early_answer_is_the_sdks_byte_for_byte(small_root, version, request_id):  # noqa: F811
    tools = MemlensTools(load_config(small_root))
    try:
        line = initialize(version, request_id, _meta={"progressToken": 3})
        sdk = anyio.run(_sdk_answer, build_server(tools), line)
    finally:
        tools.close()
    early = initialize_answer(line, server_info(), INSTRUCTIONS)
    assert early == (request_id, sdk)


@pytest.mark.parametrize("line", [
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',  # not initialize
    '{"jsonrpc":"2.0","method":"initialize","params":{}}',  # a notification
    '{"jsonrpc":"2.0","id":true,"method":"initialize","params":{}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1]}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
    initialize("2025-06-18", surprise=1),  # a field the check does not know: the SDK decides
    initialize(20250618),
    "not json", "", "[1]"])
def test_anything_but_a_plain_initialize_is_left_to_the_sdk(line):
    assert initialize_answer(line, server_info(), INSTRUCTIONS) is None


def test_one_answer_per_request_and_the_session_is_the_sdks(small_root):  # noqa: F811
    log = small_root.parent / "handshake.log"
    raw = RawServer(small_root, log)
    try:
        raw.send(initialize("2025-03-26", 1))
        answer = raw.receive()
        assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-03-26"
        raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        # the next line out answers tools/list: the SDK's own initialize answer was dropped
        listed = raw.request("tools/list")
        assert {t["name"] for t in listed["result"]["tools"]} == TOOLS
        called = raw.request("tools/call", {"name": "keyword_search",
                                            "arguments": {"query": "garden"}})
        assert not called["result"]["isError"], called
    finally:
        raw.close()
    assert "differs" not in log.read_text()  # the SDK wrote the same answer


def test_a_bad_first_line_is_answered_and_initialize_still_works(small_root):  # noqa: F811
    raw = RawServer(small_root, small_root.parent / "handshake-bad.log")
    try:
        raw.send("not json")
        assert_error(raw.receive(), None, PARSE_ERROR)
        raw.send('{"jsonrpc":"2.0","id":2,"method":"initialize","params":[1]}')
        assert_error(raw.receive(), 2, INVALID_PARAMS)
        raw.send(initialize("2025-11-25", 3))
        assert raw.receive()["result"]["serverInfo"]["name"] == "memlens"
        raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert {t["name"] for t in raw.request("tools/list")["result"]["tools"]} == TOOLS
    finally:
        raw.close()


def test_no_input_at_all_ends_the_server_cleanly(small_root):  # noqa: F811
    raw = RawServer(small_root, small_root.parent / "handshake-eof.log")
    raw.proc.stdin.close()
    assert raw.proc.wait(timeout=30) == 0
    raw.close()
