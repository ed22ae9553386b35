"""Reading data-layer files: whole text, streamed JSONL lines, one-object .json documents.

Malformed parts are reported through a :class:`Problems` list instead of raised; only a
whole-file failure is an :class:`ExtractError` (a path that is not a regular file, binary data
where text is expected, a ``.json`` document that is not one JSON object, a JSONL file in which
no line is a JSON object). An ``OSError`` while reading is not the content's fault: it
propagates, and the indexer retries the file on its next run (docs/reliability.md).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .base import ExtractError, Problems
from .common import clean_text, short_message, type_name

_UTF8_PROBLEM = "invalid UTF-8; undecodable bytes were replaced with U+FFFD"
# Text that is not UTF-8 is read in a declared fallback, the first that decodes: cp1252 (the
# Windows superset of Latin-1, whose 0x80-0x9F are curly quotes, dashes, €), else Latin-1,
# which decodes any byte. A file whose non-ASCII bytes are mostly valid UTF-8 is UTF-8 with
# a few damaged bytes instead: those are replaced with U+FFFD, the rest keeps its accents.
FALLBACKS = ("cp1252", "latin-1")
_FALLBACK_PROBLEM = "not UTF-8; read as {}"
_SHOWN = {"cp1252": "cp1252", "latin-1": "Latin-1"}
# A text file whose first 8 KB hold this share of NUL / control / non-UTF-8 bytes is binary
# data routed by mistake (an image named .md): skipped whole, not cut into garbage chunks.
BINARY_SAMPLE = 8192
BINARY_SHARE = 0.10
_CONTROL_BYTES = [bytes([b]) for b in range(32) if b not in (8, 9, 10, 11, 12, 13, 27)]
# .json values nested deeper than this are dropped (the stdlib parser recurses on nesting)
MAX_JSON_DEPTH = 64
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class _Numbers(threading.local):
    """What a JSON number no field can hold was read as: NaN, Infinity, one past the float
    range (1e400) or past a 64-bit integer (10^400, which ``float()`` cannot take and SQLite's
    JSON cannot keep) becomes null, the element's field missing, and is noted here for the
    file's problems: one bad number never fails the whole file."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def constant(self, name: str) -> None:
        self.seen.append(name)

    def float_(self, text: str) -> float | None:
        value = float(text)
        if math.isfinite(value):
            return value
        self.seen.append(text)
        return None

    def int_(self, text: str) -> int | None:
        if len(text) <= 18:  # inside 64 bits whatever its digits
            return int(text)
        value = int(text) if len(text) < 4000 else None  # Python caps int() at 4,300 digits
        if value is not None and -2**63 <= value < 2**63:
            return value
        self.seen.append(text)
        return None


_NUMBERS = _Numbers()
_DECODER = json.JSONDecoder(parse_float=_NUMBERS.float_, parse_int=_NUMBERS.int_,
                            parse_constant=_NUMBERS.constant)


def loads(text: str, problems: Problems, line: int | None = None) -> Any:
    """``json.loads`` with numbers out of range read as null and reported (:class:`_Numbers`)."""
    _NUMBERS.seen = []
    try:
        return _DECODER.decode(text)
    finally:
        if _NUMBERS.seen:
            shown = ", ".join(f"{t:.24}" for t in _NUMBERS.seen[:3])
            problems.add(f"{len(_NUMBERS.seen)} number(s) out of range ({shown}"
                         f"{', …' if len(_NUMBERS.seen) > 3 else ''}) read as missing",
                         line=line)


def decode_text(data: bytes, bom: bool = True) -> tuple[str, str | None]:
    """(text, how): ``how`` is None for clean UTF-8, else the problem to report once.

    Bytes that are not UTF-8 are read whole in one encoding: UTF-8 with its undecodable bytes
    replaced by U+FFFD when its valid multi-byte characters outnumber them or a BOM declares
    it (a stray byte in an accented UTF-8 note), else the first of :data:`FALLBACKS` that
    decodes. A leading BOM is dropped unless ``bom`` is False (a line past a file's first).
    """
    try:
        text, how = data.decode("utf-8"), None
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        invalid = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
        valid = len(text) - len(text.encode("ascii", "ignore")) - invalid
        if valid > invalid or data.startswith(codecs.BOM_UTF8):
            how = _UTF8_PROBLEM
        else:
            name = legacy_encoding(data)
            text, how = data.decode(name), _FALLBACK_PROBLEM.format(_SHOWN[name])
    if bom and text.startswith("\ufeff"):
        text = text[1:]
    return text, how


def legacy_encoding(data: bytes) -> str:
    """The first of :data:`FALLBACKS` that decodes ``data`` with no undefined byte."""
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def open_regular(path: Path) -> BinaryIO:
    """Open a file to read, never through a final symlink and never blocking on a FIFO: a
    path that is not a regular file any more raises :class:`ExtractError`."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ExtractError(f"cannot read {path.name}: not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def binary_share(data: bytes) -> float:
    """The share of NUL, control and undecodable bytes in the first :data:`BINARY_SAMPLE`
    (bytes that are not UTF-8 but read as cp1252 text are not counted)."""
    head = data[:BINARY_SAMPLE]
    if not head:
        return 0.0
    undecodable = head.decode("utf-8", "replace").count("\ufffd") - head.count(b"\xef\xbf\xbd")
    if undecodable and legacy_encoding(head) == "cp1252":
        undecodable = 0  # accented cp1252 text, however dense ("Crème brûlée"), is text
    control = sum(head.count(b) for b in _CONTROL_BYTES)
    return (undecodable + control) / len(head)


def read_text(path: Path, problems: Problems) -> str:
    """The whole file as text; text that is not UTF-8 is read as cp1252 or Latin-1 (damaged
    UTF-8 replaced), reported once (:func:`decode_text`). NULs stripped. Binary data raises
    :class:`ExtractError`."""
    with open_regular(path) as fh:
        data = fh.read()
    share = binary_share(data)
    if share >= BINARY_SHARE:
        raise ExtractError(f"{path.name} looks like binary data, not text ({share:.0%} of its "
                           "first 8 KB are control or non-UTF-8 bytes); not indexed")
    text, how = decode_text(data)
    if how:
        problems.add(how)
    return clean_text(text).replace("\r\n", "\n").replace("\r", "\n")


def iter_lines(path: Path, problems: Problems, offset: int = 0,
               first_line: int = 1) -> Iterator[tuple[int, int, str]]:
    """Stream (line number, byte offset, text without newline) from ``offset`` on.

    Each line is decoded on its own (:func:`decode_text`: UTF-8, else cp1252 or Latin-1), so
    an appended line is read as the line it is; each way of reading a line that is not UTF-8
    is reported once, at its first line. Starting mid-file (``offset`` > 0) lets an
    append-only log be read from where the last indexing left off.
    """
    reported: set[str] = set()
    with open_regular(path) as fh:
        fh.seek(offset)
        pos = offset
        for n, raw in enumerate(fh, start=first_line):
            text, how = decode_text(raw) if pos == 0 else _decode_line(raw)
            if how and how not in reported:
                problems.add(how + " (first at this line)", line=n)
                reported.add(how)
            yield n, pos, text.rstrip("\r\n")
            pos += len(raw)


def _decode_line(raw: bytes) -> tuple[str, str | None]:
    """A line past the first: a U+FEFF at its start is content, not a BOM."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return decode_text(raw, bom=False)


def iter_jsonl(path: Path, problems: Problems, offset: int = 0,
               first_line: int = 1) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Stream (line number, byte offset, object) from a JSONL file, line by line.

    Blank lines are ignored; a line that is not JSON, or not a JSON object, is skipped and
    reported. A non-empty file in which no line parses at all raises :class:`ExtractError`
    (only when read from its start: a resumed tail may legitimately hold no object yet).
    """
    good = bad = 0
    for n, pos, line in iter_lines(path, problems, offset, first_line):
        if not line.strip():
            continue
        try:
            obj = loads(line, problems, n)
        except ValueError as exc:
            bad += 1
            problems.add(f"invalid JSON ({short_message(exc)}); line skipped", line=n)
            continue
        except RecursionError:
            bad += 1
            problems.add("JSON nested too deeply to read; line skipped", line=n)
            continue
        if not isinstance(obj, dict):
            bad += 1
            problems.add(f"expected a JSON object, got {type_name(obj)}; line skipped", line=n)
            continue
        good += 1
        yield n, pos, obj
    if bad and not good and offset == 0:
        raise ExtractError(f"{path.name}: none of its {bad} non-blank lines is a JSON object "
                           "(expected JSONL: one JSON object per line)")


def load_json_document(path: Path, problems: Problems) -> dict[str, Any] | None:
    """Parse a one-object .json file. None for an empty file; ExtractError when unparseable."""
    text = read_text(path, problems)
    if not text.strip():
        return None
    try:
        try:
            obj = loads(text, problems)
        except RecursionError:
            text, lines = drop_deep_json(text)
            for line in lines:
                problems.add(f"a value nested deeper than {MAX_JSON_DEPTH} levels was dropped",
                             line=line)
            obj = loads(text, problems)
    except (ValueError, RecursionError) as exc:
        raise ExtractError(f"{path.name}: not valid JSON ({short_message(exc)})") from None
    if not isinstance(obj, dict):
        raise ExtractError(f"{path.name}: top level must be a JSON object, got {type_name(obj)}")
    return obj


def drop_deep_json(text: str, limit: int = MAX_JSON_DEPTH) -> tuple[str, list[int]]:
    """The JSON text with every array/object nested deeper than ``limit`` replaced by
    ``null``, and the line each dropped value started on (one bad field keeps the rest)."""
    out: list[str] = []
    lines: list[int] = []
    depth, cut, last = 0, -1, 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == limit + 1:
                cut = m.start()
        else:
            if depth == limit + 1 and cut >= 0:
                out.append(text[last:cut] + "null")
                lines.append(text.count("\n", 0, cut) + 1)
                last, cut = m.end(), -1
            depth -= 1
    out.append(text[last:])
    return "".join(out), lines


