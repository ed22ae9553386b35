"""Small helpers shared by the importers: zones, text decoding, names, line lookup."""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from datetime import UTC, date, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.dates import clock
from engine.display import OneLineError
from engine.path_style import UNSAFE_RUN, portable_name

# --------------------------------------------------------------------------- time zones


class ImportFailed(OneLineError):
    """The input cannot be imported at all: not found, unknown kind, not that kind of export."""


class DemoRootRefused(ImportFailed):
    """The root is the generated demo root: nothing is imported into it, from any front door."""


def resolve_tz(local_tz: str | None) -> tuple[tzinfo, str]:
    """(zone, its name) for ``local_tz``; None means the system zone.

    The system zone is looked up as an IANA name first ($TZ, /etc/localtime), so DST is
    applied per date; only when no name is found is the current fixed offset used.
    """
    if local_tz:
        try:
            return ZoneInfo(local_tz), local_tz
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ImportFailed(f"unknown time zone {local_tz!r} (use an IANA name such as "
                               "'Europe/Berlin')") from exc
    candidates = []
    env = os.environ.get("TZ", "").lstrip(":")
    if env:
        candidates.append(env)
    try:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        try:
            return ZoneInfo(name), name
        except (ZoneInfoNotFoundError, ValueError):
            continue
    moment = clock.now()
    tz = moment.tzinfo or UTC
    return tz, tz.tzname(moment) or "local"


def iso(dt: datetime) -> str:
    """ISO 8601 with seconds (and the offset, for an aware time)."""
    return dt.isoformat(timespec="seconds")


def local(dt_naive: datetime, tz: tzinfo) -> datetime:
    """A naive wall-clock time placed in ``tz``."""
    return dt_naive.replace(tzinfo=tz)


def from_epoch(seconds: float, tz: tzinfo) -> datetime | None:
    """An epoch instant shown in ``tz`` (the instant is exact; only the display zone is chosen)."""
    try:
        return datetime.fromtimestamp(seconds, UTC).astimezone(tz)
    except (OverflowError, OSError, ValueError):
        return None


# --------------------------------------------------------------------------- text


def looks_binary(data: bytes) -> bool:
    """NUL bytes (outside UTF-16) or mostly control bytes in the first 8 KB."""
    head = data[:8192]
    if not head:
        return False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls > len(head) * 0.1


def decode_text(data: bytes) -> tuple[str, str | None]:
    """(text, the problem to report once, or None). A BOM is honoured (UTF-8/UTF-16); text
    that is not UTF-8 is read as the indexer reads it (cp1252, else Latin-1:
    engine/extractors/reading.py), so an export's accents survive the import; CRLF becomes LF."""
    from engine.extractors.reading import decode_text as decode_file

    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text, how = data.decode("utf-16", errors="replace"), None
    else:
        text, how = decode_file(data)
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\x00", ""), how


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
#: nesting past this is reported at its line when the parser runs out of stack
DEEP_JSON = 500


def parse_json(text: str) -> Any:
    """``json.loads``, but nesting too deep for the parser is a ``ValueError`` (a
    ``JSONDecodeError`` carrying the line) instead of a ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("JSON nested too deeply", text, _deep_at(text)) from None


def _deep_at(text: str) -> int:
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group(0)
        if tok in "[{":
            depth += 1
            if depth > DEEP_JSON:
                return m.start()
        elif tok in "]}":
            depth -= 1
    return 0


def line_of(text: str, needle: str, start: int = 0) -> tuple[int | None, int]:
    """(1-based line of ``needle`` at or after char ``start``, position after it)."""
    pos = text.find(needle, start)
    if pos < 0:
        return None, start
    return text.count("\n", 0, pos) + 1, pos + len(needle)


class LineFinder:
    """Line numbers of values in pretty-printed JSON, found in document order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def find(self, needle: str) -> int | None:
        line, pos = line_of(self.text, needle, self.pos)
        if line is not None:
            self.pos = pos
        return line


def clean(value: str) -> str:
    return value.replace("\x00", "").strip()


def slugify(name: str, fallback: str = "untitled", *, lower: bool = False,
            max_len: int = 80) -> str:
    """A file-name-safe form of ``name``: unicode kept, separators and spaces become '-'."""
    s = unicodedata.normalize("NFKC", name or "").strip()
    s = UNSAFE_RUN.sub("-", s)
    s = re.sub(r"\s+", "-", s)
    s = re.sub(r"-{2,}", "-", s).strip("-. ")
    if lower:
        s = s.lower()
    s = s[:max_len].rstrip("-. ")
    return portable_name(s) if s else fallback


def file_stem(name: str, fallback: str = "untitled", max_len: int = 80) -> str:
    """A file name's stem for ``name`` as the person spelled it: spaces and Unicode kept, only
    what a file name cannot hold (on any system) becomes '-'."""
    s = re.sub(r"\s+", " ", UNSAFE_RUN.sub("-", unicodedata.normalize("NFC", name or "")))
    s = s.strip(" .-")[:max_len].rstrip(" .-")
    return portable_name(s) if s else fallback


def stable_id(*parts: Any, prefix: str = "", length: int = 16) -> str:
    h = hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8", "surrogatepass"))
    return prefix + h.hexdigest()[:length]


def safe_relpath(name: str) -> str | None:
    """A POSIX relative path without '..' or absolute parts (None if unsafe/empty)."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


# --------------------------------------------------------------------------- dates in names

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9

_NAME_DT = re.compile(
    r"(?<!\d)(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?:[ T_.-]+(\d{2})[.:h-]?(\d{2})(?:[.:-]?(\d{2}))?)?"
    r"(?!\d)")


def datetime_from_name(name: str) -> tuple[datetime | None, bool]:
    """(naive datetime, has_time) from a date (and time) in a file name, else (None, False).

    Accepts 2026-03-14, 20260314, 2026_03_14, with an optional time 10.00 / 1000 / 10:00:05.
    """
    for m in _NAME_DT.finditer(name):
        y, mo, d, hh, mm, ss = m.groups()
        try:
            day = date(int(y), int(mo), int(d))
        except ValueError:
            continue
        if not 1970 <= day.year <= 2100:
            continue
        if hh is not None:
            try:
                return datetime(day.year, day.month, day.day, int(hh), int(mm),
                                int(ss or 0)), True
            except ValueError:
                pass
        return datetime(day.year, day.month, day.day), False
    return None, False


def month_number(word: str) -> int | None:
    return _MONTHS.get(word.strip(".").lower())


