"""Small helpers of the demo generator, and the plan (how many of each thing)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from random import Random
from typing import Any

from .cast import PEOPLE
from .facts import OTHER_SHARE, SECTION_MAX_CHARS, SEGMENT_CHUNK_CHARS
from .word_banks import fill


def _protocol_days(protocol: str) -> int | None:
    """The length an experiment's protocol states ("14 days", "8 weeks"), if any."""
    m = re.search(r"(\d+) (days|weeks)", protocol)
    if not m:
        return None
    return int(m[1]) * (7 if m[2] == "weeks" else 1)


def _fill_same(rng: Random, *templates: str) -> list[str]:
    """Fill templates from one restarted stream, so ``{crag}`` is the same place in each."""
    seed = rng.getrandbits(64)
    return [fill(t, Random(seed)) for t in templates]


def _esc(text: str) -> str:
    """JSON string body (no quotes), UTF-8 kept."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _slug(text: str) -> str:
    out = []
    for ch in text.lower():
        if ch.isalnum() and ch.isascii():
            out.append(ch)
        elif ch in "áàâä":
            out.append("a")
        elif ch in "éèêë":
            out.append("e")
        elif ch in "íìîï":
            out.append("i")
        elif ch in "óòôö":
            out.append("o")
        elif ch in "úùûü":
            out.append("u")
        elif ch == "ñ":
            out.append("n")
        elif ch == "'":
            continue
        else:
            out.append("-")
    return "-".join(p for p in "".join(out).split("-") if p)


def _apportion(total: int, weights: list[float], minimum: int = 1) -> list[int]:
    """Integers proportional to ``weights`` summing to ``total`` (each >= minimum)."""
    n = len(weights)
    rest = max(0, total - minimum * n)
    s = sum(weights)
    raw = [rest * w / s for w in weights]
    out = [int(x) for x in raw]
    left = rest - sum(out)
    for i in sorted(range(n), key=lambda i: (out[i] - raw[i], i))[:left]:
        out[i] += 1
    return [minimum + x for x in out]


def _dst_bounds(year: int) -> tuple[date, date]:
    """US Pacific daylight time: second Sunday of March to first Sunday of November."""
    mar = date(year, 3, 8)
    nov = date(year, 11, 1)
    return (mar + timedelta(days=(6 - mar.weekday()) % 7),
            nov + timedelta(days=(6 - nov.weekday()) % 7))


_EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class _Day:
    d: date
    iso: str
    off: str  # "-08:00" / "-07:00"
    utc0: int  # epoch seconds of local midnight
    weekend: bool


def _days(start: date, n: int) -> list[_Day]:
    out = []
    bounds: dict[int, tuple[date, date]] = {}
    for i in range(n):
        d = start + timedelta(days=i)
        if d.year not in bounds:
            bounds[d.year] = _dst_bounds(d.year)
        lo, hi = bounds[d.year]
        hours = 7 if lo <= d < hi else 8
        out.append(_Day(d, d.isoformat(), f"-{hours:02d}:00",
                        (d - _EPOCH).days * 86400 + hours * 3600, d.weekday() >= 5))
    return out


_HMS = [f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60)]


class _Md:
    """A markdown document built section by section; counts the chunks it will make."""

    def __init__(self, frontmatter: dict[str, Any] | None = None, preamble: str = "") -> None:
        self.parts: list[str] = []
        self.chunks = 0
        if frontmatter:
            self.parts.append("---\n" + _yaml(frontmatter) + "---\n")
        if preamble.strip():
            self.parts.append(preamble.strip() + "\n")
            self.chunks += _section_parts(preamble)

    def section(self, level: int, heading: str, body: str) -> _Md:
        body = body.strip()
        self.parts.append(f"{'#' * level} {heading}\n" + (f"\n{body}\n" if body else ""))
        if body:
            self.chunks += _section_parts(body)
        return self

    def text(self) -> str:
        return "\n".join(self.parts)


def _section_parts(body: str) -> int:
    if len(body) <= SECTION_MAX_CHARS:
        return 1
    raise AssertionError("demo markdown sections are kept short")  # pragma: no cover


def _yaml(data: dict[str, Any]) -> str:
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {_yaml_scalar(v)}" for v in value)
        else:
            lines.append(f"{key}: {_yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | date):
        return str(value)
    s = str(value)
    if s and all(c.isalnum() or c in " -_./" for c in s) and not s[0].isdigit() \
            and s.lower() not in ("yes", "no", "true", "false", "null", "on", "off"):
        return s
    return _q(s)


def _bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {i}" for i in items)


def _pack_count(header: str, lines: list[str], limit: int = SEGMENT_CHUNK_CHARS) -> int:
    """Chunks the meeting/voice extractor makes of these labelled segment lines."""
    groups = current = 0
    size = len(header)
    for line in lines:
        if len(line) > limit - len(header) - 1:  # never written: segments are short
            raise AssertionError("demo segments are kept short")  # pragma: no cover
        if current and size + 1 + len(line) > limit:
            groups += 1
            current, size = 0, len(header)
        current += 1
        size += 1 + len(line)
    return groups + (1 if current else 0)


def _clock(seconds: float) -> str:
    total = max(0, int(seconds))
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


# =============================================================================================
# The plan: how many of each thing
# =============================================================================================

# Items per source at scale 1 (the default root), and chunks each item makes on average
# (used only to choose the scale; the summary counts what is actually written).
BASE_ITEMS: dict[str, tuple[int, float]] = {
    "meeting": (30, 3.0), "email_catalog": (80, 1.0), "event": (55, 1.0),
    "checkin": (140, 1.0), "experiment": (8, 1.0), "journal": (110, 1.0), "voice": (18, 1.0),
    "transcript": (5, 5.0), "quote": (30, 1.0), "observation": (20, 1.0), "story": (14, 1.0),
    "interview": (5, 5.0),  # sessions: ~4 answers + 1 meta each
    "podcast_digest": (36, 1.0), "board_summary": (12, 5.0), "entity_extra": (10, 4.0),
    "codebase_doc": (8, 5.0), "rwgps_memory": (10, 4.0), "scratch_daily": (24, 3.0),
    "scratch_weekly": (12, 3.0), "note": (28, 4.0), "cgm_sensors": (2, 14.0),
}


class _Plan:
    def __init__(self, chunks: int | None, today: date) -> None:
        if chunks is None or chunks <= 120_000:
            years = 1
        elif chunks <= 300_000:
            years = 2
        else:
            years = 3
        self.days = 365 * years
        self.start = today - timedelta(days=self.days - 1)
        self.weeks = self.days // 7
        if chunks is None:
            self.scale = 1.0
        else:
            target = OTHER_SHARE * chunks
            lo, hi = 0.0, 10_000.0
            for _ in range(60):
                mid = (lo + hi) / 2
                if self._expected(mid) < target:
                    lo = mid
                else:
                    hi = mid
            self.scale = max(0.01, lo)
        self.items = self._items(self.scale)

    def _items(self, s: float) -> dict[str, int]:
        def n(key: str, minimum: int = 1) -> int:
            return max(minimum, round(BASE_ITEMS[key][0] * s))

        items = {k: n(k) for k in BASE_ITEMS}
        items["checkin"] = min(self.days, items["checkin"])
        items["scratch_daily"] = min(self.days, items["scratch_daily"])
        items["scratch_weekly"] = min(self.weeks - 1, items["scratch_weekly"])
        items["cgm_sensors"] = min(self.days // 14, items["cgm_sensors"])
        items["garmin"] = self.days if s >= 1 else max(14, round(365 * s))
        return items

    def _expected(self, s: float) -> float:
        items = self._items(s)
        total = items["garmin"] + len(PEOPLE) * 4.5
        for key, (_, per) in BASE_ITEMS.items():
            total += items[key] * per
        return total
