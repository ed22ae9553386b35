"""Every chat message's day and place in the index, and the counts the timeline reads.

A chat window (engine/extractors/messaging.py) is one chunk of up to ten messages that may be
sent over several days. The timeline, the activity calendar and their counts are in messages,
so the index keeps a ``message_days`` row per window and per day its messages were sent on:
its log and window, how many of them, the first one's minute (a day's conversations are
ordered without reading them), and where each sits in the window's content (``[start,
text_at, end]``: where its ``[YYYY-MM-DD HH:MM] sender: `` line starts, where its text starts
and ends). The content holds the rest, so a message's time and sender always read as the chunk
shows them.

``day_counts`` holds, per source type and day, the entries (chunks dated that day) and the
messages (chat messages sent that day). Triggers keep it in step with every write and delete of
``chunks`` and ``message_days``, so a year's counts are ~366 rows per type to read, not a scan
of every chunk or message (engine/dates/timeline.py). A chat type is counted in messages, every
other type in entries (:func:`unit_of`).

A row per window and day, not per message: at 500k demo chunks, 756k rows for 4.4M messages
(docs/benchmarks.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import NamedTuple

from engine.extractors.base import MessageMark
from engine.storage.db import Connection

MESSAGE_DAYS_DDL = [
    "CREATE TABLE IF NOT EXISTS message_days ("
    "chunk_rowid INTEGER NOT NULL, day TEXT NOT NULL, source_type TEXT NOT NULL, "
    "source_file TEXT NOT NULL, window INTEGER NOT NULL, messages INTEGER NOT NULL, "
    "first_time TEXT NOT NULL, marks TEXT NOT NULL, PRIMARY KEY (chunk_rowid, day)) "
    "WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS message_days_by_day ON message_days(source_type, day)",
    "CREATE TABLE IF NOT EXISTS day_counts ("
    "source_type TEXT NOT NULL, day TEXT NOT NULL, entries INTEGER NOT NULL DEFAULT 0, "
    "messages INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (source_type, day)) WITHOUT ROWID",
    # a window's message rows go with it, and with its content (nothing rewrites content in
    # place today; this keeps the rows right if something does)
    "CREATE TRIGGER IF NOT EXISTS chunks_days_md_ad AFTER DELETE ON chunks BEGIN "
    "DELETE FROM message_days WHERE chunk_rowid = old.rowid; END",
    "CREATE TRIGGER IF NOT EXISTS chunks_days_md_au AFTER UPDATE OF content ON chunks "
    "WHEN new.content IS NOT old.content BEGIN "
    "DELETE FROM message_days WHERE chunk_rowid = old.rowid; END",
    # entries: every chunk with a date counts on its day
    "CREATE TRIGGER IF NOT EXISTS chunks_days_ai AFTER INSERT ON chunks "
    "WHEN new.content_date IS NOT NULL BEGIN "
    "INSERT INTO day_counts(source_type, day, entries) VALUES (new.source_type, "
    "new.content_date, 1) ON CONFLICT DO UPDATE SET entries = entries + 1; END",
    "CREATE TRIGGER IF NOT EXISTS chunks_days_ad AFTER DELETE ON chunks "
    "WHEN old.content_date IS NOT NULL BEGIN "
    "UPDATE day_counts SET entries = entries - 1 "
    "WHERE source_type = old.source_type AND day = old.content_date; "
    "DELETE FROM day_counts WHERE source_type = old.source_type AND day = old.content_date "
    "AND entries <= 0 AND messages <= 0; END",
    "CREATE TRIGGER IF NOT EXISTS chunks_days_au AFTER UPDATE OF content_date, source_type "
    "ON chunks BEGIN "
    "UPDATE day_counts SET entries = entries - 1 "
    "WHERE source_type = old.source_type AND day = old.content_date; "
    "INSERT INTO day_counts(source_type, day, entries) SELECT new.source_type, "
    "new.content_date, 1 WHERE new.content_date IS NOT NULL "
    "ON CONFLICT DO UPDATE SET entries = entries + 1; END",
    # messages: a window's rows count on their days
    "CREATE TRIGGER IF NOT EXISTS message_days_ai AFTER INSERT ON message_days BEGIN "
    "INSERT INTO day_counts(source_type, day, messages) VALUES (new.source_type, new.day, "
    "new.messages) ON CONFLICT DO UPDATE SET messages = messages + excluded.messages; END",
    "CREATE TRIGGER IF NOT EXISTS message_days_ad AFTER DELETE ON message_days BEGIN "
    "UPDATE day_counts SET messages = messages - old.messages "
    "WHERE source_type = old.source_type AND day = old.day; "
    "DELETE FROM day_counts WHERE source_type = old.source_type AND day = old.day "
    "AND entries <= 0 AND messages <= 0; END",
]

# a message line's head as written by the messaging extractor: "[2026-03-14 09:12] "
_HEAD = re.compile(r"\[(\d{4}-\d\d-\d\d) \d\d:\d\d\] ")
HEAD_CHARS = len("[2026-03-14 09:12] ")


class DayMessage(NamedTuple):
    """One message as the timeline lists it."""

    time: str  # "YYYY-MM-DD HH:MM" as the chunk shows it
    sender: str
    text: str
    chunk_id: str  # the window holding it (the conversation view opens there)


@cache
def chat_types() -> tuple[str, ...]:
    """The chat types (engine/extractors), read once: the extractors are no part of the schema."""
    from engine.extractors import CHAT_TYPES

    return CHAT_TYPES


def unit_of(source_type: str) -> str:
    """What a type is counted in: "message" for chat types, "entry" for the others."""
    return "message" if source_type in chat_types() else "entry"


def message_at(content: str, mark: Sequence[int]) -> tuple[str, str, str]:
    """(time, sender, text) of the message whose mark is ``[start, text_at, end]``."""
    start, text_at, end = (int(v) for v in mark[:3])
    return (content[start + 1:start + 17], content[start + HEAD_CHARS:text_at - 2],
            content[text_at:end])


def store(conn: Connection, rows: Iterable[tuple[int, str, str, Sequence[MessageMark]]]) -> int:
    """Write the message rows of new windows: ``(chunk_rowid, chunk id, source_type, marks)``.
    Returns how many messages were written (the writer's transaction)."""
    out, written = [], 0
    for rowid, chunk_id, source_type, marks in rows:
        source_file, _, window = chunk_id.rpartition("#w")
        by_day: dict[str, list[MessageMark]] = {}
        for mark in marks:
            by_day.setdefault(mark.day, []).append(mark)
        for day, found in by_day.items():
            out.append((rowid, day, source_type, source_file, int(window), len(found),
                        found[0].minute, json.dumps([[m.start, m.text_at, m.end]
                                                     for m in found])))
            written += len(found)
    conn.executemany("INSERT INTO message_days(chunk_rowid, day, source_type, source_file, "
                     "window, messages, first_time, marks) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", out)
    return written


def parse_marks(content: str, senders: Iterable[str], count: int) -> list[MessageMark] | None:
    """The marks of a window written before the index kept them, read back from its content:
    each message line starts with its minute and a sender the window names. None unless exactly
    ``count`` messages are found (a text that itself holds such a line): that window's file is
    then read again instead (:func:`backfill`)."""
    names = sorted({s for s in senders if isinstance(s, str)}, key=len, reverse=True)
    marks: list[MessageMark] = []
    at = 0
    while at <= len(content):
        m = _HEAD.match(content, at)
        if m is None:
            return None
        sender_at = m.end()
        name = next((n for n in names if content.startswith(f"{n}: ", sender_at)), None)
        if name is None:
            return None
        text_at = sender_at + len(name) + 2
        nxt = _next_head(content, text_at, names)
        marks.append(MessageMark(m[1], at, text_at, len(content) if nxt is None else nxt,
                                 content[at + 12:at + 17]))
        if nxt is None:
            break
        at = nxt + 1
    return marks if len(marks) == count else None


def window_days(content: str, metadata: Mapping) -> frozenset[str] | None:
    """The days a chat window's messages were sent on, read from its content (the in-memory
    form of its ``message_days`` rows; engine/retrieval/filters.py); None when the content does
    not read back exactly (:func:`parse_marks`)."""
    found = parse_marks(content, metadata.get("participants") or (),
                        metadata.get("message_count", -1))
    return None if found is None else frozenset(m.day for m in found)


def _next_head(content: str, after: int, names: list[str]) -> int | None:
    """The newline before the next message line at or after ``after``, or None."""
    at = content.find("\n[", after)
    while at != -1:
        m = _HEAD.match(content, at + 1)
        if m and any(content.startswith(f"{n}: ", m.end()) for n in names):
            return at
        at = content.find("\n[", at + 1)
    return None


def backfill(conn: Connection, progress: Callable[[int, int], None] | None = None) -> int:
    """Give every chat window of an older index its message rows, and ``day_counts`` its counts
    (the migration to v7). A window whose content cannot be read back exactly gets none: its
    file is marked to be read again whole by the next reindex, which writes them. Returns the
    windows marked so."""
    chat = chat_types()
    conn.execute("DELETE FROM message_days")  # a run that starts over finds it done in part
    conn.execute("DELETE FROM day_counts")
    conn.execute("INSERT INTO day_counts(source_type, day, entries) SELECT source_type, "
                 "content_date, count(*) FROM chunks WHERE content_date IS NOT NULL "
                 "GROUP BY source_type, content_date")
    marks = ",".join("?" * len(chat))
    total = conn.execute(f"SELECT count(*) FROM chunks WHERE source_type IN ({marks})",
                         chat).fetchone()[0]
    cursor = conn.execute(f"SELECT rowid, id, source_type, source_file, content, metadata "
                          f"FROM chunks WHERE source_type IN ({marks})", chat)
    done = unread = 0
    unread_files: set[str] = set()
    while batch := cursor.fetchmany(2000):
        rows = []
        for rowid, chunk_id, source_type, source_file, content, raw in batch:
            meta = _json(raw)
            found = parse_marks(content, meta.get("participants") or (),
                                meta.get("message_count", -1))
            if found is None:
                unread += 1
                unread_files.add(source_file)
            else:
                rows.append((rowid, chunk_id, source_type, found))
        store(conn, rows)
        done += len(batch)
        if progress:
            progress(done, total)
    # read whole by the next reindex (no resume point), which gives these windows their rows
    conn.executemany("UPDATE index_state SET mtime = -1, resume = NULL WHERE source_file = ?",
                     [(f,) for f in sorted(unread_files)])
    return unread


def _json(raw: str | None) -> dict:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
