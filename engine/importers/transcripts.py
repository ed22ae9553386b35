"""Meeting transcripts (WebVTT / SRT / SBV) -> ``data/meetings/processed/<date>-<slug>.json``.

One ``meeting`` document per transcript file: ``{"title", "date", "attendees",
"segments": [{"speaker"?, "start", "end", "text"}], "source", "tz"?, "language"?}``. Speakers
come from Teams voice spans (``<v Maya Chen>…</v>``) or from a ``Name: text`` prefix (Zoom
transcripts, SRT with names) when most cues have one; plain captions have no speaker. Cue
tags (``<c.x>``, ``<b>``, inline ``<00:17.500>`` timestamps) are removed, entities decoded,
NOTE/STYLE/REGION blocks ignored, and a rolling caption's repeated first line (YouTube style)
dropped. The meeting's date/time comes from the file name (Zoom's ``GMT20240124-202901``, or
any ``YYYY-MM-DD[ HH.MM]``), else the file's modification time (noted).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ._source import SourceTree
from ._util import (
    ImportFailed,
    datetime_from_name,
    iso,
    local,
    slugify,
)
from .base import Importer
from .context import ImportContext

_TS = r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TS}\s*-->\s*{_TS}(?:\s+.*)?$")
_TIMING_LIKE = re.compile(r"^\s*\d[\d:.,]*\s*-{1,2}>")
_SBV_TIMING = re.compile(rf"^\s*{_TS},{_TS}\s*$")
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>")
_TAG = re.compile(r"</?[a-zA-Z][^>]*>|<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{1,3}>")
_PREFIX = re.compile(r"^(?P<name>[^:\n<>]{1,60}?):\s+(?P<text>\S.*)$", re.S)
_ZOOM = re.compile(r"GMT(\d{8})-(\d{6})")
_EXTS = {"vtt": (".vtt",), "srt": (".srt", ".sbv")}


@dataclass
class Cue:
    line: int
    start: float
    end: float
    lines: list[str]


def _secs(h: str | None, m: str, s: str, ms: str) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms.ljust(3, "0")) / 1000


def parse_cues(text: str, label: str, problem) -> tuple[list[Cue], dict[str, str]]:
    """Cues of a VTT/SRT/SBV text, plus VTT header fields (title, Language…)."""
    lines = text.split("\n")
    header: dict[str, str] = {}
    i = 0
    if lines and lines[0].startswith("WEBVTT"):
        title = lines[0][6:].strip(" -\t")
        if title:
            header["title"] = title
        i = 1
        while i < len(lines) and lines[i].strip():
            key, sep, value = lines[i].partition(":")
            if sep and value.strip():
                header[key.strip().lower()] = value.strip()
            i += 1
    cues: list[Cue] = []
    current: Cue | None = None
    skipping = False  # inside a NOTE / STYLE / REGION block
    while i < len(lines):
        raw = lines[i]
        n = i + 1
        i += 1
        m = _TIMING.match(raw) or _SBV_TIMING.match(raw)
        if m:
            skipping = False
            start, end = _secs(*m.groups()[:4]), _secs(*m.groups()[4:])
            if end < start:
                problem(label, n, f"cue ends before it starts ({raw.strip()}); end set to "
                        "its start")
                end = start
            current = Cue(n, start, end, [])
            cues.append(current)
            continue
        if not raw.strip():
            current = None
            skipping = False
            continue
        if raw.strip().isdigit() and i < len(lines) and (
                _TIMING.match(lines[i]) or _SBV_TIMING.match(lines[i])):
            continue  # an SRT cue number right before its timing
        if current is None:
            if raw.startswith(("NOTE", "STYLE", "REGION")):
                skipping = True
            elif not skipping and ("-->" in raw or _TIMING_LIKE.match(raw)):
                problem(label, n, f"unreadable cue timing {raw.strip()[:60]!r}; cue skipped")
                skipping = True
            continue  # a cue identifier or a block's body
        current.lines.append(raw)
    return cues, header


@dataclass
class Segment:
    start: float
    end: float
    speaker: str | None
    text: str


def cue_segments(cues: list[Cue]) -> list[Segment]:
    """Cues to segments: voice spans / name prefixes to speakers, tags removed."""
    raw: list[tuple[Cue, str | None, str]] = []
    prev_last = None
    for cue in cues:
        lines = [ln for ln in cue.lines if ln.strip()]
        # rolling captions repeat the previous cue's last line as their first
        if prev_last is not None and len(lines) > 1 and _plain(lines[0]) == prev_last:
            lines = lines[1:]
        if lines:
            prev_last = _plain(lines[-1])
        joined = "\n".join(lines)
        voices = _VOICE.findall(joined)
        if voices:
            for speaker, text in _voice_parts(joined):
                raw.append((cue, speaker, text))
        else:
            raw.append((cue, None, " ".join(_plain(ln) for ln in lines).strip()))
    with_prefix = sum(1 for _, s, t in raw if s is None and _PREFIX.match(t))
    use_prefix = raw and with_prefix >= 0.5 * len(raw)
    out: list[Segment] = []
    last_speaker = None
    for cue, speaker, text in raw:
        if speaker is None and use_prefix:
            m = _PREFIX.match(text)
            if m:
                speaker, text = m["name"].strip(), m["text"].strip()
            else:
                speaker = last_speaker  # a Zoom cue continuing the same speaker
        text = re.sub(r"\s+", " ", text).strip()
        if not text:
            continue
        last_speaker = speaker or last_speaker
        out.append(Segment(round(cue.start, 3), round(cue.end, 3), speaker, text))
    return out


def _voice_parts(text: str) -> list[tuple[str | None, str]]:
    parts: list[tuple[str | None, str]] = []
    pos = 0
    speaker = None
    for m in _VOICE.finditer(text):
        before = _plain(text[pos:m.start()])
        if before:
            parts.append((speaker, before))
        speaker = m.group(1).strip()
        pos = m.end()
    tail = _plain(text[pos:])
    if tail:
        parts.append((speaker, tail))
    return [(s, re.sub(r"\s+", " ", t)) for s, t in parts]


def _plain(text: str) -> str:
    return html.unescape(_TAG.sub("", text)).strip()


def _title_from_name(stem: str) -> tuple[str, bool]:
    """(title, is_zoom) from a transcript file name."""
    name = re.sub(r"\.(transcript|cc)$", "", stem, flags=re.IGNORECASE)
    zoom = bool(_ZOOM.search(name))
    name = _ZOOM.sub("", name)
    name = re.sub(r"(?<!\d)\d{4}[-_.]?\d{2}[-_.]?\d{2}(?:[ T_.-]+\d{2}[.:h-]?\d{2}"
                  r"(?:[.:-]?\d{2})?)?(?!\d)", "", name)
    name = re.sub(r"[_]+", " ", name).strip(" -_.")
    if zoom and (not name or name.lower() == "recording"):
        return "Zoom meeting", True
    return name or "Meeting", zoom


class _SubtitleImporter(Importer):
    exts: tuple[str, ...] = ()

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        if tree.mode == "file":
            names = tree.names
        else:
            names = [n for n in tree.names if n.lower().endswith(self.exts)]
            # Zoom writes both a speaker transcript and closed captions of one meeting
            transcripts = {n[:-len(".transcript.vtt")] for n in names
                           if n.lower().endswith(".transcript.vtt")}
            dropped = [n for n in names if n.lower().endswith(".cc.vtt")
                       and n[:-len(".cc.vtt")] in transcripts]
            if dropped:
                ctx.skip("Zoom caption files (the .transcript.vtt of the meeting was used)",
                         len(dropped))
            names = [n for n in names if n not in dropped]
            if not names:
                raise ImportFailed(f"{ctx.source}: no {'/'.join(self.exts)} files found")
        for i, name in enumerate(names):
            ctx.progress(i, len(names))
            self._file(ctx, tree, name)
        ctx.progress(len(names), len(names))

    def _file(self, ctx: ImportContext, tree: SourceTree, name: str) -> None:
        label = tree.label(name)
        data = tree.read(name)
        if data is None:
            return
        text = self.text_of(ctx, tree, label, data, "a subtitle transcript")
        if text is None:
            return
        cues, header = parse_cues(text, label, ctx.problem)
        if not cues:
            if tree.mode == "file":
                raise ImportFailed(f"{label}: not a WebVTT/SRT transcript (no cue timings)")
            ctx.problem(label, None, "no cues found; skipped")
            return
        segments = cue_segments(cues)
        if not segments:
            ctx.problem(label, None, "cues hold no text; skipped")
            return
        stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        title, _ = _title_from_name(stem)
        title = header.get("title") or title
        when = self._when(ctx, tree, name, stem, label)
        speakers = list(dict.fromkeys(s.speaker for s in segments if s.speaker))
        doc: dict[str, Any] = {"title": title}
        if when is not None:
            doc["date"] = iso(when)
        doc["attendees"] = speakers
        doc["segments"] = [
            {**({"speaker": s.speaker} if s.speaker else {}), "start": s.start, "end": s.end,
             "text": s.text} for s in segments]
        if header.get("language"):
            doc["language"] = header["language"]
        doc["source"] = name.rsplit("/", 1)[-1]
        doc["tz"] = ctx.tz_name
        day = when.date().isoformat() if when else "undated"
        rel = ctx.document_path("data/meetings/processed",
                                f"{day}-{slugify(title, fallback='meeting', lower=True)}",
                                doc["source"])
        ctx.json_document(rel, doc)
        for speaker in speakers:
            ctx.person(speaker)

    @staticmethod
    def _when(ctx: ImportContext, tree: SourceTree, name: str, stem: str,
              label: str) -> datetime | None:
        m = _ZOOM.search(stem)
        if m:
            try:
                utc = datetime.strptime(m[1] + m[2], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
                return utc.astimezone(ctx.tz)
            except ValueError:
                pass
        dt, _ = datetime_from_name(stem)
        if dt is not None:
            return local(dt, ctx.tz)
        mod = tree.modified(name, ctx.tz)
        ctx.note(f"{label}: no date in the file name; the meeting is dated by the file's "
                 "modification time")
        return mod


class VttImporter(_SubtitleImporter):
    kind = "vtt"
    description = "WebVTT transcripts (Zoom, Teams, captions) -> data/meetings/processed/"
    exts = _EXTS["vtt"]


class SrtImporter(_SubtitleImporter):
    kind = "srt"
    description = "SRT (and YouTube .sbv) transcripts -> data/meetings/processed/"
    exts = _EXTS["srt"]
