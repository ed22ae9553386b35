"""Whisper JSON transcripts -> ``data/voice/<date>-<slug>.json`` (``voice`` documents).

Reads openai-whisper (``{text, segments[{start, end, text}], language}``), whisper-timestamped
(the same plus word confidences) and WhisperX (``segments[{start, end, text, speaker}]``), and
whisper.cpp ``-oj`` (``{transcription[{offsets{from,to} (ms), text}]}``). Writes
``{"recorded_at", "title", "segments": [{"start", "end", "text", "speaker"?}], "language"?,
"source", "tz"}``; word lists are dropped. Whisper has no wall-clock time: ``recorded_at``
comes from a date/time in the file name, else the file's modification time (noted), in the
configured local zone.
"""

from __future__ import annotations

import re
from typing import Any

from ._util import ImportFailed, datetime_from_name, iso, local, slugify
from .base import Importer
from .context import ImportContext

_AUDIO_EXT = re.compile(r"\.(?:words|json|mp3|m4a|wav|ogg|opus|flac|webm|mp4|aac)$",
                        re.IGNORECASE)


def whisper_segments(doc: Any) -> list[dict[str, Any]] | None:
    """Segments from any of the supported shapes, or None if this is not Whisper output."""
    if not isinstance(doc, dict):
        return None
    out = []
    if isinstance(doc.get("segments"), list):
        for seg in doc["segments"]:
            if not isinstance(seg, dict) or not isinstance(seg.get("text"), str):
                continue
            try:
                start, end = float(seg.get("start")), float(seg.get("end"))
            except (TypeError, ValueError):
                continue
            item: dict[str, Any] = {"start": round(start, 3), "end": round(end, 3),
                                    "text": seg["text"].strip()}
            if isinstance(seg.get("speaker"), str) and seg["speaker"].strip():
                item["speaker"] = seg["speaker"].strip()
            out.append(item)
        return out
    if isinstance(doc.get("transcription"), list):  # whisper.cpp
        for seg in doc["transcription"]:
            if not isinstance(seg, dict) or not isinstance(seg.get("text"), str):
                continue
            offsets = seg.get("offsets") if isinstance(seg.get("offsets"), dict) else {}
            try:
                start, end = float(offsets["from"]) / 1000, float(offsets["to"]) / 1000
            except (KeyError, TypeError, ValueError):
                continue
            out.append({"start": round(start, 3), "end": round(end, 3),
                        "text": seg["text"].strip()})
        return out
    return None


class WhisperImporter(Importer):
    kind = "whisper"
    description = "Whisper / WhisperX / whisper.cpp JSON -> data/voice/<date>-<slug>.json"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        for name, label, _, doc in self.json_files(ctx, tree, "no .json transcripts found"):
            segments = whisper_segments(doc)
            if segments is None:
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not a Whisper transcript (no 'segments' or "
                                       "'transcription')")
                ctx.problem(label, None, "not a Whisper transcript; skipped")
                continue
            empty = sum(1 for s in segments if not s["text"])
            ctx.skip("empty segments", empty)
            segments = [s for s in segments if s["text"]]
            if not segments:
                ctx.problem(label, None, "transcript has no text; skipped")
                continue
            base = name.rsplit("/", 1)[-1]
            stem = base
            while _AUDIO_EXT.search(stem):
                stem = _AUDIO_EXT.sub("", stem)
            naive, _ = datetime_from_name(stem)
            when = local(naive, ctx.tz) if naive else tree.modified(name, ctx.tz)
            if naive is None:
                ctx.note(f"{label}: no date in the file name; recorded_at is the file's "
                         "modification time")
            title = re.sub(r"(?<!\d)\d{4}[-_.]?\d{2}[-_.]?\d{2}(?:[ T_.-]+\d{2}[.:h-]?\d{2}"
                           r"(?:[.:-]?\d{2})?)?(?!\d)", "", stem)
            title = re.sub(r"[_]+", " ", title).strip(" -_.") or "Voice memo"
            out: dict[str, Any] = {}
            if when is not None:
                out["recorded_at"] = iso(when)
            out["title"] = title
            out["segments"] = segments
            if isinstance(doc.get("language"), str):
                out["language"] = doc["language"]
            out["source"] = base
            out["tz"] = ctx.tz_name
            day = when.date().isoformat() if when else "undated"
            rel = ctx.document_path("data/voice",
                                    f"{day}-{slugify(title, fallback='memo', lower=True)}", base)
            ctx.json_document(rel, out)
            for speaker in dict.fromkeys(s.get("speaker") for s in segments):
                ctx.person(speaker)
