"""Daily health documents, one JSON object per file: garmin, cgm.

Each file becomes one human-readable summary chunk. A file that is not JSON, or whose top
level is not an object, raises ExtractError; an empty file yields nothing. A wrong-typed part
(a metric that is not a number, an activity that is not an object) is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from .base import BaseExtractor, Chunk, Problems
from .common import (
    as_number,
    as_text,
    fmt_dec,
    fmt_duration,
    fmt_int,
    make_chunk,
    mtime_date,
    parse_datetime,
)
from .documents import doc_date
from .reading import load_json_document


def _weekday_day(day: str | None) -> str:
    if not day:
        return "an unknown day"
    return f"{date.fromisoformat(day).strftime('%A')} {day}"


def _sub_object(doc: dict[str, Any], key: str, problems: Problems) -> dict[str, Any]:
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.add(f"{key!r} should be an object, got {type(value).__name__}; ignored")
        return {}
    return value


def _object_list(doc: dict[str, Any], key: str, problems: Problems) -> list[dict[str, Any]]:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        problems.add(f"{key!r} should be a list, got {type(value).__name__}; ignored")
        return []
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            out.append(item)
        else:
            problems.add(f"{key}[{i}] should be an object, got {type(item).__name__}; skipped")
    return out



def _present(*fields) -> list[str]:
    """``template`` filled with ``fmt(value)`` for each (value, template, fmt) whose value
    is known, in order."""
    return [template.format(fmt(value)) for value, template, fmt in fields if value is not None]


class GarminExtractor(BaseExtractor):
    """``data/health/garmin/<YYYY-MM-DD>.json``: one human-readable daily summary chunk."""

    source_type = "garmin"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        day, _ = doc_date(doc, "date", path, problems)

        def num(obj: dict[str, Any], key: str, ctx: str = "") -> float | int | None:
            return as_number(obj, key, problems, context=ctx)

        steps, dist = num(doc, "steps"), num(doc, "distance_km")
        kcal, rhr, mhr = num(doc, "active_kcal"), num(doc, "resting_hr"), num(doc, "max_hr")
        stress = num(doc, "stress_avg")
        bb = _sub_object(doc, "body_battery", problems)
        bb_high, bb_low = num(bb, "high", "body_battery: "), num(bb, "low", "body_battery: ")
        sleep = _sub_object(doc, "sleep", problems)
        s_dur, s_deep = num(sleep, "duration_min", "sleep: "), num(sleep, "deep_min", "sleep: ")
        s_rem, s_score = num(sleep, "rem_min", "sleep: "), num(sleep, "score", "sleep: ")

        day_parts = _present((steps, "{} steps", fmt_int), (dist, "{} km", "{:.1f}".format),
                             (kcal, "{} active kcal", fmt_int), (rhr, "resting HR {}", fmt_int),
                             (mhr, "max HR {}", fmt_int), (stress, "avg stress {}", fmt_int))
        battery = _present((bb_high, "high {}", fmt_int), (bb_low, "low {}", fmt_int))
        if battery:
            day_parts.append(f"body battery {' / '.join(battery)}")
        text = f"Garmin daily summary for {_weekday_day(day)}: "
        text += (", ".join(day_parts) if day_parts else "no daily totals") + "."
        if s_dur is not None:
            details = _present((s_deep, "deep {}", fmt_duration), (s_rem, "REM {}", fmt_duration),
                               (s_score, "score {}", fmt_int))
            text += f" Sleep {fmt_duration(s_dur)}" + (f" ({', '.join(details)})" if details
                                                       else "") + "."
        acts = []
        act_types = []
        for i, act in enumerate(_object_list(doc, "activities", problems)):
            ctx = f"activities[{i}]: "
            kind = as_text(act, "type", problems, context=ctx) or "activity"
            act_types.append(kind)
            bits = [kind]
            dur = as_number(act, "duration_min", problems, context=ctx)
            adist = as_number(act, "distance_km", problems, context=ctx)
            ahr = as_number(act, "avg_hr", problems, context=ctx)
            if dur is not None:
                bits.append(f"{fmt_int(dur)} min")
            if adist is not None:
                bits.append(f"{adist:.1f} km")
            if ahr is not None:
                bits.append(f"avg HR {fmt_int(ahr)}")
            acts.append(" ".join(bits))
        if acts:
            text += " Activities: " + "; ".join(acts) + "."
        meta = {"date": day, "steps": steps, "distance_km": dist, "active_kcal": kcal,
                "resting_hr": rhr, "max_hr": mhr, "stress_avg": stress,
                "sleep_min": s_dur, "sleep_score": s_score, "activities": act_types}
        yield make_chunk(f"{source_file}#day", source_file, self.source_type, text,
                         {k: v for k, v in meta.items() if v not in (None, [])},
                         day or mtime_date(path))


class CGMExtractor(BaseExtractor):
    """``data/health/cgm/<YYYY-MM-DD>.json``: one daily glucose summary chunk."""

    source_type = "cgm"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        day, _ = doc_date(doc, "date", path, problems)
        unit = as_text(doc, "unit", problems) or "mg/dL"
        mean, lo = as_number(doc, "mean", problems), as_number(doc, "min", problems)
        hi, tir = as_number(doc, "max", problems), as_number(doc, "time_in_range_pct", problems)
        count, values = self._readings(doc, problems)
        if values:
            mean = mean if mean is not None else sum(values) / len(values)
            lo = lo if lo is not None else min(values)
            hi = hi if hi is not None else max(values)
        parts = []
        if mean is not None:
            parts.append(f"mean {fmt_int(mean)} {unit}" if unit == "mg/dL"
                         else f"mean {fmt_dec(mean)} {unit}")
        if lo is not None and hi is not None:
            parts.append(f"range {fmt_dec(lo)}–{fmt_dec(hi)} {unit}")
        if tir is not None:
            parts.append(f"{fmt_dec(tir)}% time in range")
        if count is not None:
            parts.append(f"{fmt_int(count)} readings")
        text = f"CGM glucose summary for {_weekday_day(day)}: "
        text += (", ".join(parts) if parts else "no summary values") + "."
        events = []
        for i, ev in enumerate(_object_list(doc, "events", problems)):
            ctx = f"events[{i}]: "
            t = ev.get("time")
            dt = parse_datetime(t) if isinstance(t, str) and len(t) > 8 else None
            clock = dt.strftime("%H:%M") if dt else (as_text(ev, "time", problems, context=ctx)
                                                     or "")
            kind = as_text(ev, "kind", problems, context=ctx) or "event"
            value = as_number(ev, "value", problems, context=ctx)
            note = as_text(ev, "note", problems, context=ctx)
            line = f"{clock} {kind}".strip()
            if value is not None:
                line += f" ({fmt_dec(value)} {unit})"
            if note:
                line += f": {note}"
            events.append(line)
        if events:
            text += " Events: " + "; ".join(events) + "."
        meta = {"date": day, "unit": unit, "mean": mean, "min": lo, "max": hi,
                "time_in_range_pct": tir, "readings": count, "event_count": len(events)}
        yield make_chunk(f"{source_file}#day", source_file, self.source_type, text,
                         {k: v for k, v in meta.items() if v is not None},
                         day or mtime_date(path))

    @staticmethod
    def _readings(doc: dict[str, Any], problems: Problems) -> tuple[int | None, list[float]]:
        """``readings`` is a count, or the list of readings (numbers or {time, value})."""
        raw = doc.get("readings")
        if isinstance(raw, list):
            values: list[float] = []
            for item in raw:
                v = item.get("value") if isinstance(item, dict) else item
                if isinstance(v, int | float) and not isinstance(v, bool):
                    values.append(float(v))
            if len(values) < len(raw):
                problems.add(f"'readings': {len(raw) - len(values)} entries without a numeric "
                             "value ignored")
            return len(values), values
        n = as_number(doc, "readings", problems)
        return (int(n) if n is not None else None), []
