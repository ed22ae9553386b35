"""Answer the client's `initialize` while the MCP SDK is still loading.

Importing the SDK (pydantic models for every protocol revision) and the search engine takes
0.6-0.9 s; a client waits that long for the first answer, and some give up. The answer to
`initialize` depends on nothing the SDK loads: it is the server's name, version, instructions,
capabilities and the negotiated protocol version. So a thread reads the first line as soon as the
process starts and, when it is a well-formed `initialize`, writes the very line the SDK would
write (tests/mcp/test_mcp_handshake.py compares them byte for byte, for every protocol revision).

The SDK still sees that line (it must: `initialize` sets its session's protocol version and
client capabilities); its own answer to it is dropped on the way out (:class:`DropAnswered`).
Anything else as the first line (another method, a malformed line, params the check below is
unsure of) is left to the SDK and the stdio guard, exactly as before.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any, TextIO

log = logging.getLogger(__name__)

# mcp 2.3's negotiation (mcp/server/runner.py, _negotiate_initialize): the client's version when
# it is one of these, else the newest of them
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
CAPABILITIES = {"tools": {"listChanged": False}}


def initialize_answer(line: str, server_info: dict[str, str],
                      instructions: str) -> tuple[int | str, str] | None:
    """(request id, the answer line without its newline) for an `initialize` request whose
    params the SDK surely accepts; None for anything else (the SDK answers it)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize" \
            or message.get("jsonrpc") != "2.0":
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or set(params) - {"protocolVersion", "capabilities",
                                                      "clientInfo", "_meta"}:
        return None
    client = params.get("clientInfo")
    requested = params.get("protocolVersion")
    if not isinstance(requested, str) or not isinstance(params.get("capabilities"), dict) \
            or not isinstance(client, dict) or not isinstance(client.get("name"), str) \
            or not isinstance(client.get("version"), str):
        return None
    negotiated = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {"capabilities": CAPABILITIES, "instructions": instructions,
              "protocolVersion": negotiated, "serverInfo": server_info}
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    try:
        return request_id, json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        return None


class EarlyHandshake:
    """Reads the first line of ``stdin`` on a thread started at once, answers it when it is an
    `initialize` (on a duplicate of fd 1: the SDK later points fd 1 at stderr while it serves),
    and hands the line on to the SDK through :meth:`first_line`."""

    def __init__(self, stdin: TextIO, server_info: dict[str, str], instructions: str):
        self._stdin = stdin
        self._info = server_info
        self._instructions = instructions
        self._out = os.dup(1)
        self._done = threading.Event()
        self._line = ""
        self.answered: tuple[int | str, str] | None = None
        threading.Thread(target=self._run, name="mcp-handshake", daemon=True).start()

    def _run(self) -> None:
        try:
            self._line = self._stdin.readline()
            answered = initialize_answer(self._line, self._info, self._instructions)
            if answered is not None:
                data = (answered[1] + "\n").encode("utf-8")
                while data:
                    data = data[os.write(self._out, data):]
                self.answered = answered
        except (OSError, ValueError) as exc:  # a closed pipe: the SDK meets it too and stops
            log.debug("early initialize answer not written: %s", exc)
        finally:
            os.close(self._out)
            self._done.set()

    def first_line(self) -> str:
        """The first line read ("" at end of input), once it is read and answered."""
        self._done.wait()
        return self._line


class DropAnswered:
    """The SDK's write stream, less its answer to the `initialize` already answered early (a
    client must not get two answers for one id). Should the SDK's answer differ from the early
    one, that is logged: the pinned SDK range is tested to give the same bytes."""

    def __init__(self, write_stream: Any, handshake: EarlyHandshake):
        self._stream = write_stream
        self._handshake = handshake
        self._pending = True

    async def send(self, item: Any, /) -> None:
        answered = self._handshake.answered if self._pending else None
        if answered is not None and getattr(item.message, "id", None) == answered[0]:
            self._pending = False
            sdk = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            if sdk != answered[1]:
                log.warning("initialize was answered before the SDK loaded, and the SDK's "
                            "answer differs: early %s, SDK %s", answered[1][:300], sdk[:300])
            return
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> DropAnswered:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._stream.__aexit__(*exc)
