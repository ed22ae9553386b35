"""What the timeline returns (engine/dates/timeline.py reads it): a range's days, each day's
source types and their items, the range's counts, and a year's activity calendar. Counts are
messages for a chat type and entries (chunks) for every other (``unit_of``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.dates.message_days import DayMessage, unit_of
from engine.dates.timerange import TimeRange


class TimelineError(ValueError):
    """A date argument that is no date, range or phrase (one line, for the user)."""


@dataclass(frozen=True)
class TimelineItem:
    """An entry (a chunk dated that day), or a conversation's day: the messages one chat log
    holds of that day, the first ``fold`` of them in ``messages``."""

    id: str  # the chunk (a conversation: the window holding its first message listed)
    source_type: str
    source_file: str
    content_date: str
    title: str  # one line: subject, meeting title, channel and senders, section path...
    head: str  # the first line of the content (a conversation: its first message), flattened
    timestamp: str | None = None
    lines: tuple[int, int] | None = None  # messaging windows: first and last line in the file
    line: int | None = None  # records: the JSONL line
    section: int | None = None  # markdown: the section number
    metadata: dict = field(default_factory=dict)
    messages: tuple[DayMessage, ...] = ()  # a conversation's day: the messages listed
    message_count: int = 0  # a conversation's day: its messages that day (listed or not)

    @property
    def more(self) -> int:
        """A conversation's messages of the day not listed."""
        return max(self.message_count - len(self.messages), 0)


@dataclass(slots=True)
class TypeGroup:
    source_type: str
    count: int  # messages (a chat type) or entries of this type on this day
    items: list[TimelineItem] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return unit_of(self.source_type)


@dataclass(slots=True)
class TimelineDay:
    date: str
    count: int  # messages and entries
    groups: list[TypeGroup] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {g.source_type: g.count for g in self.groups}


def split_units(counts: dict[str, int]) -> tuple[int, int]:
    """(messages, entries) in per-type ``counts``."""
    messages = sum(n for t, n in counts.items() if unit_of(t) == "message")
    return messages, sum(counts.values()) - messages


@dataclass
class Timeline:
    range: TimeRange
    days: list[TimelineDay]  # every day with content, in the order asked for
    total: int  # messages and entries in the range
    counts: dict[str, int]  # per source type, over the range (messages or entries: unit_of)
    shown: int  # items carried (at most the limit)
    phrase: str | None = None  # the phrase the range came from, when it came from one
    truncated: bool = False  # the limit left items of the range out (the counts hold them)

    @property
    def messages(self) -> int:
        return split_units(self.counts)[0]

    @property
    def entries(self) -> int:
        return split_units(self.counts)[1]


@dataclass
class Activity:
    """Messages and entries per day of one year: an activity calendar's cells."""

    year: int
    source_type: str | None
    days: dict[str, int]  # "YYYY-MM-DD" -> messages and entries, days without any left out
    total: int  # the sum of ``days``: each message and entry is on one day
    max: int
    messages: int = 0
    entries: int = 0

    def level(self, day: str, levels: int = 4) -> int:
        """0 for an empty day, else 1..levels by the day's share of the busiest day."""
        n = self.days.get(day, 0)
        return 0 if n == 0 or self.max == 0 else max(1, -(-n * levels // self.max))
