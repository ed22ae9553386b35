"""Time-scoped questions as people ask them, through the whole search: the range each one means
(against a fixed Monday, 2026-11-30), whether it browses the range (only question words beside
the dates: "what happened", "anything new") or searches it for a topic, and that the phrase's
own words ("March", "2026", "last", "week") are never searched as words."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.retrieval.fts_query import parse_query
from engine.searcher import Searcher

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday
FIRST_DAY = date(2025, 1, 1)
ZEBRA_DAY = "2026-11-02"  # the only day that names the zebra print


def build_root(root: Path) -> Path:
    """A journal with an entry a day from 2025-01-01 to today, each about an ordinary day."""
    topics = ["dinner with Maya at the noodle bar", "lunch with Maya by the river",
              "the garden: tomatoes and basil", "climbing at the gym, 12k steps",
              "photos from the walk", "steps and a long swim"]
    rows = []
    day = FIRST_DAY
    while day <= NOW.date():
        text = f"{topics[day.toordinal() % len(topics)]}; {topics[day.toordinal() % 5]}."
        if day.isoformat() == ZEBRA_DAY:
            text += " Bought the zebra print for the hall."
        rows.append({"id": day.isoformat(), "date": day.isoformat(), "text": text})
        day += timedelta(days=1)
    path = root / "data/journal/days.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    config = load_config(build_root(tmp_path_factory.mktemp("questions") / "root"))
    assert not reindex(config=config).errors
    s = Searcher(config)
    yield s
    s.close()


BROWSE, SEARCH = "browse", "search"
QUESTIONS = [
    # question, since, until, browse or search
    ("what happened in March", "2026-03-01", "2026-03-31", BROWSE),
    ("what happened on 2026-03-14", "2026-03-14", "2026-03-14", BROWSE),
    ("anything from last month", "2026-10-01", "2026-10-31", BROWSE),
    ("what happened last week", "2026-11-23", "2026-11-29", BROWSE),
    ("what did I do last week", "2026-11-23", "2026-11-29", BROWSE),
    ("what was I doing the week of 10 March", "2026-03-09", "2026-03-15", BROWSE),
    ("what happened yesterday", "2026-11-29", "2026-11-29", BROWSE),
    ("March 14", "2026-03-14", "2026-03-14", BROWSE),
    ("the weekend before last", "2026-11-21", "2026-11-22", BROWSE),
    ("what went on in 2025", "2025-01-01", "2025-12-31", BROWSE),
    ("what was going on two weeks ago", "2026-11-16", "2026-11-22", BROWSE),
    ("recap of last month", "2026-10-01", "2026-10-31", BROWSE),
    ("what did I get up to last summer", "2026-06-01", "2026-08-31", BROWSE),
    ("tell me about last Tuesday", "2026-11-24", "2026-11-24", BROWSE),
    ("show me everything from last weekend", "2026-11-28", "2026-11-29", BROWSE),
    ("what happened 3 days ago", "2026-11-27", "2026-11-27", BROWSE),
    ("anything new this week", "2026-11-30", "2026-12-06", BROWSE),
    ("what have I been up to since June", "2026-06-01", None, BROWSE),
    ("what's been going on the past 7 days", "2026-11-24", "2026-11-30", BROWSE),
    ("everything from Q2 2026", "2026-04-01", "2026-06-30", BROWSE),
    ("what happened between March 1 and March 5", "2026-03-01", "2026-03-05", BROWSE),
    ("what was I up to in the spring", "2026-03-01", "2026-05-31", BROWSE),
    ("what happened the month before last", "2026-09-01", "2026-09-30", BROWSE),
    ("what did I do today?", "2026-11-30", "2026-11-30", BROWSE),
    ("list everything from 2026-W11", "2026-03-09", "2026-03-15", BROWSE),
    ("show me everything from March", "2026-03-01", "2026-03-31", BROWSE),
    ("stuff from May", "2026-05-01", "2026-05-31", BROWSE),
    ("dinner in March", "2026-03-01", "2026-03-31", SEARCH),
    ("anything from Maya last month", "2026-10-01", "2026-10-31", SEARCH),
    ("dinner the week before last", "2026-11-16", "2026-11-22", SEARCH),
    ("a long swim yesterday", "2026-11-29", "2026-11-29", SEARCH),
    ("steps on 2026-03-14", "2026-03-14", "2026-03-14", SEARCH),
    ("what did Maya say about the garden in April", "2026-04-01", "2026-04-30", SEARCH),
    ("photos from last weekend", "2026-11-28", "2026-11-29", SEARCH),
    ("climbing since June", "2026-06-01", None, SEARCH),
]


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
@pytest.mark.parametrize("question, since, until, how", QUESTIONS,
                         ids=[q for q, *_ in QUESTIONS])
def test_a_time_question_answers_about_the_time_asked(searcher, question, since, until, how,
                                                      mode):
    r = searcher.search(question, limit=20, mode=mode, now=NOW)
    assert (r.since, r.until) == (since, until), r.time
    assert r.time.startswith("time: ") and "nothing" not in r.time, r.time
    assert r.results and all(since <= x.content_date <= (until or "9999") for x in r)
    phrase_words = set(parse_query(r.time_phrase).raw_tokens)
    assert not phrase_words & set(r.terms), r.terms  # the dates are no words to search
    if how == BROWSE:  # the range itself, newest first: no word is matched
        assert r.sort == "date" and r.terms == [] and r.arms.startswith("none"), r.arms
        dates = [x.content_date for x in r]
        assert dates == sorted(dates, reverse=True)
        assert dates[0] == min(until or NOW.date().isoformat(), NOW.date().isoformat())
    else:
        assert r.terms and r.sort == "relevance", (r.terms, r.arms)


def test_the_table_is_what_people_ask():
    assert len(QUESTIONS) >= 30 and {h for *_, h in QUESTIONS} == {BROWSE, SEARCH}


def test_a_range_without_the_words_says_so_and_shows_the_words_at_every_date(searcher):
    r = searcher.search("zebra in March", now=NOW, mode="keyword")
    assert r.time == ('time: 2026-03-01..2026-03-31 (from "in March"): nothing there matches '
                      '"zebra"; shown: "zebra" at every date')
    assert [x.content_date for x in r] == [ZEBRA_DAY] and r.terms == ["zebra"]


def test_a_range_that_holds_nothing_says_so_and_searches_the_question_as_written(searcher):
    # nothing is dated 2019 here: "in 2019" is what a text may say ("moved here in 2019")
    r = searcher.search("dinner in 2019", now=NOW, mode="keyword")
    assert r.time == ('time: 2019-01-01..2019-12-31 (from "in 2019"): nothing dated there; '
                      'shown: "dinner in 2019" at every date')
    assert r.results and r.terms == ["dinner", "2019"]
    empty = searcher.search("what happened in 2019", now=NOW)
    assert empty.time == 'time: 2019-01-01..2019-12-31 (from "in 2019"): nothing dated there'
    assert not empty.results


def test_on_this_day_browses_the_same_day_of_earlier_years(searcher):
    r = searcher.search("what happened on this day", now=NOW)
    assert r.sort == "date" and [x.content_date for x in r] == ["2025-11-30"]


def test_words_that_only_look_like_dates_are_searched_as_words(searcher):
    r = searcher.search("I may go climbing", now=NOW, mode="keyword")
    assert r.time is None and "climbing" in r.terms and r.sort == "relevance"
    # "from June" beside a topic is a sender as often as a date
    sender = searcher.search("a message from June", now=NOW, mode="keyword")
    assert sender.time is None and "june" in sender.terms
