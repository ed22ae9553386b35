"""One-JSON-object-per-file documents: meeting, voice, interview_meta.

A file that is not JSON, or whose top level is not an object, raises ExtractError; an empty
file yields nothing. Wrong-typed parts (segments not a list, a segment not an object) are
reported and skipped. The daily health documents (garmin, cgm) are in ``health.py``; the
transcript segments of meeting and voice in ``segments.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import BaseExtractor, Chunk, Problems
from .bounds import FIELD_MAX_CHARS, short
from .common import (
    as_number,
    as_str_list,
    as_text,
    date_from_filename,
    fmt_dec,
    fmt_int,
    fmt_minute,
    iso_timestamp,
    make_chunk,
    mtime_date,
    parse_datetime,
    to_date_str,
)
from .reading import load_json_document
from .segments import Segment, pack_segments, parse_segments


def doc_date(doc: dict[str, Any], key: str, path: Path,
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


HEADER_MAX_CHARS = 2 * FIELD_MAX_CHARS  # each part repeats its header


class _SegmentedDocument(BaseExtractor):
    """Shared by meeting and voice: an optional summary chunk plus packed segment chunks.

    Every part starts with the header (title, time, attendees), so a header over
    HEADER_MAX_CHARS is shortened there and kept whole once, in the ``#summary`` chunk."""

    @staticmethod
    def part_header(header: str, problems: Problems) -> str:
        shown = short(header, HEADER_MAX_CHARS)
        if shown != header:
            problems.cut(f"header (title, time, attendees) is {len(header):,} characters: each "
                         f"part starts with its first {HEADER_MAX_CHARS}, the whole is indexed "
                         "once, in #summary")
        return shown

    def summary_chunk(self, source_file: str, header: str, part_header: str,
                      summary: str | None, meta: dict[str, Any],
                      content_date: str | None) -> Chunk | None:
        """The summary under the whole header; the header alone when only it was cut."""
        if summary is None and part_header == header:
            return None
        text = f"{header}\nSummary: {summary.strip()}" if summary else header
        return make_chunk(f"{source_file}#summary", source_file, self.source_type, text,
                          {**meta, "kind": "summary"}, content_date)

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
        day, ts = doc_date(doc, "date", path, problems)
        content_date = day or mtime_date(path)
        when = fmt_minute(parse_datetime(ts)) if ts else day
        header = f"Meeting: {title}"
        if when:
            header += f" — {when}"
        if attendees:
            header += f" — Attendees: {', '.join(attendees)}"
        meta: dict[str, Any] = {"title": short(title), "attendees": attendees}
        if day:
            meta["date"] = day
        if ts:
            meta["timestamp"] = ts
        segments = parse_segments(doc, problems)
        if summary is None and not segments:
            problems.add("meeting has neither a summary nor segments; nothing indexed")
            return
        shown = self.part_header(header, problems)
        first = self.summary_chunk(source_file, header, shown, summary, meta, content_date)
        if first is not None:
            yield first
        yield from self.segment_chunks(source_file, shown, segments, meta, content_date)


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
        day, ts = doc_date(doc, "recorded_at", path, problems)
        content_date = day or mtime_date(path)
        when = fmt_minute(parse_datetime(ts)) if ts else day
        header = f"Voice memo: {title}" + (f" — recorded {when}" if when else "")
        meta: dict[str, Any] = {"title": short(title)}
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
        shown = self.part_header(header, problems)
        first = self.summary_chunk(source_file, header, shown, None, meta, content_date)
        if first is not None:
            yield first
        yield from self.segment_chunks(source_file, shown, segments, meta, content_date)


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
        day, ts = doc_date(doc, "date", path, problems)
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
