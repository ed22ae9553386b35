"""The timeline over a real indexed root: days, source groups, counts, "on this day", activity."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from engine.config import load_config
from engine.dates.timeline import activity, on_this_day, timeline
from engine.dates.timeline_types import TimelineError
from engine.dates.timerange import TimeRange, period, shift
from engine.indexer import reindex
from engine.storage.db import connect

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def build_life_root(root: Path) -> Path:
    """Three days in March 2026 across sources, and 14 March of two earlier years."""
    _jsonl(root / "data/slack/general.jsonl", [
        {"ts": f"2026-03-14T09:{m:02d}:00-08:00", "user": "Maya Chen" if m % 2 else "Sam Ortiz",
         "text": f"route import note {m}"} for m in range(12)])
    _jsonl(root / "data/journal/2026.jsonl", [
        {"id": "j1", "date": "2026-03-14T21:40:00", "title": "Long ride", "text": "80 km."},
        {"id": "j2", "date": "2026-03-15", "title": "Rest day", "text": "Slept in."},
        {"id": "j0", "date": "2025-03-14", "title": "A year ago", "text": "Snow."},
        {"id": "jx", "date": "2024-03-14", "title": "Two years ago", "text": "Rain."}])
    garmin = root / "data/health/garmin/2026-03-14.json"
    garmin.parent.mkdir(parents=True)
    garmin.write_text(json.dumps({"date": "2026-03-14", "steps": 11204}))
    _jsonl(root / "data/email/catalog/mail.jsonl", [
        {"id": "m1", "date": "2026-03-16T08:00:00", "from": "Maya Chen", "to": ["Me"],
         "subject": "Climbing trip logistics", "summary": "Joshua Tree in April?"}])
    return root


@pytest.fixture(scope="module")
def life(tmp_path_factory):
    root = build_life_root(tmp_path_factory.mktemp("life") / "root")
    config = load_config(root)
    stats = reindex(config=config)
    assert not stats.errors
    conn = connect(config.db_path, readonly=True)
    yield conn
    conn.close()


def test_a_day_groups_every_source_with_counts(life):
    tl = timeline(life, "2026-03-14", now=NOW)
    assert [d.date for d in tl.days] == ["2026-03-14"]
    day = tl.days[0]
    # the journal and the Garmin day first, then the conversation (engine.dates.timeline.TYPE_ORDER)
    # a chat log counts its messages (12, over two windows), every other type its entries
    assert day.counts == {"journal": 1, "garmin": 1, "slack": 12}
    assert [g.unit for g in day.groups] == ["entry", "entry", "message"]
    assert [g.source_type for g in day.groups] == ["journal", "garmin", "slack"]
    assert (tl.total, tl.messages, tl.entries) == (14, 12, 2)
    assert tl.shown == 3 and not tl.truncated
    # the log's day is one item listing its first 8 messages; the other 4 are "more"
    (log,) = day.groups[2].items
    assert log.id == "data/slack/general.jsonl#w0" and log.message_count == 12
    assert log.title == "general: 12 messages — Sam Ortiz, Maya Chen"
    assert [m.text for m in log.messages] == [f"route import note {m}" for m in range(8)]
    assert log.more == 4 and log.timestamp == "2026-03-14T09:00"
    assert log.messages[1] == ("2026-03-14 09:01", "Maya Chen", "route import note 1",
                               "data/slack/general.jsonl#w0")
    whole = timeline(life, "2026-03-14", now=NOW, fold=20).days[0].groups[2].items[0]
    assert [m.chunk_id[-2:] for m in whole.messages] == ["w0"] * 10 + ["w1"] * 2
    assert day.groups[0].items[0].title == "Long ride"


def test_a_phrase_range_and_type_filter(life):
    tl = timeline(life, "last week", now=NOW)  # 2026-03-09..2026-03-15
    assert tl.range == TimeRange(date(2026, 3, 9), date(2026, 3, 15))
    assert tl.phrase == "last week"
    assert [d.date for d in tl.days] == ["2026-03-14", "2026-03-15"]
    assert tl.counts == {"journal": 2, "garmin": 1, "slack": 12}
    mail = timeline(life, "2026-03-01..2026-03-31", types=["email_catalog"])
    assert [(d.date, d.count) for d in mail.days] == [("2026-03-16", 1)]
    assert mail.days[0].groups[0].items[0].title == "Climbing trip logistics"


def test_limit_keeps_counts_whole(life):
    tl = timeline(life, "March 2026", now=NOW, limit=3)
    assert tl.total == 16 and tl.shown == 3 and tl.truncated
    assert [d.count for d in tl.days] == [14, 1, 1]  # counts for every day, items only to 3
    assert sum(len(g.items) for d in tl.days for g in d.groups) == 3
    assert not timeline(life, "March 2026", now=NOW, limit=5).truncated
    newest = timeline(life, "March 2026", now=NOW, limit=1, newest_first=True)
    assert newest.days[0].date == "2026-03-16" and newest.shown == 1


def test_on_this_day_is_earlier_years_newest_first(life):
    tl = on_this_day(life, now=datetime(2026, 3, 14, 12, 0))
    assert [d.date for d in tl.days] == ["2025-03-14", "2024-03-14"]
    assert tl.range.kind == "on_this_day"
    same = timeline(life, "on this day", now=datetime(2026, 3, 14, 12, 0))
    assert [d.date for d in same.days] == ["2024-03-14", "2025-03-14"]


def test_activity_counts_per_day(life):
    act = activity(life, 2026)
    assert act.days == {"2026-03-14": 14, "2026-03-15": 1, "2026-03-16": 1}
    assert (act.total, act.max, act.messages, act.entries) == (16, 14, 12, 4)
    assert act.level("2026-03-14") == 4 and act.level("2026-03-15") == 1
    assert act.level("2026-01-01") == 0
    assert activity(life, 2026, "garmin").days == {"2026-03-14": 1}
    assert activity(life, 2019).days == {}


def test_not_a_date_is_one_clear_error(life):
    with pytest.raises(TimelineError, match="not a date, range or time phrase"):
        timeline(life, "march on", now=NOW)


def test_period_and_shift_step_by_day_week_month():
    day = date(2026, 1, 31)
    assert period(day, "week") == TimeRange(date(2026, 1, 26), date(2026, 2, 1))
    assert period(day, "month") == TimeRange(date(2026, 1, 1), date(2026, 1, 31))
    assert shift(day, "month", 1) == date(2026, 2, 28)
    assert shift(day, "week", -1) == date(2026, 1, 24)
    assert shift(day, "day", 1) == date(2026, 2, 1)
