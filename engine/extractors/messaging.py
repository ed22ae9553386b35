"""Chat logs (slack, telegram, whatsapp, signal): JSONL, one message per line, windows of 10.

A window holds the next 10 valid messages in file order, or fewer when the next one would take
its text past CHUNK_MAX_CHARS (engine/extractors/bounds.py), so appending messages changes only
the last window and adds new ones; every earlier window keeps its id and hash. A message whose
text alone is longer is cut to that, and the file's report says how many were.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from .base import BaseExtractor, Chunk, MessageMark, Problems
from .bounds import CHUNK_MAX_CHARS, short
from .common import (
    ELEMENT_ERRORS,
    clean_text,
    fmt_minute,
    make_chunk,
    parse_datetime,
    text_value,
)
from .reading import iter_jsonl

WINDOW_SIZE = 10
LEGACY_WHATSAPP_PREFIX = "whatsapp-"
_WHATSAPP_WORD = re.compile(r"^whatsapp[-_ ]+", re.IGNORECASE)
MESSAGE_MAX_CHARS = CHUNK_MAX_CHARS - 200  # room for its "[date time] sender: " line


@dataclass(frozen=True)
class ResumePoint:
    """Where the last window of a log starts: the next read of an appended log begins here."""

    offset: int  # byte offset of the window's first message line
    line: int
    window: int

    def to_json(self) -> dict[str, int]:
        return {"offset": self.offset, "line": self.line, "window": self.window}


@dataclass(frozen=True)
class Message:
    line: int
    offset: int
    dt: datetime
    sender: str
    text: str
    thread: str | None = None


class MessagingExtractor(BaseExtractor):
    """Shared windowing; subclasses name their fields."""

    ts_field = "ts"
    sender_field = "user"
    text_field = "text"
    epoch_unit = "auto"  # how a numeric timestamp is read: "s", "ms" or "auto"
    sender_fallbacks: tuple[str, ...] = ()
    resumable = True

    def __init__(self) -> None:
        self.resume_point: ResumePoint | None = None

    def channel_name(self, path: PurePath) -> str:
        """The chat's name as results show it: the log's file name."""
        return path.stem

    def extract(self, path: Path, source_file: str, problems: Problems,
                resume: ResumePoint | None = None) -> Iterator[Chunk]:
        """Yield the windows; with ``resume``, only those from ``resume.window`` on.

        Windows are fixed by message count from the top of the file, so reading from the first
        message of a window with its index gives exactly the windows a full read would.
        Afterwards ``resume_point`` says where the (possibly partial) last window starts.
        """
        channel = self.channel_name(path)
        window: list[Message] = []
        start = resume or ResumePoint(0, 1, 0)
        index = start.window
        self.resume_point = start
        chars = cut = 0
        for line, offset, record in iter_jsonl(path, problems, start.offset, start.line):
            try:
                msg = self.parse_message(line, offset, record, problems)
            except ELEMENT_ERRORS as exc:  # one bad message never fails the log
                problems.add(f"message unreadable ({type(exc).__name__}); skipped", line=line)
                continue
            if msg is None:
                continue
            if len(msg.text) > MESSAGE_MAX_CHARS:
                msg = replace(msg, text=short(msg.text, MESSAGE_MAX_CHARS))
                cut += 1
            size = len(msg.text) + len(msg.sender) + 20
            if window and chars + size > CHUNK_MAX_CHARS:  # a window is one bounded chunk
                yield self._window_chunk(source_file, channel, index, window)
                index += 1
                window, chars = [], 0
            if not window:
                self.resume_point = ResumePoint(msg.offset, msg.line, index)
            window.append(msg)
            chars += size
            if len(window) == WINDOW_SIZE:
                yield self._window_chunk(source_file, channel, index, window)
                index += 1
                window, chars = [], 0
        if window:
            yield self._window_chunk(source_file, channel, index, window)
        if cut:
            problems.cut(f"{cut:,} message(s) longer than {MESSAGE_MAX_CHARS:,} characters cut "
                         "to that")

    @staticmethod
    def window_of(chunk_id: str) -> int | None:
        """The window index in a chunk id (``…#w12`` -> 12)."""
        _, _, suffix = chunk_id.rpartition("#w")
        return int(suffix) if suffix.isdigit() else None

    # -- parsing ------------------------------------------------------------------

    def parse_message(self, line: int, offset: int, record: dict[str, Any],
                      problems: Problems) -> Message | None:
        text = self.message_text(record.get(self.text_field), line, problems)
        if text is None:
            return None
        raw_ts = record.get(self.ts_field)
        if raw_ts is None:
            problems.add(f"message has no {self.ts_field!r}; skipped", line=line)
            return None
        dt = parse_datetime(raw_ts, epoch_unit=self.epoch_unit)
        if dt is None:
            problems.add(f"unparseable {self.ts_field!r} {raw_ts!r:.60}; message skipped",
                         line=line)
            return None
        return Message(line, offset, dt, self.sender(record), text, self.thread(record))

    def message_text(self, value: Any, line: int, problems: Problems) -> str | None:
        """The message body; None (skipped) for a missing/blank body or a non-text value."""
        return text_value(value, problems, line,
                          f"{self.text_field!r} should be text, got {{type}}; message skipped")

    def sender(self, record: dict[str, Any]) -> str:
        for key in (self.sender_field, *self.sender_fallbacks):
            value = record.get(key)
            if isinstance(value, str) and value.strip():
                return clean_text(value.strip())
            if isinstance(value, int | float) and not isinstance(value, bool):
                return str(value)
        return "unknown"

    def thread(self, record: dict[str, Any]) -> str | None:
        return None

    # -- chunk ----------------------------------------------------------------------

    def _window_chunk(self, source_file: str, channel: str, index: int,
                      msgs: list[Message]) -> Chunk:
        lines, marks, at = [], [], 0
        for m in msgs:
            head = clean_text(f"[{fmt_minute(m.dt)}] {m.sender}: ")
            lines.append(head + clean_text(m.text))
            marks.append(MessageMark(m.dt.date().isoformat(), at, at + len(head),
                                     at + len(lines[-1]), head[12:17]))
            at += len(lines[-1]) + 1
        content = "\n".join(lines)
        first, last = msgs[0], msgs[-1]
        metadata: dict[str, Any] = {
            "channel": channel,
            "window": index,
            "participants": sorted({m.sender for m in msgs}),
            "message_count": len(msgs),
            "first_ts": first.dt.isoformat(),
            "last_ts": last.dt.isoformat(),
            "timestamp": last.dt.isoformat(),
            "lines": [first.line, last.line],
        }
        threads = sorted({m.thread for m in msgs if m.thread})
        if threads:
            metadata["threads"] = threads
        chunk = make_chunk(f"{source_file}#w{index}", source_file, self.source_type, content,
                           metadata, last.dt.date().isoformat(), first.dt.date().isoformat())
        chunk.message_marks = tuple(marks) if chunk.content == content else None
        return chunk


class SlackExtractor(MessagingExtractor):
    """``data/slack/<channel>.jsonl``: {"ts", "user", "text", "thread_ts"}.

    ``ts`` is ISO 8601, or Slack's own epoch-seconds string ("1773479525.000200").
    """

    source_type = "slack"
    ts_field = "ts"
    sender_field = "user"
    text_field = "text"
    epoch_unit = "s"
    sender_fallbacks = ("user_name", "username")

    def thread(self, record: dict[str, Any]) -> str | None:
        value = record.get("thread_ts")
        if isinstance(value, str | int | float) and not isinstance(value, bool) and value != "":
            return str(value)
        return None


class TelegramExtractor(MessagingExtractor):
    """``data/telegram/<chat>.jsonl``: {"date", "from", "text"}.

    ``text`` may also be Telegram Desktop's list of entities (strings and {"type", "text"}
    objects); it is flattened to plain text.
    """

    source_type = "telegram"
    ts_field = "date"
    sender_field = "from"
    text_field = "text"
    epoch_unit = "s"
    sender_fallbacks = ("from_id",)

    def message_text(self, value: Any, line: int, problems: Problems) -> str | None:
        if isinstance(value, list):
            parts: list[str] = []
            for item in value:
                if isinstance(item, str):
                    parts.append(item)
                elif isinstance(item, dict) and isinstance(item.get("text"), str):
                    parts.append(item["text"])
                else:
                    problems.add("'text' entity list holds a non-text item; message skipped",
                                 line=line)
                    return None
            value = "".join(parts)
        return super().message_text(value, line, problems)


class WhatsAppExtractor(TelegramExtractor):
    """``data/whatsapp/<chat>.jsonl``, as the WhatsApp importer writes it: the telegram
    fields plus ``id``, ``tz`` and ``system``. A log at ``data/telegram/whatsapp-<chat>.jsonl``
    (where earlier importers wrote WhatsApp chats) is read the same, its chat named without
    the ``whatsapp-`` prefix."""

    source_type = "whatsapp"

    def channel_name(self, path: PurePath) -> str:
        stem = path.stem
        if path.parent.name != "telegram" or not stem.startswith(LEGACY_WHATSAPP_PREFIX):
            return stem
        # "whatsapp-WhatsApp-Maya": an export named WhatsApp-Maya.txt
        return _WHATSAPP_WORD.sub("", stem[len(LEGACY_WHATSAPP_PREFIX):]) or stem


class SignalExtractor(MessagingExtractor):
    """``data/signal/<thread>.jsonl``: {"timestamp" (epoch ms), "sender", "body"}.

    Epoch timestamps are shown in UTC (deterministic on any machine).
    """

    source_type = "signal"
    ts_field = "timestamp"
    sender_field = "sender"
    text_field = "body"
    epoch_unit = "ms"
    sender_fallbacks = ("source",)
