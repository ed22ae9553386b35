"""One-JSON-object-per-file documents: meeting, voice, interview_meta, garmin, cgm.

A file that is not JSON, or whose top level is not an object, raises ExtractError; an empty
file yields nothing. Wrong-typed parts (segments not a list, a segment not an object, a metric
that is not a number) are reported and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from .base import BaseExtractor, Chunk, Problems
from .common import (
    as_number,
    as_str_list,
    as_text,
    date_from_filename,
    fmt_clock,
    fmt_dec,
    fmt_duration,
    fmt_int,
    fmt_minute,
    iso_timestamp,
    make_chunk,
    mtime_date,
    parse_datetime,
    to_date_str,
)
from .reading import load_json_document

SEGMENT_CHUNK_CHARS = 1500


def _doc_date(doc: dict[str, Any], key: str, path: Path,
              problems: Problems) -> tuple[str | None, str | None]:
    """(day, timestamp): the field's date, else the file-name date (None if neither).

    The mtime fallback is applied by the caller to content_date only, never to content or
    metadata, so touching a file does not change its chunks' hashes.
    """
    raw = doc.get(key)
    day = to_date_str(raw) if raw not in (None, "") else None
    if raw not in (None, "") and day is None:
        problems.add(f"field {key!r}: unparseable date {raw!r:.40}")
    ts = iso_timestamp(raw) if day else None
    return day or date_from_filename(path.name), ts


def _seconds(value: Any) -> float | None:
    """Seconds from a number, a numeric string, or 'mm:ss' / 'h:mm:ss'."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    if isinstance(value, str):
        s = value.strip()
        if re.fullmatch(r"\d+(\.\d+)?", s):
            return float(s)
        if re.fullmatch(r"\d+(:\d{1,2}){1,2}(\.\d+)?", s):
            total = 0.0
            for part in s.split(":"):
                total = total * 60 + float(part)
            return total
    return None


@dataclass
class Segment:
    start: float | None
    end: float | None
    speaker: str | None
    text: str

    def label(self) -> str:
        clock = f"[{fmt_clock(self.start)}] " if self.start is not None else ""
        who = f"{self.speaker}: " if self.speaker else ""
        return clock + who


def parse_segments(doc: dict[str, Any], problems: Problems) -> list[Segment]:
    raw = doc.get("segments")
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.add(f"'segments' should be a list, got {type(raw).__name__}; ignored")
        return []
    out: list[Segment] = []
    for i, seg in enumerate(raw):
        ctx = f"segment {i}: "
        if not isinstance(seg, dict):
            problems.add(f"{ctx}should be an object, got {type(seg).__name__}; skipped")
            continue
        text = as_text(seg, "text", problems, context=ctx)
        if text is None:
            continue
        speaker = as_text(seg, "speaker", problems, context=ctx)
        out.append(Segment(_seconds(seg.get("start")), _seconds(seg.get("end")),
                           speaker.strip() if speaker else None, text.strip()))
    return out


def _split_long(text: str, limit: int) -> list[str]:
    """Split text at whitespace into pieces of at most ``limit`` chars (hard cut if needed)."""
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind(" ", 0, limit + 1)
        if cut <= limit // 2:
            cut = limit
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


def pack_segments(header: str, segments: list[Segment],
                  limit: int = SEGMENT_CHUNK_CHARS) -> list[list[tuple[Segment, str]]]:
    """Group labelled segment lines into chunks whose text (header included) stays <= limit.

    A segment too long for one chunk is split at whitespace; each piece keeps its label.
    """
    groups: list[list[tuple[Segment, str]]] = []
    current: list[tuple[Segment, str]] = []
    size = len(header)
    for seg in segments:
        label = seg.label()
        room = max(200, limit - len(header) - 1 - len(label))
        for piece in _split_long(seg.text, room):
            line = label + piece
            if current and size + 1 + len(line) > limit:
                groups.append(current)
                current, size = [], len(header)
            current.append((seg, line))
            size += 1 + len(line)
    if current:
        groups.append(current)
    return groups


class _SegmentedDocument(BaseExtractor):
    """Shared by meeting and voice: an optional summary chunk plus packed segment chunks."""

    def segment_chunks(self, source_file: str, header: str, segments: list[Segment],
                       base_meta: dict[str, Any], content_date: str | None) -> Iterator[Chunk]:
        for i, group in enumerate(pack_segments(header, segments)):
            segs = [s for s, _ in group]
            starts = [s.start for s in segs if s.start is not None]
            ends = [s.end for s in segs if s.end is not None]
            meta = dict(base_meta)
            meta["kind"] = "transcript"
            meta["part"] = i
            speakers = sorted({s.speaker for s in segs if s.speaker})
            if speakers:
                meta["speakers"] = speakers
            if starts:
                meta["start"] = min(starts)
            if ends:
                meta["end"] = max(ends)
            content = header + "\n" + "\n".join(line for _, line in group)
            yield make_chunk(f"{source_file}#c{i}", source_file, self.source_type, content,
                             meta, content_date)


class MeetingExtractor(_SegmentedDocument):
    """``data/meetings/processed/<date>-<slug>.json``: title, date, attendees[], summary,
    segments[{speaker, start, end, text}]."""

    source_type = "meeting"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        title = as_text(doc, "title", problems) or path.stem
        attendees = as_str_list(doc, "attendees", problems)
        summary = as_text(doc, "summary", problems)
        day, ts = _doc_date(doc, "date", path, problems)
        content_date = day or mtime_date(path)
        when = fmt_minute(parse_datetime(ts)) if ts else day
        header = f"Meeting: {title}"
        if when:
            header += f" — {when}"
        if attendees:
            header += f" — Attendees: {', '.join(attendees)}"
        meta: dict[str, Any] = {"title": title, "attendees": attendees}
        if day:
            meta["date"] = day
        if ts:
            meta["timestamp"] = ts
        segments = parse_segments(doc, problems)
        if summary is None and not segments:
            problems.add("meeting has neither a summary nor segments; nothing indexed")
            return
        if summary:
            yield make_chunk(f"{source_file}#summary", source_file, self.source_type,
                             f"{header}\nSummary: {summary.strip()}", {**meta, "kind": "summary"},
                             content_date)
        yield from self.segment_chunks(source_file, header, segments, meta, content_date)


class VoiceExtractor(_SegmentedDocument):
    """``data/voice/<date>-<slug>.json``: recorded_at, title, segments[{start, end, text}].

    Optional: ``speaker`` per segment; a top-level ``text`` used when there are no segments.
    """

    source_type = "voice"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        title = as_text(doc, "title", problems) or path.stem
        day, ts = _doc_date(doc, "recorded_at", path, problems)
        content_date = day or mtime_date(path)
        when = fmt_minute(parse_datetime(ts)) if ts else day
        header = f"Voice memo: {title}" + (f" — recorded {when}" if when else "")
        meta: dict[str, Any] = {"title": title}
        if day:
            meta["date"] = day
        if ts:
            meta["timestamp"] = ts
        segments = parse_segments(doc, problems)
        if not segments:
            text = as_text(doc, "text", problems)
            if text:
                segments = [Segment(None, None, None, p.strip())
                            for p in re.split(r"\n\s*\n", text) if p.strip()]
        if not segments:
            problems.add("voice memo has no transcript segments; nothing indexed")
            return
        yield from self.segment_chunks(source_file, header, segments, meta, content_date)


class InterviewMetaExtractor(BaseExtractor):
    """``data/interviews/sessions/<session>.json``: session_id, date, topic, duration_min,
    question_count, summary. One chunk."""

    source_type = "interview_meta"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        session = as_text(doc, "session_id", problems) or path.stem
        topic, summary = as_text(doc, "topic", problems), as_text(doc, "summary", problems)
        duration = as_number(doc, "duration_min", problems)
        questions = as_number(doc, "question_count", problems)
        day, ts = _doc_date(doc, "date", path, problems)
        head = f"Interview session {session}"
        if day:
            head += f" — {day}"
        if topic:
            head += f": {topic}"
        facts = []
        if duration is not None:
            facts.append(f"{fmt_dec(duration)} min")
        if questions is not None:
            facts.append(f"{fmt_int(questions)} questions")
        lines = [head]
        if facts:
            lines.append("Duration: " + ", ".join(facts))
        if summary:
            lines.append(summary)
        meta: dict[str, Any] = {"session_id": session, "date": day, "topic": topic,
                                "duration_min": duration, "question_count": questions}
        if ts:
            meta["timestamp"] = ts
        yield make_chunk(f"{source_file}#session", source_file, self.source_type,
                         "\n".join(lines), {k: v for k, v in meta.items() if v is not None},
                         day or mtime_date(path))


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


class GarminExtractor(BaseExtractor):
    """``data/health/garmin/<YYYY-MM-DD>.json``: one human-readable daily summary chunk."""

    source_type = "garmin"

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        doc = load_json_document(path, problems)
        if doc is None:
            return
        day, _ = _doc_date(doc, "date", path, problems)

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

        day_parts = []
        if steps is not None:
            day_parts.append(f"{fmt_int(steps)} steps")
        if dist is not None:
            day_parts.append(f"{dist:.1f} km")
        if kcal is not None:
            day_parts.append(f"{fmt_int(kcal)} active kcal")
        if rhr is not None:
            day_parts.append(f"resting HR {fmt_int(rhr)}")
        if mhr is not None:
            day_parts.append(f"max HR {fmt_int(mhr)}")
        if stress is not None:
            day_parts.append(f"avg stress {fmt_int(stress)}")
        if bb_high is not None or bb_low is not None:
            bb_txt = " / ".join(p for p in (
                f"high {fmt_int(bb_high)}" if bb_high is not None else "",
                f"low {fmt_int(bb_low)}" if bb_low is not None else "") if p)
            day_parts.append(f"body battery {bb_txt}")
        text = f"Garmin daily summary for {_weekday_day(day)}: "
        text += (", ".join(day_parts) if day_parts else "no daily totals") + "."
        if s_dur is not None:
            details = []
            if s_deep is not None:
                details.append(f"deep {fmt_duration(s_deep)}")
            if s_rem is not None:
                details.append(f"REM {fmt_duration(s_rem)}")
            if s_score is not None:
                details.append(f"score {fmt_int(s_score)}")
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
        day, _ = _doc_date(doc, "date", path, problems)
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
