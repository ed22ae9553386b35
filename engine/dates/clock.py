"""The one place memlens reads the wall clock.

Everything that needs the current time ("today" for a time phrase, a timeline's default day,
the stamp of a reindex, the start of a writer's lock) asks :func:`now`. Setting
``MEMLENS_NOW`` pins it for a whole process tree: the command line, the MCP server, the watcher
and the app all agree on one "now" (a testing aid: a test dates a root, pins the clock, and
asks a subprocess about "last week" on any calendar day). Its value is an ISO 8601 date or
time: ``2026-11-30`` (noon that day), ``2026-11-30T09:15:00`` (local time) or with an offset
(``2026-11-30T09:15:00+01:00``, kept in that zone, so "today" is that zone's date).
"""

from __future__ import annotations

import os
from datetime import date, datetime, time

from engine.display import OneLineError

ENV = "MEMLENS_NOW"


class ClockError(OneLineError, ValueError):
    """``MEMLENS_NOW`` holds something that is no date or time."""


def now() -> datetime:
    """The current moment, timezone-aware: ``MEMLENS_NOW`` when set, else the wall clock in
    the machine's local zone (content dates are local, so "today" is the user's date)."""
    pinned = os.environ.get(ENV, "").strip()
    if pinned:
        return parse_pinned(pinned)
    return datetime.now().astimezone()


def today() -> date:
    return now().date()


def parse_pinned(text: str) -> datetime:
    try:
        moment = (datetime.combine(date.fromisoformat(text), time(12)) if len(text) == 10
                  else datetime.fromisoformat(text))
    except ValueError:
        raise ClockError(f"{ENV}={text[:40]!r} is not a date or time "
                         "(e.g. 2026-11-30 or 2026-11-30T09:15:00)") from None
    return moment if moment.tzinfo is not None else moment.astimezone()
