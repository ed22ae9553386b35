"""Helpers shared by the extractors: reading text, streaming JSONL, dates, coercion.

Malformed parts are reported through a :class:`Problems` list instead of raised; only a
whole-file failure is an :class:`ExtractError` (a path that is not a regular file, binary data
where text is expected, a ``.json`` document that is not one JSON object, a JSONL file in which
no line is a JSON object). An ``OSError`` while reading is not the content's fault: it
propagates, and the indexer retries the file on its next run.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any, BinaryIO

from .base import Chunk, ExtractError, Problems

_UTF8_PROBLEM = "invalid UTF-8; undecodable bytes were replaced with U+FFFD"
# A text file whose first 8 KB hold this share of NUL / control / non-UTF-8 bytes is binary
# data routed by mistake (an image named .md): skipped whole, not cut into garbage chunks.
BINARY_SAMPLE = 8192
BINARY_SHARE = 0.10
_CONTROL_BYTES = [bytes([b]) for b in range(32) if b not in (8, 9, 10, 11, 12, 13, 27)]
# .json values nested deeper than this are dropped (the stdlib parser recurses on nesting)
MAX_JSON_DEPTH = 64
# what a bad record or message can raise past the field checks; it is skipped and reported
ELEMENT_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


# --------------------------------------------------------------------------- text


def clean_text(value: str) -> str:
    """Strip NUL characters and replace lone surrogates (from JSON escapes) with U+FFFD."""
    if "\x00" in value:
        value = value.replace("\x00", "")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def json_safe(value: Any) -> Any:
    """A JSON-serialisable, deterministic copy: dates become ISO strings, keys strings."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        return {clean_text(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((json_safe(v) for v in value), key=str)
    if isinstance(value, bytes):
        return clean_text(value.decode("utf-8", "replace"))
    return clean_text(str(value))


def make_chunk(chunk_id: str, source_file: str, source_type: str, content: str,
               metadata: dict[str, Any], content_date: str | None) -> Chunk:
    """Build a Chunk with cleaned content and JSON-safe metadata."""
    return Chunk(id=chunk_id, source_file=source_file, source_type=source_type,
                 content=clean_text(content), metadata=json_safe(metadata),
                 content_date=content_date)


def decode_bytes(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 (a leading BOM dropped); returns (text, had_errors)."""
    try:
        text = data.decode("utf-8")
        bad = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        bad = True
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, bad


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
    """The share of NUL, control and undecodable bytes in the first :data:`BINARY_SAMPLE`."""
    head = data[:BINARY_SAMPLE]
    if not head:
        return 0.0
    undecodable = head.decode("utf-8", "replace").count("\ufffd") - head.count(b"\xef\xbf\xbd")
    control = sum(head.count(b) for b in _CONTROL_BYTES)
    return (undecodable + control) / len(head)


def read_text(path: Path, problems: Problems) -> str:
    """The whole file as text; invalid UTF-8 is replaced and reported once. NULs stripped.
    Binary data raises :class:`ExtractError`."""
    with open_regular(path) as fh:
        data = fh.read()
    share = binary_share(data)
    if share >= BINARY_SHARE:
        raise ExtractError(f"{path.name} looks like binary data, not text ({share:.0%} of its "
                           "first 8 KB are control or non-UTF-8 bytes); not indexed")
    text, bad = decode_bytes(data)
    if bad:
        problems.add(_UTF8_PROBLEM)
    return clean_text(text).replace("\r\n", "\n").replace("\r", "\n")


def iter_lines(path: Path, problems: Problems, offset: int = 0,
               first_line: int = 1) -> Iterator[tuple[int, int, str]]:
    """Stream (line number, byte offset, text without newline) from ``offset`` on.

    One problem is reported for any invalid UTF-8. Starting mid-file (``offset`` > 0) lets an
    append-only log be read from where the last indexing left off.
    """
    reported = False
    with open_regular(path) as fh:
        fh.seek(offset)
        pos = offset
        for n, raw in enumerate(fh, start=first_line):
            text, bad = decode_bytes(raw) if pos == 0 else _decode_line(raw)
            if bad and not reported:
                problems.add(_UTF8_PROBLEM + " (first at this line)", line=n)
                reported = True
            yield n, pos, text.rstrip("\r\n")
            pos += len(raw)


def _decode_line(raw: bytes) -> tuple[str, bool]:
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


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
            obj = json.loads(line)
        except ValueError as exc:
            bad += 1
            problems.add(f"invalid JSON ({_short(exc)}); line skipped", line=n)
            continue
        except RecursionError:
            bad += 1
            problems.add("JSON nested too deeply to read; line skipped", line=n)
            continue
        if not isinstance(obj, dict):
            bad += 1
            problems.add(f"expected a JSON object, got {_type_name(obj)}; line skipped", line=n)
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
            obj = json.loads(text)
        except RecursionError:
            text, lines = drop_deep_json(text)
            for line in lines:
                problems.add(f"a value nested deeper than {MAX_JSON_DEPTH} levels was dropped",
                             line=line)
            obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ExtractError(f"{path.name}: not valid JSON ({_short(exc)})") from None
    if not isinstance(obj, dict):
        raise ExtractError(f"{path.name}: top level must be a JSON object, got {_type_name(obj)}")
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


def _short(exc: Exception) -> str:
    msg = str(exc)
    return msg if len(msg) <= 120 else msg[:117] + "..."


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value),
                                                                          type(value).__name__)


# --------------------------------------------------------------------------- coercion


def as_text(record: dict[str, Any], key: str, problems: Problems, line: int | None = None,
            *, context: str = "") -> str | None:
    """A text field: strings as-is, numbers/booleans as str, missing/null/blank -> None.

    An object or array is not text: reported and treated as missing.
    """
    return text_value(record.get(key), problems, line,
                      f"{context}field {key!r} should be text, got {{type}}; ignored")


def text_value(value: Any, problems: Problems, line: int | None, complaint: str) -> str | None:
    """Text from a JSON value: strings cleaned, numbers/booleans as str, null/blank -> None;
    an object or array is reported with ``complaint`` (``{type}`` names what it was)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = clean_text(value)
        return value if value.strip() else None
    if isinstance(value, bool | int | float):
        return str(value)
    problems.add(complaint.format(type=_type_name(value)), line=line)
    return None


def as_str_list(record: dict[str, Any], key: str, problems: Problems,
                line: int | None = None, *, context: str = "", split: bool = True) -> list[str]:
    """A list-of-strings field. A single string becomes a list (split on commas if ``split``).

    Non-scalar items are dropped with one problem.
    """
    value = record.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        parts = value.split(",") if split else [value]
        return [clean_text(p.strip()) for p in parts if p.strip()]
    if isinstance(value, bool | int | float):
        return [str(value)]
    if not isinstance(value, list):
        problems.add(f"{context}field {key!r} should be a list, got {_type_name(value)}; "
                     "ignored", line=line)
        return []
    out: list[str] = []
    dropped = 0
    for item in value:
        if isinstance(item, str):
            if item.strip():
                out.append(clean_text(item.strip()))
        elif isinstance(item, bool | int | float):
            out.append(str(item))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            out.append(clean_text(item["name"].strip()))
        elif item is not None:
            dropped += 1
    if dropped:
        problems.add(f"{context}field {key!r}: {dropped} non-text item(s) ignored", line=line)
    return out


def as_number(record: dict[str, Any], key: str, problems: Problems, line: int | None = None,
              *, context: str = "") -> float | int | None:
    """A numeric field; numeric strings are accepted, anything else reported and ignored."""
    value = record.get(key)
    if value is None or isinstance(value, bool):
        if isinstance(value, bool):
            problems.add(f"{context}field {key!r} should be a number, got a boolean; ignored",
                         line=line)
        return None
    if isinstance(value, int | float):
        return value if not (isinstance(value, float) and not math.isfinite(value)) else None
    if isinstance(value, str) and value.strip():
        try:
            num = float(value.strip().replace(",", ""))
        except ValueError:
            pass
        else:
            if math.isfinite(num):
                return int(num) if num.is_integer() and "." not in value else num
    problems.add(f"{context}field {key!r} should be a number, got {value!r:.40}; ignored",
                 line=line)
    return None


# --------------------------------------------------------------------------- dates

_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_ISO_WEEK_IN_NAME = re.compile(r"(?<!\d)(\d{4})-W(\d{2})(?!\d)", re.IGNORECASE)
_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")


def epoch_to_datetime(value: float, unit: str = "auto") -> datetime | None:
    """Epoch seconds/milliseconds -> aware UTC datetime. ``auto`` treats >1e11 as ms."""
    if unit == "ms" or (unit == "auto" and abs(value) > 1e11):
        value = value / 1000.0
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_datetime(value: Any, *, epoch_unit: str = "auto") -> datetime | None:
    """Parse a timestamp: ISO 8601 (with or without zone, 'Z', date only, space separator),
    epoch seconds or milliseconds (number or numeric string), or a date/datetime object.

    Returns None when unparseable. A date alone becomes midnight (naive).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time())
    if isinstance(value, int) and 10_000_101 <= value <= 99_991_231:
        value = str(value)  # 20260314: a compact date, not 1970 epoch seconds
    elif isinstance(value, int | float):
        try:
            seconds = float(value)  # an int of 400 digits does not fit
        except OverflowError:
            return None
        return epoch_to_datetime(seconds, epoch_unit) if math.isfinite(seconds) else None
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s:
        return None
    if _NUMERIC.match(s):
        if len(s) == 8 and s.isdigit():  # 20260314
            try:
                return datetime.strptime(s, "%Y%m%d")
            except ValueError:
                pass
        return epoch_to_datetime(float(s), epoch_unit)
    for cand in (s, _near_iso(s)):
        try:
            return datetime.fromisoformat(cand)
        except ValueError:
            continue
    return None


def _near_iso(s: str) -> str:
    """Common near-ISO spellings: "2026/03/14 09:12", a trailing " UTC"."""
    t = s.replace("/", "-")
    if t.upper().endswith(" UTC"):
        t = t[:-4] + "+00:00"
    return t


def to_date_str(value: Any, *, epoch_unit: str = "auto") -> str | None:
    """YYYY-MM-DD for anything :func:`parse_datetime` accepts (in the timestamp's own zone)."""
    dt = parse_datetime(value, epoch_unit=epoch_unit)
    return dt.date().isoformat() if dt else None


def has_time(value: Any) -> bool:
    """True when a raw date value carries a time of day (so a ``timestamp`` is meaningful)."""
    if isinstance(value, datetime):
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return True
    if isinstance(value, str):
        s = value.strip()
        return bool(_NUMERIC.match(s) and len(s) != 8) or len(s) > 10
    return False


def iso_timestamp(value: Any, *, epoch_unit: str = "auto") -> str | None:
    """The value as an ISO timestamp string when it has a time of day, else None."""
    if not has_time(value):
        return None
    dt = parse_datetime(value, epoch_unit=epoch_unit)
    return dt.isoformat() if dt else None


def fmt_minute(dt: datetime) -> str:
    """'YYYY-MM-DD HH:MM' in the timestamp's own zone (wall-clock time as written)."""
    return dt.strftime("%Y-%m-%d %H:%M")


def date_from_filename(name: str) -> str | None:
    """A YYYY-MM-DD in a file name, or the Monday of a YYYY-Www ISO week."""
    m = _DATE_IN_NAME.search(name)
    if m:
        try:
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            pass
    m = _ISO_WEEK_IN_NAME.search(name)
    if m:
        try:
            return date.fromisocalendar(int(m[1]), int(m[2]), 1).isoformat()
        except ValueError:
            pass
    return None


def mtime_date(path: Path) -> str | None:
    """The file's modification date (local time)."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime).date().isoformat()
    except (OSError, OverflowError, ValueError):
        return None


def fmt_duration(minutes: float) -> str:
    """7h12m / 42m."""
    total = int(round(minutes))
    h, m = divmod(total, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m"


def fmt_clock(seconds: float) -> str:
    """[mm:ss], or h:mm:ss from one hour on."""
    total = max(0, int(seconds))
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def fmt_int(value: float) -> str:
    """11204 -> '11,204'."""
    return f"{round(value):,}"


def fmt_dec(value: float, decimals: int = 1) -> str:
    """8.1; integers stay integers (8 -> '8')."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{decimals}f}"
