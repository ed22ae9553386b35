"""Timed transcript segments of meeting and voice documents, and their packing into chunks.

Also read by ``engine/read/conversation.py``, which pages a transcript in the same chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .base import Problems
from .common import as_text, fmt_clock

SEGMENT_CHUNK_CHARS = 1500


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
