"""Time phrases: a table of phrases and the ranges they mean for fixed clocks (engine/dates/timephrase.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from engine.dates.timephrase import TimeRange, parse_time_phrase, resolve_time, search_time

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # a Tuesday, ISO week 49
SPRING = datetime(2026, 4, 15, 10, 0, tzinfo=UTC)  # for months still ahead this year


def d(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


# (query, now, expected since, expected until, phrase as written, text left for the arms)
TABLE = [
    ("dinner with Maya yesterday", NOW, "2026-11-30", "2026-11-30", "yesterday", "dinner with Maya"),
    ("what happened today", NOW, "2026-12-01", "2026-12-01", "today", "what happened"),
    ("dinner with Maya last week", NOW, "2026-11-23", "2026-11-29", "last week", "dinner with Maya"),
    ("runs this week", NOW, "2026-11-30", "2026-12-06", "this week", "runs"),
    ("plans next week", NOW, "2026-12-07", "2026-12-13", "next week", "plans"),
    ("sleep this month", NOW, "2026-12-01", "2026-12-31", "this month", "sleep"),
    ("sleep last month", NOW, "2026-11-01", "2026-11-30", "last month", "sleep"),
    ("trips last year", NOW, "2025-01-01", "2025-12-31", "last year", "trips"),
    ("goals this year", NOW, "2026-01-01", "2026-12-31", "this year", "goals"),
    ("what did I do in March", NOW, "2026-03-01", "2026-03-31", "in March", "what did I do"),
    ("what did I do in March?", NOW, "2026-03-01", "2026-03-31", "in March", "what did I do?"),
    ("what did I do in June", SPRING, "2025-06-01", "2025-06-30", "in June", "what did I do"),
    ("in December", NOW, "2026-12-01", "2026-12-31", "in December", ""),
    ("notes during april", NOW, "2026-04-01", "2026-04-30", "during april", "notes"),
    ("last March hikes", NOW, "2026-03-01", "2026-03-31", "last March", "hikes"),
    ("last December", NOW, "2025-12-01", "2025-12-31", "last December", ""),
    ("this March", SPRING, "2026-03-01", "2026-03-31", "this March", ""),
    ("board March 2026", NOW, "2026-03-01", "2026-03-31", "March 2026", "board"),
    ("in May 2025 we moved", NOW, "2025-05-01", "2025-05-31", "in May 2025", "we moved"),
    ("rides last summer", NOW, "2026-06-01", "2026-08-31", "last summer", "rides"),
    ("rides last summer", datetime(2026, 7, 15), "2025-06-01", "2025-08-31", "last summer",
     "rides"),
    ("ski this winter", NOW, "2026-12-01", "2027-02-28", "this winter", "ski"),
    ("ski last winter", NOW, "2025-12-01", "2026-02-28", "last winter", "ski"),
    ("winter 2025 trips", NOW, "2025-12-01", "2026-02-28", "winter 2025", "trips"),
    ("in the autumn", NOW, "2026-09-01", "2026-11-30", "in the autumn", ""),
    ("since June", NOW, "2026-06-01", None, "since June", ""),
    ("before 2025", NOW, None, "2024-12-31", "before 2025", ""),
    ("after May 2026", NOW, "2026-06-01", None, "after May 2026", ""),
    ("until March", NOW, None, "2026-03-31", "until March", ""),
    ("in 2025", NOW, "2025-01-01", "2025-12-31", "in 2025", ""),
    ("between March and May", NOW, "2026-03-01", "2026-05-31", "between March and May", ""),
    ("from March to May", NOW, "2026-03-01", "2026-05-31", "from March to May", ""),
    ("between November and February", NOW, "2025-11-01", "2026-02-28",
     "between November and February", ""),
    ("between 2023 and 2024", NOW, "2023-01-01", "2024-12-31", "between 2023 and 2024", ""),
    ("two weeks ago", NOW, "2026-11-16", "2026-11-22", "two weeks ago", ""),
    ("3 days ago", NOW, "2026-11-28", "2026-11-28", "3 days ago", ""),
    ("a month ago", NOW, "2026-11-01", "2026-11-30", "a month ago", ""),
    ("a couple of weeks ago", NOW, "2026-11-16", "2026-11-22", "a couple of weeks ago", ""),
    ("past 7 days", NOW, "2026-11-25", "2026-12-01", "past 7 days", ""),
    ("on 14 March", NOW, "2026-03-14", "2026-03-14", "on 14 March", ""),
    ("on 25 December", NOW, "2025-12-25", "2025-12-25", "on 25 December", ""),
    ("14 March 2026 ride", NOW, "2026-03-14", "2026-03-14", "14 March 2026", "ride"),
    ("March 14", NOW, "2026-03-14", "2026-03-14", "March 14", ""),
    ("March 14th, 2025", NOW, "2025-03-14", "2025-03-14", "March 14th, 2025", ""),
    ("Mar 3 standup", NOW, "2026-03-03", "2026-03-03", "Mar 3", "standup"),
    ("on the 4th of July", NOW, "2026-07-04", "2026-07-04", "on the 4th of July", ""),
    ("garmin 2026-03-14", NOW, "2026-03-14", "2026-03-14", "2026-03-14", "garmin"),
    ("on 2026-03-14", NOW, "2026-03-14", "2026-03-14", "on 2026-03-14", ""),
    ("2026-03-01..2026-03-15 slack", NOW, "2026-03-01", "2026-03-15", "2026-03-01..2026-03-15",
     "slack"),
    ("2026-03", NOW, "2026-03-01", "2026-03-31", "2026-03", ""),
    ("scratch 2026-W11", NOW, "2026-03-09", "2026-03-15", "2026-W11", "scratch"),
    ("climbing last Sunday", NOW, "2026-11-29", "2026-11-29", "last Sunday", "climbing"),
    ("dinner on Sunday", NOW, "2026-11-29", "2026-11-29", "on Sunday", "dinner"),
    ("since Monday", NOW, "2026-11-30", None, "since Monday", ""),
    ("today's weather", NOW, "2026-12-01", "2026-12-01", "today's", "weather"),
    ("last week's runs", NOW, "2026-11-23", "2026-11-29", "last week's", "runs"),
    ("2026-03-01 - 2026-03-15", NOW, "2026-03-01", "2026-03-15", "2026-03-01 - 2026-03-15", ""),
    ("the summer of 2025", NOW, "2025-06-01", "2025-08-31", "the summer of 2025", ""),
    ("hike last weekend", NOW, "2026-11-28", "2026-11-29", "last weekend", "hike"),
    ("board Q2 2026", NOW, "2026-04-01", "2026-06-30", "Q2 2026", "board"),
    ("from June to August", NOW, "2026-06-01", "2026-08-31", "from June to August", ""),
    ("between 2025 and 2024", NOW, "2024-01-01", "2025-12-31", "between 2025 and 2024", ""),
    # one year written for both ends: the other end takes it (not today's recent year)
    ("where between August 11 and August 15 2023", NOW, "2023-08-11", "2023-08-15",
     "between August 11 and August 15 2023", "where"),
    ("between March and May 2023", NOW, "2023-03-01", "2023-05-31",
     "between March and May 2023", ""),
    ("between December 28 and January 3 2024", NOW, "2023-12-28", "2024-01-03",
     "between December 28 and January 3 2024", ""),
    ("from 3 March 2025 to 9 March", NOW, "2025-03-03", "2025-03-09",
     "from 3 March 2025 to 9 March", ""),
    # a year right after the comma
    ("shared on December 1,2023", NOW, "2023-12-01", "2023-12-01", "on December 1,2023",
     "shared"),
    ("on 5 May,2024", NOW, "2024-05-05", "2024-05-05", "on 5 May,2024", ""),
    # "3,2000" is no thousands grouping: a year; "3,2000,000" is one: not a year
    ("on May 3,2000 people came", NOW, "2000-05-03", "2000-05-03", "on May 3,2000",
     "people came"),
    ("on May 3,2000,000 people came", NOW, "2026-05-03", "2026-05-03", "on May 3",
     "2000,000 people came"),
    # Feb 29 of the common year the other end names: the last day of that February
    ("between Feb 29 and March 3 2023", NOW, "2023-02-28", "2023-03-03",
     "between Feb 29 and March 3 2023", ""),
    ("from December 30 to January 2 2024", NOW, "2023-12-30", "2024-01-02",
     "from December 30 to January 2 2024", ""),
    ("between March 2023 and May", NOW, "2023-03-01", "2023-05-31",
     "between March 2023 and May", ""),
    # no year on either end: the first end is read in the year of the last, never years apart
    ("from Feb 29 to Mar 3", NOW, "2026-02-28", "2026-03-03", "from Feb 29 to Mar 3", ""),
    ("between March 1 and March 5", datetime(2026, 3, 3, tzinfo=UTC), "2025-03-01",
     "2025-03-05", "between March 1 and March 5", ""),
]


@pytest.mark.parametrize("query,now,since,until,phrase,text", TABLE,
                         ids=[f"{row[0]}@{row[1]:%m-%d}" for row in TABLE])
def test_phrase_table(query, now, since, until, phrase, text):
    found = parse_time_phrase(query, now)
    assert found.range == TimeRange(d(since), d(until))
    assert found.phrase == phrase
    assert found.text == text


# Words that only look like dates: no range, the query unchanged.
NOT_DATES = [
    "I may go climbing",
    "may the force be with you",
    "May the force be with you",
    "march on",
    "Sunday roast recipe",
    "August Rush soundtrack",
    "the 4th of July party",
    "second opinion",
    "a date with Sam",
    "budget 2025 draft",
    "summer camp ideas",
    "the last mile",
    "dec meeting notes",
    "3 days hiking trip",
    "route 66 ride",
    "message from June",
    "a note from April",
]


@pytest.mark.parametrize("query", NOT_DATES)
def test_false_positives_stay_text(query):
    found = parse_time_phrase(query, NOW)
    assert (found.range, found.text, found.phrase) == (None, query, None)


def test_table_is_big_enough():
    assert len(TABLE) >= 40 and len(NOT_DATES) >= 8


def test_on_this_day_is_a_month_day_in_earlier_years():
    found = parse_time_phrase("on this day", NOW)
    assert found.range.kind == "on_this_day"
    assert found.range.month_day == (12, 1)
    assert found.range.until == date(2025, 12, 31)
    assert found.text == "" and found.phrase == "on this day"
    assert found.range.contains("2024-12-01") and not found.range.contains("2024-12-02")
    assert not found.range.contains("2026-12-01")  # this year is not "earlier"


def test_header_and_label():
    found = parse_time_phrase("dinner last week", NOW)
    assert found.header() == 'time: 2026-11-23..2026-11-29 (from "last week")'
    assert parse_time_phrase("since June", NOW).range.label() == "2026-06-01.."
    assert parse_time_phrase("nothing here", NOW).header() is None
    rng, text, phrase = parse_time_phrase("dinner yesterday", NOW)  # unpacks as a triple
    assert (rng.since_iso, text, phrase) == ("2026-11-30", "dinner", "yesterday")


def test_invalid_dates_are_not_dates():
    for query in ("on 31 February", "2026-13", "2026-02-30"):
        found = parse_time_phrase(query, NOW)
        assert found.range is None and found.text == query


def test_feb_29_without_a_year_is_the_last_leap_day():
    assert parse_time_phrase("on 29 February", NOW).range.since == date(2024, 2, 29)


def test_resolve_time_takes_a_bare_month_or_year_as_a_whole():
    assert resolve_time("March", NOW) == TimeRange(date(2026, 3, 1), date(2026, 3, 31))
    assert resolve_time("2025", NOW) == TimeRange(date(2025, 1, 1), date(2025, 12, 31))
    assert resolve_time("last week", NOW).since == date(2026, 11, 23)
    assert resolve_time("march on", NOW) is None  # not wholly a date
    assert resolve_time("hello", NOW) is None


def test_sql_and_contains_agree():
    from engine.storage.db import connect

    conn = connect(":memory:")
    conn.execute("CREATE TABLE chunks(content_date TEXT)")
    days = ["2024-12-01", "2025-12-01", "2025-11-30", "2026-03-14", None]
    conn.executemany("INSERT INTO chunks VALUES (?)", [(x,) for x in days])
    for query in ("on this day", "in March", "before 2025", "since June"):
        rng = parse_time_phrase(query, NOW).range
        where, args = rng.sql("c")
        got = {r[0] for r in conn.execute(f"SELECT content_date FROM chunks c WHERE {where}",
                                          args)}
        assert got == {x for x in days if rng.contains(x)}, query


def test_search_time_applies_the_phrase_unless_since_or_until_are_given_and_drops_it():
    applied = search_time("dinner with Maya last week", NOW)
    assert (applied.text, applied.since, applied.until, applied.applied) == (
        "dinner with Maya", "2026-11-23", "2026-11-29", True)
    assert applied.header == 'time: 2026-11-23..2026-11-29 (from "last week")'
    explicit = search_time("dinner with Maya last week", NOW, since="2026-01-01")
    assert (explicit.text, explicit.since, explicit.until, explicit.applied) == (
        "dinner with Maya", "2026-01-01", None, False)  # the phrase's words are no words
    assert explicit.header == 'time: "last week" not applied: the dates given win'
    assert explicit.found.phrase == "last week"
    on_day = search_time("on this day", NOW)
    assert (on_day.month_day, on_day.until, on_day.text) == ("12-01", "2025-12-31", "")
    plain = search_time("march on", NOW)
    assert (plain.text, plain.since, plain.applied) == ("march on", None, False)
