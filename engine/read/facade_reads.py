"""The facade's reads by time, by conversation and by person, mixed into
:class:`engine.library.Library` and its snapshots.

Each method reads in one read transaction (``self._index()``), like every facade read, and
fails in one line: :class:`~engine.dates.timeline_types.TimelineError` for a date that is none,
:class:`~engine.read.conversation.ConversationError` for a chunk that is no conversation,
:class:`~engine.library_types.ReadRefused` for a file the path-safety rules refuse
(:mod:`engine.index.data_files`, the one rule for every file a front door may open).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime
from pathlib import Path

from engine.config import Config
from engine.dates import timeline as tl
from engine.dates.timeline_types import Activity, Timeline
from engine.dates.timerange import TimeRange
from engine.index.data_files import DataFiles
from engine.read import conversation as conv
from engine.retrieval.people_filter import PersonFilter, person_filter
from engine.storage.db import Connection


class TimeReads:
    """Timeline, "on this day", activity, conversations and people, over ``_index()``."""

    config: Config
    config_error: str | None = None  # why memlens.toml does not load now (engine/config.py)
    _index: Callable[[], AbstractContextManager[Connection]]

    # -- time ------------------------------------------------------------------------------
    def timeline(self, when: TimeRange | date | str, types: Sequence[str] | None = None,
                 limit: int = 200, *, now: datetime | date | None = None,
                 newest_first: bool = False) -> Timeline:
        """Every message and entry dated in ``when`` (a range, a date, or text: "2026-03-14",
        "2026-03-01..2026-03-15", "March", "last week"), by day then source, with counts."""
        with self._index() as conn:
            return tl.timeline(conn, when, now=now, types=types, limit=limit,
                               newest_first=newest_first)

    def on_this_day(self, now: datetime | date | None = None,
                    month_day: tuple[int, int] | None = None,
                    types: Sequence[str] | None = None, limit: int = 200) -> Timeline:
        """Today's month-day (or ``month_day``) in every earlier year, newest first."""
        with self._index() as conn:
            return tl.on_this_day(conn, now=now, month_day=month_day, types=types, limit=limit)

    def activity(self, year: int, source_type: str | None = None) -> Activity:
        """Messages and entries per day of ``year`` (all source types, or one): a calendar's
        cells."""
        with self._index() as conn:
            return tl.activity(conn, year, source_type)

    # -- conversations -----------------------------------------------------------------------
    def conversation(self, chunk_id: str, before: int = 20, after: int = 20,
                     hit_ids: Iterable[str] = ()) -> conv.ConversationPage:
        """The messages of a messaging, meeting, voice or transcript chunk with up to
        ``before``/``after`` around them; ``hit_ids`` (the query's results) are marked too."""
        with self._index() as conn:
            return conv.open_conversation(conn, self._resolver(conn), chunk_id, before=before,
                                          after=after, hit_ids=hit_ids)

    def conversation_page(self, source_file: str, source_type: str, cursor: conv.Cursor,
                          direction: int, count: int = 40,
                          hits: Sequence[tuple[int, int]] = ()) -> conv.ConversationPage:
        """``count`` messages before (``direction`` < 0) or from ``cursor`` (a page's
        ``before``/``after``); pass the first page's ``hits`` to keep them marked."""
        with self._index() as conn:
            return conv.read_page(self._resolver(conn), source_file, source_type, cursor,
                                  direction, count=count, hits=hits)

    def adjacent_hit(self, chunk_id: str, hit_ids: Iterable[str], direction: int) -> str | None:
        """The hit of ``hit_ids`` just after (> 0) or before ``chunk_id`` in its file."""
        with self._index() as conn:
            return conv.adjacent_hit(conn, chunk_id, hit_ids, direction)

    # -- people ------------------------------------------------------------------------------
    def person(self, name: str) -> PersonFilter | None:
        """Who ``name`` means (typos forgiven, as entity injection forgives them), with their
        aliases and entity files: what ``search(person=...)`` filters by. None for a name
        without two letters."""
        with self._index() as conn:
            return person_filter(conn, self.config.root, name)

    def _resolver(self, conn: Connection) -> Callable[[str], Path]:
        """The facade's path-safety rules as the conversation reader's file opener."""
        files = DataFiles(self.config, self.config_error)
        return lambda rel: files.resolve(rel, lambda r: indexed_file(conn, r))[0]


def indexed_file(conn: Connection, rel: str) -> tuple[str | None, float] | None:
    """(source type, mtime) the last reindex recorded for ``rel``, or None."""
    row = conn.execute("SELECT source_type, mtime FROM index_state WHERE source_file = ?",
                       (rel,)).fetchone()
    return None if row is None else (row[0], row[1])

