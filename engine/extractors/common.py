"""Helpers shared by the extractors: reading text, streaming JSONL, dates, coercion.

Malformed parts are reported through a :class:`Problems` list instead of raised. Reading
files (text, JSONL, .json documents) lives in ``reading.py``.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from .base import Chunk, Problems

# what a bad record or message can raise past the field checks; it is skipped and reported
ELEMENT_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)


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
               metadata: dict[str, Any], content_date: str | None,
               first_date: str | None = None) -> Chunk:
    """Build a Chunk with cleaned content and JSON-safe metadata; ``first_date`` is kept only
    when it is before ``content_date`` (a span of days)."""
    if not (first_date and content_date and first_date < content_date):
        first_date = None
    return Chunk(id=chunk_id, source_file=source_file, source_type=source_type,
                 content=clean_text(content), metadata=json_safe(metadata),
                 content_date=content_date, first_date=first_date)


def short_message(exc: Exception) -> str:
    msg = str(exc)
    return msg if len(msg) <= 120 else msg[:117] + "..."


def type_name(value: Any) -> str:
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
    problems.add(complaint.format(type=type_name(value)), line=line)
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
        problems.add(f"{context}field {key!r} should be a list, got {type_name(value)}; "
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
