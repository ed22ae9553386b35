"""Key hygiene: one scrub for every message that may quote an API key, and a check of a key's form.

Every key memlens loads (the embedder's, the reranker's) is registered here when it is read;
:func:`scrub` then masks it — whole, or any piece of 8 or more characters, also in the escaped
forms an error message may show it in (``repr`` of str and bytes, JSON, whitespace-folded) — in
any text. ``EmbeddingError`` scrubs its message when it is built and the reranker scrubs its
``detail``, so a provider error reaching stderr, the index's stats, ``semantic_detail`` or an MCP
answer never carries the key (docs/reliability.md). The transport is irrelevant here: this module
only ever sees text.
"""

from __future__ import annotations

import json
import threading
from urllib.parse import quote

MASK = "***"
MIN_PIECE = 8  # the shortest run of a key's characters that is masked on its own

_lock = threading.Lock()
_secrets: set[str] = set()
_grams: frozenset[str] = frozenset()  # every MIN_PIECE-long slice of every form of every key
_short: tuple[str, ...] = ()  # forms shorter than MIN_PIECE: masked only whole


def _forms(key: str) -> set[str]:
    """The key as an error message may print it."""
    return {key, repr(key)[1:-1], repr(key.encode("utf-8", "backslashreplace"))[2:-1],
            json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1],
            " ".join(key.split()), quote(key, safe="")} - {""}


def register_secret(key: str | None) -> None:
    """Remember ``key`` so that :func:`scrub` masks it from now on (process-wide)."""
    global _grams, _short
    if not key or len(key) < 4:
        return  # nothing meaningful to mask (and masking every "sk-" would only add noise)
    with _lock:
        if key in _secrets:
            return
        _secrets.add(key)
        grams, short = set(_grams), set(_short)
        for form in _forms(key):
            if len(form) < MIN_PIECE:
                short.add(form)
            else:
                grams.update(form[i:i + MIN_PIECE] for i in range(len(form) - MIN_PIECE + 1))
        _grams, _short = frozenset(grams), tuple(sorted(short, key=len, reverse=True))


def scrub(text: str) -> str:
    """``text`` with every registered key, and every 8+ character piece of one, masked."""
    if not isinstance(text, str):
        text = str(text)
    grams, short = _grams, _short
    if grams and len(text) >= MIN_PIECE:
        hidden = bytearray(len(text))
        for i in range(len(text) - MIN_PIECE + 1):
            if text[i:i + MIN_PIECE] in grams:
                hidden[i:i + MIN_PIECE] = b"\x01" * MIN_PIECE
        if any(hidden):
            out, i = [], 0
            while i < len(text):
                if hidden[i]:
                    while i < len(text) and hidden[i]:
                        i += 1
                    out.append(MASK)
                else:
                    out.append(text[i])
                    i += 1
            text = "".join(out)
    for form in short:
        text = text.replace(form, MASK)
    return text


def key_form_problem(key: str) -> str | None:
    """Why ``key`` cannot be an API key (without quoting it), or None if its form is fine.

    A key is sent in an HTTP header: whitespace, control characters or non-ASCII inside it make
    the HTTP layer fail with an error that quotes the header — the key — so they are refused
    when the key is loaded.
    """
    for ch in key:
        if ch in "\n\r":
            return "it contains a line break"
        if ch.isspace():
            return "it contains whitespace"
        if ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f:
            return "it contains a control character"
        if ord(ch) > 0x7e:
            return "it contains a non-ASCII character"
    return None
