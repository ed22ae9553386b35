"""The messages of a chat window inside a date filter: when they were sent and where they sit.

A window matches a date filter through its messages (engine/retrieval/filters.py), so its row
shows their time, not the window's last day: "what did I do in March" lists a window of
28 March to 3 April as 28–31 March, and its snippet and preview open at the first of them.
Read from the window's ``message_days`` rows (engine/dates/message_days.py): one query a page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from engine.dates.message_days import message_at
from engine.retrieval.filters import Filters
from engine.storage.db import Connection


@dataclass(frozen=True)
class InRange:
    first: str  # "YYYY-MM-DD HH:MM": the first message inside the filter, as the chunk shows it
    last: str  # the last one
    messages: int  # how many of the window's messages are inside it
    start: int  # where the first of them starts in the content
    end: int  # where the last of them ends
    before: int = 0  # the window's messages before the first of them (the preview says so)

    @property
    def days(self) -> str:
        """``2026-03-11``, ``2026-03-11..03-29``, or ``2025-12-30..2026-01-02``."""
        a, b = self.first[:10], self.last[:10]
        if a == b:
            return a
        return f"{a}..{b[5:] if a[:4] == b[:4] else b}"

    @property
    def label(self) -> str:
        """``2026-03-11 14:49``, ``2026-03-11 14:49–16:02``, ``2026-03-11 14:49 – 03-29 10:02``."""
        if self.first == self.last:
            return self.first
        if self.first[:10] == self.last[:10]:
            return f"{self.first}–{self.last[11:]}"
        return f"{self.first} – {self.last[5:] if self.first[:4] == self.last[:4] else self.last}"


def messages_in_range(conn: Connection, rows: Iterable[tuple[int | None, str]],
                      filters: Filters) -> dict[int, InRange]:
    """For each chat window among ``rows`` ((rowid, content)) with a message inside the date
    filter: those messages' times and place. Nothing when the filter has no dates."""
    contents = {rowid: content for rowid, content in rows if rowid is not None}
    if not filters.dated or not contents:
        return {}
    inside: dict[int, list[list[int]]] = {}
    outside: dict[int, list[int]] = {}
    for rowid, day, raw in conn.execute(
            "SELECT chunk_rowid, day, marks FROM message_days WHERE chunk_rowid IN "
            f"({','.join('?' * len(contents))})", list(contents)):
        if filters.day_ok(day):
            inside.setdefault(rowid, []).extend(json.loads(raw))
        else:
            outside.setdefault(rowid, []).extend(m[0] for m in json.loads(raw))
    out = {}
    for rowid, found in inside.items():
        found.sort()
        content = contents[rowid]
        out[rowid] = InRange(first=message_at(content, found[0])[0],
                             last=message_at(content, found[-1])[0], messages=len(found),
                             start=int(found[0][0]), end=int(found[-1][2]),
                             before=sum(1 for at in outside.get(rowid, ()) if at < found[0][0]))
    return out


def time_inside_sql(filters: Filters, alias: str = "c") -> tuple[str, list]:
    """The SQL form of a chunk's time inside the date filter, what browsing by date sorts on: a
    chat window's last message there (:attr:`InRange.last`, read where the last mark of its
    latest day inside says the message line starts), else the chunk's date."""
    days, args = filters.message_day_sql("m")
    return (f"coalesce((SELECT substr({alias}.content, json_extract(m.marks, '$[#-1][0]') + 2, "
            f"16) FROM message_days m WHERE m.chunk_rowid = {alias}.rowid AND {days} "
            f"ORDER BY m.day DESC LIMIT 1), {alias}.content_date)"), args
