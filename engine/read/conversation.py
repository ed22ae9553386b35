"""A hit inside its conversation: the individual messages around a chunk, paged both ways.

Chat logs (slack, telegram, whatsapp, signal) are read from the source file around the window's
``lines`` (docs/data-layer.md), a bounded number of lines each way (:mod:`engine.storage.log_reader`),
so a 540k-message log is never loaded whole. Meetings and voice memos (one JSON document
each) become their segments with speaker and clock; interview transcripts (markdown) their
lines, a ``**Name:**`` prefix read as the speaker. The hit's messages, and those of any other
hits of the same file, are marked. Messages are parsed by the source type's own extractor, so
sender, time and text read exactly as in the chunk.

Paging is by :class:`Cursor` (a position and, for logs, a byte offset), so each page is a seek,
not a re-read from the top. Files are opened only through the caller's ``resolve``: the read
facade passes its path-safety rules (:meth:`engine.index.data_files.DataFiles.resolve`), so there is
one rule for every file a front door may open.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.extractors import CHAT_TYPES, Problems, get_extractor
from engine.extractors.bounds import short
from engine.extractors.common import fmt_clock, fmt_minute
from engine.extractors.documents import HEADER_MAX_CHARS
from engine.extractors.markdown import parse_markdown
from engine.extractors.reading import load_json_document, loads, read_text
from engine.extractors.segments import pack_segments, parse_segments
from engine.extractors.splitting import code_lines
from engine.library_types import parse_metadata
from engine.storage import log_reader
from engine.storage.db import Connection

MESSAGING = CHAT_TYPES
SEGMENTED = ("meeting", "voice")
TRANSCRIPTS = ("transcript",)
CONVERSATION_TYPES = MESSAGING + SEGMENTED + TRANSCRIPTS
SCAN_LINES = 2000  # lines read at most for one page of a log (blank or broken lines included)
_SPEAKER = re.compile(r"^\*\*(?P<who>[^*:]{1,60}):\*\*\s*(?P<text>.*)$|"
                      r"^\*\*(?P<who2>[^*:]{1,60})\*\*:\s*(?P<text2>.*)$")

Resolver = Callable[[str], Path]
Span = tuple[int, int]


class ConversationError(ValueError):
    """Why a conversation cannot be shown (one line, for the user)."""


@dataclass(frozen=True)
class Cursor:
    """Where a page starts (paging back reads before it) or the next one starts."""

    position: int  # a log's line number; a document's 1-based entry number
    offset: int = 0  # byte offset of that line (logs only)


@dataclass(frozen=True)
class ConvMessage:
    position: int
    sender: str
    time: str | None  # "2026-03-14 09:12" in a log, "00:14" (from the start) in a recording
    text: str
    hit: bool = False
    offset: int | None = None  # logs: byte offset of the message's line
    timestamp: str | None = None  # logs: ISO 8601 as written
    kind: str = "message"  # or "heading" (a transcript's section title)


@dataclass(frozen=True)
class ConversationPage:
    source_file: str
    source_type: str
    title: str  # the channel, meeting or memo title
    messages: list[ConvMessage]
    before: Cursor | None  # page backwards from here; None at the start
    after: Cursor | None  # page forwards from here; None at the end
    hits: tuple[Span, ...]  # positions of the marked messages: pass them back when paging
    anchor: str | None = None  # the chunk opened at
    stale: bool = False  # the file changed since it was indexed: positions may be off


# -- opening at a chunk --------------------------------------------------------------------------

def open_conversation(conn: Connection, resolve: Resolver, chunk_id: str, *, before: int = 20,
                      after: int = 20, hit_ids: Iterable[str] = ()) -> ConversationPage:
    """The messages of ``chunk_id`` with up to ``before``/``after`` messages around them.

    ``hit_ids`` (e.g. the current query's results) are marked too where they are in the same
    file; :func:`adjacent_hit` steps between them.
    """
    row = conn.execute("SELECT source_file, source_type, metadata, content FROM chunks "
                       "WHERE id = ?", (chunk_id,)).fetchone()
    if row is None:
        raise ConversationError(f"no chunk {chunk_id!r:.120} in the index")
    source_file, source_type = row[0], row[1]
    if source_type not in CONVERSATION_TYPES:
        raise ConversationError(f"{source_type} chunks are not conversations (only "
                                f"{', '.join(CONVERSATION_TYPES)})")
    path = resolve(source_file)
    stale = _stale(conn, path, source_file)
    siblings = _hit_rows(conn, source_file, [chunk_id, *hit_ids])
    if source_type in MESSAGING:
        lines = parse_metadata(row[2]).get("lines")
        if not (isinstance(lines, list) and len(lines) == 2):
            raise ConversationError(f"{chunk_id!r:.120} has no line numbers; reindex")
        hits = tuple(sorted(_span(m.get("lines")) for m in siblings.values()
                            if _span(m.get("lines"))))
        offset = log_reader.offset_of_line(path, lines[0])
        if offset is None:
            raise ConversationError(f"{source_file} is shorter than when it was indexed; "
                                    "reindex")
        start = Cursor(lines[0], offset)
        count = int(parse_metadata(row[2]).get("message_count") or 10)
        back = _log_page(path, source_file, source_type, start, -1, before, hits)
        fwd = _log_page(path, source_file, source_type, start, 1, count + after, hits)
        return ConversationPage(source_file, source_type, Path(source_file).stem,
                                back.messages + fwd.messages, back.before, fwd.after, hits,
                                chunk_id, stale)
    entries, title, groups = _document(path, source_type, _first_line(row[3]))
    hits = tuple(sorted(span for m in siblings.values()
                        if (span := _doc_span(m, groups)) is not None))
    anchor = _doc_span(siblings.get(chunk_id, {}), groups)
    at = anchor[0] if anchor else 1
    first = max(1, at - before)
    last = (anchor[1] if anchor else at) + after
    return _doc_page(entries, source_file, source_type, title, first, last, hits, chunk_id,
                     stale)


def read_page(resolve: Resolver, source_file: str, source_type: str, cursor: Cursor,
              direction: int, *, count: int = 40, hits: Sequence[Span] = ()) -> ConversationPage:
    """``count`` messages before (``direction`` < 0) or from (> 0) ``cursor``."""
    if source_type not in CONVERSATION_TYPES:
        raise ConversationError(f"{source_type} files are not conversations")
    path = resolve(source_file)
    hits = tuple(hits)
    if source_type in MESSAGING:
        return _log_page(path, source_file, source_type, cursor, direction, count, hits)
    entries, title, _ = _document(path, source_type, None)
    if direction < 0:
        first, last = max(1, cursor.position - count), cursor.position - 1
    else:
        first, last = cursor.position, cursor.position + count - 1
    return _doc_page(entries, source_file, source_type, title, first, last, hits, None, False)


def adjacent_hit(conn: Connection, chunk_id: str, hit_ids: Iterable[str],
                 direction: int) -> str | None:
    """The hit of ``hit_ids`` just after (``direction`` > 0) or before ``chunk_id`` in its
    file, in file order; None when there is none that way."""
    row = conn.execute("SELECT source_file FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    if row is None:
        return None
    rows = _hit_rows(conn, row[0], [chunk_id, *hit_ids])
    if chunk_id not in rows:
        return None
    here = _order(chunk_id, rows[chunk_id])
    keyed = sorted((_order(cid, meta), cid) for cid, meta in rows.items() if cid != chunk_id)
    if direction > 0:
        return next((cid for key, cid in keyed if key > here), None)
    return next((cid for key, cid in reversed(keyed) if key < here), None)


# -- logs ----------------------------------------------------------------------------------------

def _log_page(path: Path, source_file: str, source_type: str, cursor: Cursor, direction: int,
              count: int, hits: tuple[Span, ...]) -> ConversationPage:
    """``count`` messages read from ``cursor`` one way; one more is read to know if the log
    goes on, and where the next page starts."""
    extractor = get_extractor(source_type)
    raw = (log_reader.lines_before(path, cursor.offset, cursor.position) if direction < 0
           else log_reader.lines_after(path, cursor.offset, cursor.position))
    messages = list(_messages(extractor, raw, count + 1, hits))
    extra = messages.pop() if len(messages) > count else None
    if direction < 0:
        messages.reverse()
        first = messages[0] if messages else None
        before = (Cursor(first.position, first.offset) if first else cursor) if extra else None
        after = cursor
    else:
        before = cursor if cursor.offset > 0 else None
        after = Cursor(extra.position, extra.offset) if extra else None
    return ConversationPage(source_file, source_type, Path(source_file).stem, messages,
                            before, after, hits)


def _messages(extractor, raw: Iterator[tuple[int, int, bytes]], want: int,
              hits: tuple[Span, ...]) -> Iterator[ConvMessage]:
    """Parsed messages (blank, broken and skipped lines passed over), at most ``want``."""
    found = 0
    for scanned, (line, offset, data) in enumerate(raw):
        if found >= want or scanned >= SCAN_LINES:
            return
        message = _parse_line(extractor, line, offset, data, hits)
        if message is not None:
            found += 1
            yield message


def _parse_line(extractor, line: int, offset: int, data: bytes,
                hits: tuple[Span, ...]) -> ConvMessage | None:
    text = data.decode("utf-8", "replace")
    if not text.strip():
        return None
    try:
        record = loads(text, Problems())  # numbers out of range read as the extractor reads them
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    msg = extractor.parse_message(line, offset, record, Problems())
    if msg is None:
        return None
    return ConvMessage(line, msg.sender, fmt_minute(msg.dt), msg.text, _marked(line, hits),
                       offset, msg.dt.isoformat())


# -- documents -----------------------------------------------------------------------------------

def _document(path: Path, source_type: str, header: str | None
              ) -> tuple[list[ConvMessage], str, dict]:
    """(entries, title, part or section -> positions) of a meeting, memo or transcript."""
    problems = Problems()
    if source_type in SEGMENTED:
        doc = load_json_document(path, problems) or {}
        segments = parse_segments(doc, problems)
        title = doc.get("title") if isinstance(doc.get("title"), str) else path.stem
        entries = [ConvMessage(i + 1, s.speaker or "", None if s.start is None
                               else fmt_clock(s.start), s.text)
                   for i, s in enumerate(segments)]
        groups: dict = {}
        if header is not None:
            index = {id(s): i + 1 for i, s in enumerate(segments)}
            # the header the parts were packed under (#summary holds it whole)
            for part, group in enumerate(pack_segments(short(header, HEADER_MAX_CHARS),
                                                       segments)):
                groups[("part", part)] = (index[id(group[0][0])], index[id(group[-1][0])])
        return entries, title, groups
    doc = parse_markdown(read_text(path, problems), problems)
    entries, groups, position = [], {}, 0
    for section in doc.sections:
        first = position + 1
        if section.number:
            position += 1
            entries.append(ConvMessage(position, "", None, " > ".join(section.path),
                                       kind="heading"))
        for line, fenced in code_lines(section.lines):
            if not line.strip():
                continue
            m = None if fenced else _SPEAKER.match(line.strip())
            who = (m["who"] or m["who2"]) if m else ""
            said = (m["text"] if m["who"] else m["text2"]) if m else line.strip()
            position += 1
            entries.append(ConvMessage(position, who.strip(), None, said))
        if position >= first:
            groups[("section", section.number)] = (first, position)
    title = doc.first_h1 or path.stem
    return entries, title, groups


def _doc_span(meta: dict, groups: dict) -> Span | None:
    if isinstance(meta.get("part"), int) and meta.get("kind") == "transcript":
        return groups.get(("part", meta["part"]))
    if isinstance(meta.get("section"), int):
        span = groups.get(("section", meta["section"]))
        packed = meta.get("sections")  # short sections packed in one chunk: [first, last]
        if span is not None and isinstance(packed, list) and len(packed) == 2 and all(
                isinstance(n, int) for n in packed):
            ends = [s[1] for n in range(packed[0], packed[1] + 1)
                    if (s := groups.get(("section", n))) is not None]
            return span[0], max(ends)
        return span
    return None


def _doc_page(entries: list[ConvMessage], source_file: str, source_type: str, title: str,
              first: int, last: int, hits: tuple[Span, ...], anchor: str | None,
              stale: bool) -> ConversationPage:
    first, last = max(1, first), min(len(entries), last)
    shown = [ConvMessage(e.position, e.sender, e.time, e.text, _marked(e.position, hits),
                         kind=e.kind) for e in entries[first - 1:last]]
    return ConversationPage(source_file, source_type, title, shown,
                            Cursor(first) if first > 1 else None,
                            Cursor(last + 1) if last < len(entries) else None, hits, anchor,
                            stale)


# -- shared --------------------------------------------------------------------------------------

def _marked(position: int, hits: tuple[Span, ...]) -> bool:
    return any(lo <= position <= hi for lo, hi in hits)




def _span(lines) -> Span | None:
    return (lines[0], lines[1]) if isinstance(lines, list) and len(lines) == 2 else None


def _first_line(content: str) -> str:
    return content.split("\n", 1)[0]


def _hit_rows(conn: Connection, source_file: str, ids: Sequence[str]) -> dict[str, dict]:
    """Metadata of those of ``ids`` that are chunks of ``source_file``."""
    rows = conn.execute("SELECT id, metadata FROM chunks WHERE source_file = ? AND id IN "
                        "(SELECT value FROM json_each(?))",
                        (source_file, json.dumps(list(dict.fromkeys(ids))))).fetchall()
    return {r[0]: parse_metadata(r[1]) for r in rows}


def _order(chunk_id: str, meta: dict) -> tuple:
    """A chunk's place in its file: window lines, meeting part (summary first), section."""
    if _span(meta.get("lines")):
        return (meta["lines"][0], 0)
    if chunk_id.endswith("#summary"):
        return (-1, 0)
    if isinstance(meta.get("part"), int) and meta.get("kind") == "transcript":
        return (meta["part"], 0)
    return (meta.get("section") if isinstance(meta.get("section"), int) else 0,
            meta.get("part") if isinstance(meta.get("part"), int) else 0)


def _stale(conn: Connection, path: Path, source_file: str) -> bool:
    """Whether the file changed since indexed; when not, the indexer's resume point of an
    append-only log is a known line start (docs/data-layer.md: index_state.resume)."""
    row = conn.execute("SELECT mtime, resume FROM index_state WHERE source_file = ?",
                       (source_file,)).fetchone()
    try:
        changed = row is None or os.stat(path).st_mtime != row[0]
    except OSError:
        return True
    if not changed and row[1]:
        point = parse_metadata(row[1])
        if isinstance(point.get("line"), int) and isinstance(point.get("offset"), int):
            log_reader.remember(path, point["line"], point["offset"])
    return changed
