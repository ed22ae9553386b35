"""Text from the data layer, made safe to show: one rule for the app, the CLI, JSON and MCP.

A file name, a chunk or an error quoting either is data, never terminal control. The unsafe
characters are the C0 controls (ESC, BEL, CR...), DEL, the C1 range U+0080-U+009F (U+009B is a
one-byte CSI to many terminals) and the bidi overrides that reorder text. For display they
become visible one-cell stand-ins (:func:`plain`, :func:`one_line`); in JSON they become
``\\uXXXX`` escapes (:func:`json_dumps`), so a program still reads the exact text and no raw
control byte is ever written. See docs/reliability.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

# one visible stand-in per control character, one cell wide (columns stay aligned)
_C0 = {i: chr(0x2400 + i) for i in range(32)}  # ␀ … ␟ (␛ for ESC)
_TABLE = {**_C0, 0x7F: "␡"}
_TABLE.update({i: "\N{REPLACEMENT CHARACTER}" for i in range(0x80, 0xA0)})  # C1 (incl. CSI)
BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
_TABLE.update({ord(ch): "\N{REPLACEMENT CHARACTER}" for ch in BIDI})
# a file name that is not valid UTF-8 arrives with its bad bytes as lone surrogates
# (surrogateescape): show each byte as \xNN, the name stays faithful and printable
_TABLE.update({i: "\N{REPLACEMENT CHARACTER}" for i in range(0xD800, 0xE000)})
_TABLE.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})
_NO_NEWLINE = {**_TABLE}
del _NO_NEWLINE[10]
_FOLD_NEWLINE = {**_NO_NEWLINE, 10: " "}

# what json.dumps(ensure_ascii=False) leaves raw but must not reach a terminal or a line
# splitter: DEL, C1, bidi controls and the Unicode line/paragraph separators
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff" + BIDI + "]")


def plain(text: object, *, keep_newlines: bool = True, tab: str = "    ") -> str:
    """``text`` with every control character replaced by a visible stand-in.

    ``\\n`` is kept (or folded to a space), ``\\r\\n`` becomes ``\\n``, tabs become spaces.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\t", tab)
    return s.translate(_NO_NEWLINE if keep_newlines else _FOLD_NEWLINE)


def one_line(text: object) -> str:
    """Plain text flattened to one line (runs of whitespace become one space)."""
    return " ".join(plain(text, keep_newlines=False).split(" ")).strip()


def json_dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` that keeps non-ASCII text readable but never emits a raw control
    character: those can only occur inside JSON strings, where ``\\uXXXX`` means the same."""
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
