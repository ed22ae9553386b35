"""Answer malformed JSON-RPC lines on stdio instead of leaving the client waiting.

Why this exists (mcp 2.3): the SDK's stdio transport (``mcp/server/stdio.py``) validates each
line with pydantic; a line that fails becomes an exception on the read stream, which the
dispatcher only logs at debug level (``mcp/shared/jsonrpc_dispatcher.py``, ``_dispatch``). By
then the request id is gone, so nobody answers and the client waits forever. That happens to
a request whose ``params`` is an array, string or number, to a string holding a lone
surrogate escape such as ``"\\ud800"`` (``json.loads`` accepts it, pydantic's parser does not,
and it could never be encoded as UTF-8 anyway), to a line that is not JSON, and to a batch
(MCP has no batches). A request whose id is not a string or an integer (true, 2.5, null, an
object, NaN...) is lost too, the other way: the SDK's models ignore members they cannot use, so
it validates as a notification, and notifications are never answered.

So the guard sits one step earlier, on the text lines the transport reads: a line the SDK reads
as what it is passes through untouched, and a line it would drop is answered here, with the id it
carries, through the transport's own write stream (so the answer is framed and serialized like
every other message). Notifications and responses are never answered, per JSON-RPC.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

SURROGATE = ("holds a lone UTF-16 surrogate escape (like \\ud800), which is not valid Unicode; "
             "send text as valid UTF-8")
NOT_OBJECT = "Invalid request: a message must be a JSON object"
BATCH = "Invalid request: batches are not supported; send one JSON-RPC message per line"
SHAPE = ('Invalid request: expected {"jsonrpc": "2.0", "id": integer or string, '
         '"method": string, "params": object}')


def answers_for(line: str) -> list[types.JSONRPCError] | None:
    """None when the SDK can read ``line`` (forward it); otherwise the error answers it is owed,
    which is an empty list for a notification or a response (JSON-RPC never answers those)."""
    if not line.strip():
        return []  # a blank line carries no message; the SDK would drop it too
    try:  # exactly the SDK transport's own check, so the guard acts only where it would drop
        read = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:  # noqa: BLE001 - mirrors the transport, which treats any failure as a drop
        read = None
    if read is not None and not isinstance(read, types.JSONRPCNotification):
        return None  # a request or a response, which the SDK handles
    try:  # a "notification" is looked at too: it may be a request with an id the SDK ignored
        message = json.loads(line)
    except (ValueError, RecursionError):  # also oversized integer literals and deep nesting
        if read is not None:
            return None  # the SDK reads it, so it is not ours to refuse
        return [_error(None, types.PARSE_ERROR, "Parse error: the line is not valid JSON")]
    if isinstance(message, list):
        ids = [_request_id(m) for m in message if isinstance(m, dict) and "id" in m]
        return [_error(i, types.INVALID_REQUEST, BATCH) for i in dict.fromkeys(ids or [None])]
    if not isinstance(message, dict):
        return [_error(None, types.INVALID_REQUEST, NOT_OBJECT)]
    if "id" not in message and "method" in message:
        return None if read is not None else []  # a notification: the SDK's, or one it drops
    if "method" not in message and ("result" in message or "error" in message):
        return []  # a response to one of our requests
    if "id" in message and not _valid_id(message["id"]):
        return [_error(None, types.INVALID_REQUEST, "Invalid request: id must be a string or an "
                       f"integer (got {_shown(message['id'])})")]
    if read is not None:
        return None  # only if the two parsers disagree about the id: the SDK reads it, let it
    request_id = _request_id(message)
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return [_error(request_id, types.INVALID_PARAMS,
                       f"Invalid params: params must be an object, not {_kind(params)}")]
    if not _utf8(params):
        return [_error(request_id, types.INVALID_PARAMS, f"Invalid params: a string {SURROGATE}")]
    if not _utf8(message):
        return [_error(request_id, types.INVALID_REQUEST, f"Invalid request: a string {SURROGATE}")]
    return [_error(request_id, types.INVALID_REQUEST, SHAPE)]


def _request_id(message: dict) -> int | str | None:
    """The id to answer with: null unless it is one JSON-RPC allows and we can write back."""
    request_id = message.get("id")
    if not _valid_id(request_id):
        return None
    return request_id if _utf8(request_id) else None  # a surrogate id would crash the writer


def _valid_id(value: Any) -> bool:
    """A string or an integer, the ids JSON-RPC allows (a bool is an int to Python, not JSON)."""
    return isinstance(value, int | str) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A parsed scalar as JSON (true, null, 2.5; 1e400 parses as Infinity), a container by kind."""
    if isinstance(value, dict):
        return "an object"
    return _kind(value) if isinstance(value, list) else json.dumps(value)


def _kind(value: Any) -> str:
    """The JSON name of a parsed non-object value, for the error message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list) else "a string"


def _utf8(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return False
    return True


def parse_error(why: str) -> types.JSONRPCError:
    """The answer to a message that is not JSON at all (``why`` says what it is instead)."""
    return _error(None, types.PARSE_ERROR, f"Parse error: {why}")


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id,
                              error=types.ErrorData(code=code, message=message))


class GuardedStdin:
    """The lines of ``source`` the SDK can read; the others are answered here.

    Pass it as ``stdio_server(stdin=...)``, then :meth:`answer_through` the write stream the
    transport yields (it exists only once the transport runs; answers wait for it).
    """

    def __init__(self, source: AsyncIterable[str]):
        self._source = source
        self._write: Any = None
        self._ready = anyio.Event()

    def answer_through(self, write_stream: Any) -> None:
        self._write = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._source:
            try:
                answers = answers_for(line)
            except Exception:  # noqa: BLE001 - the guard must never take the transport down
                log.exception("could not check an incoming line; passing it to the SDK")
                answers = None
            if answers is None:
                yield line
                continue
            for answer in answers:
                await self._send(answer)

    async def _send(self, answer: types.JSONRPCError) -> None:
        await self._ready.wait()
        log.warning("answered a malformed message (id %s): %s", answer.id, answer.error.message)
        try:
            await self._write.send(SessionMessage(answer))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the server is shutting down: nobody is left to answer
