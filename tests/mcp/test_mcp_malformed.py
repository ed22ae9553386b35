"""Malformed MCP requests get a JSON-RPC error with their id, and the server keeps serving.

The SDK's client refuses to send such messages, so these tests speak raw JSON-RPC lines to
``python -m mcp_server`` (a real subprocess) and read its stdout line by line. Every read has a
timeout: a request the server never answers fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json

import pytest

from tests.mcp.conftest import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    RawServer,
    assert_error,
    assert_still_serving,
)

mcp = pytest.importorskip("mcp")
from mcp_types.version import LATEST_HANDSHAKE_VERSION  # noqa: E402 - what ClientSession sends

from mcp_server.stdio_guard import answers_for  # noqa: E402


@pytest.fixture(scope="module")
def server(small_root):
    raw = RawServer(small_root, small_root.parent / "malformed.log")
    try:
        answer = raw.request("initialize", {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
            "clientInfo": {"name": "test_mcp_malformed", "version": "1"}})
        assert "result" in answer, answer
        raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        yield raw
    finally:
        raw.close()


@pytest.mark.parametrize(("request_id", "params", "kind"), [
    (7, "[1, 2]", "an array"), (9, '"garden"', "a string"), ("ten", "10", "a number"),
    (11, "true", "a boolean")])
def test_params_that_are_not_an_object_get_invalid_params(server, request_id, params, kind):
    server.send(f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"method":"tools/call",'
                f'"params":{params}}}')
    message = assert_error(server.receive(), request_id, INVALID_PARAMS)
    assert f"params must be an object, not {kind}" in message
    assert_still_serving(server)


def test_a_lone_surrogate_gets_invalid_params_and_the_next_call_works(server):
    # the wire holds the six characters \ud800: valid JSON, but not valid Unicode
    server.send('{"jsonrpc":"2.0","id":8,"method":"tools/call",'
                '"params":{"name":"read_note","arguments":{"path":"\\ud800"}}}')
    message = assert_error(server.receive(), 8, INVALID_PARAMS)
    assert "lone UTF-16 surrogate" in message
    answer = server.request("tools/call", {"name": "read_note",
                                           "arguments": {"path": "notes/home/garden.md"}})
    assert not answer["result"]["isError"]
    assert answer["result"]["content"][0]["text"].startswith('path: "notes/home/garden.md"')


def test_a_surrogate_pair_is_valid_text_and_passes(server):
    answer = server.request("tools/call", {"name": "read_note",
                                           "arguments": {"path": "notes/\U0001F600.md"}})
    assert answer["result"]["isError"]  # answered by the tool (no such note), not refused


def test_a_lone_surrogate_id_is_answered_with_a_null_id(server):
    server.send('{"jsonrpc":"2.0","id":"\\udc00","method":"tools/list"}')
    assert_error(server.receive(), None, INVALID_REQUEST)
    assert_still_serving(server)


@pytest.mark.parametrize("line", ["not json", '{"jsonrpc":"2.0","id":12,"method":',
                                  '{"jsonrpc":"2.0","id":12,"method":"tools/list",}'])
def test_a_line_that_is_not_json_gets_a_parse_error(server, line):
    server.send(line)
    assert_error(server.receive(), None, PARSE_ERROR)
    assert_still_serving(server)


def test_a_batch_is_refused_request_by_request(server):
    server.send(json.dumps([{"jsonrpc": "2.0", "id": 21, "method": "tools/list"},
                            {"jsonrpc": "2.0", "method": "notifications/progress"},
                            {"jsonrpc": "2.0", "id": "22", "method": "ping"}]))
    assert "batches are not supported" in assert_error(server.receive(), 21, INVALID_REQUEST)
    assert_error(server.receive(), "22", INVALID_REQUEST)
    server.send("[]")
    assert_error(server.receive(), None, INVALID_REQUEST)
    assert_still_serving(server)


@pytest.mark.parametrize(("line", "request_id"), [
    ('{"jsonrpc":"2.0","id":13}', 13), ('"tools/list"', None), ("42", None),
    ('{"jsonrpc":"1.0","id":14,"method":"tools/list"}', 14)])
def test_a_message_that_is_not_a_request_gets_invalid_request(server, line, request_id):
    server.send(line)
    assert_error(server.receive(), request_id, INVALID_REQUEST)
    assert_still_serving(server)


# JSON-RPC ids are strings or integers. The SDK's models ignore members they cannot use, so it
# read these as notifications (id null, id 2.5, ...) and never answered: the client hung.
BAD_IDS = [("true", "true"), ("false", "false"), ("1.0", "1.0"), ("2.5", "2.5"),
           ("null", "null"), ('{"n":1}', "an object"), ("[1]", "an array"),
           ("1e400", "Infinity"), ("NaN", "NaN")]  # json.loads reads 1e400 as inf


@pytest.mark.parametrize(("request_id", "shown"), BAD_IDS)
def test_a_request_with_an_id_that_is_not_a_string_or_integer_gets_invalid_request(
        server, request_id, shown):
    server.send(f'{{"jsonrpc":"2.0","id":{request_id},"method":"ping"}}')
    message = assert_error(server.receive(), None, INVALID_REQUEST)
    assert f"id must be a string or an integer (got {shown})" in message
    assert_still_serving(server)  # also proves it was the only answer


@pytest.mark.parametrize("line", [
    '{"jsonrpc":"2.0","id":true,"method":"tools/call","params":[1]}',
    '{"jsonrpc":"2.0","id":2.5,"method":"tools/list","params":{}}',
    '{"jsonrpc":"2.0","id":null}', '{"jsonrpc":"2.0","id":[1],"params":{}}'])
def test_a_bad_id_is_invalid_request_whatever_else_the_message_holds(server, line):
    server.send(line)
    assert "id must be a string or an integer" in assert_error(server.receive(), None,
                                                               INVALID_REQUEST)
    assert_still_serving(server)


@pytest.mark.parametrize("request_id", ["s-1", "", 0, -3, 2**53])
def test_string_and_integer_ids_are_still_served(server, request_id):
    server.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
    answer = server.receive()
    assert answer["id"] == request_id and answer["result"] == {}, answer


@pytest.mark.parametrize("line", [
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":"s","method":"ping"}', '{"jsonrpc":"2.0","id":3,"result":{}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}'])
def test_a_line_the_sdk_reads_is_forwarded(line):
    assert answers_for(line) is None  # unit level: a swallowed notification shows no answer


def test_notifications_and_responses_are_never_answered(server):
    for line in ('{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}',
                 '{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"\\ud800"}}',
                 '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}',
                 '{"jsonrpc":"2.0","id":15,"result":[1]}',
                 '{"jsonrpc":"2.0","id":true,"result":{}}',
                 '{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}',
                 '{"jsonrpc":"2.0","id":2.5,"error":{"code":-1,"message":"no"}}', ""):
        server.send(line)
    assert_still_serving(server)  # the next line out is the tools/list answer, nothing before
