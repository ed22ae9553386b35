"""Time phrases and the person filter through the whole search pipeline, on a small real
indexed root with a fixed ``now``: pushed into both arms, taken out of the text, in the header."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import search
from engine.config import load_config
from engine.indexer import reindex
from engine.retrieval.entities import clear_people_cache
from engine.searcher import Searcher, SearchError

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
J = "data/journal/2026.jsonl#"
MAIL = "data/email/catalog/mail.jsonl#"
ROBERT = {f"{MAIL}m1", f"{J}j3", "notes/trip.md#s1", "memory/entities/people/robert-okafor.md#s0",
          "memory/entities/people/robert-okafor.md#s1", "profile:robert-okafor"}
MARCH = ("2026-03-01", "2026-03-31")


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def build_root(root: Path) -> Path:
    (root / "profile").mkdir(parents=True)
    (root / "profile/relationships.json").write_text(json.dumps({"people": [
        {"name": "Maya Chen", "aliases": ["Maya"], "relationship": "sister"},
        {"name": "Robert Okafor", "aliases": ["Bobby"], "relationship": "friend"}]}))
    _jsonl(root / "data/journal/2026.jsonl", [
        {"id": "j1", "date": "2026-03-05", "title": "Coast ride",
         "text": "Rode to the coast with Maya Chen, fish tacos after."},
        {"id": "j2", "date": "2026-03-14", "title": "Garden",
         "text": "Planted tomatoes and basil in the raised beds."},
        {"id": "j3", "date": "2026-03-28", "title": "Dinner",
         "text": "Dinner with Robert Okafor at the Thai place."},
        {"id": "j4", "date": "2026-11-18", "title": "Work",
         "text": "Shipped in March: the importer is finally done. Dinner plans tonight."},
        {"id": "j5", "date": "2026-11-19", "title": "Dues",
         "text": "Paid the March dues for the climbing gym."},
        {"id": "j6", "date": "2025-11-20", "title": "A year ago", "text": "Snowy walk."},
        {"id": "j7", "date": "2024-11-20", "title": "Two years ago", "text": "First gym day."}])
    for day, steps in (("2026-03-14", 11204), ("2026-11-19", 4000)):
        path = root / f"data/health/garmin/{day}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"date": day, "steps": steps}))
    _jsonl(root / "data/slack/general.jsonl", [
        {"ts": "2026-03-14T09:00:00", "user": "Maya Chen", "text": "route import done"},
        {"ts": "2026-03-14T09:05:00", "user": "Sam Ortiz", "text": "great, ship it"}])
    _jsonl(root / "data/slack/random.jsonl", [
        {"ts": "2026-11-17T10:00:00", "user": "Sam Ortiz", "text": "lunch? dinner?"}])
    _jsonl(root / "data/email/catalog/mail.jsonl", [
        {"id": "m1", "date": "2026-03-01", "from": "Me", "to": ["Robert Okafor"],
         "subject": "Dinner", "summary": "Thai place on Friday?"},
        {"id": "m2", "date": "2026-03-02", "from": "United Airlines", "to": ["Me"],
         "subject": "Your flight", "summary": "Boarding pass for your flight SFO to LOS."}])
    people = root / "memory/entities/people"
    people.mkdir(parents=True)
    (people / "robert-okafor.md").write_text("Friend from college.\n\n## Recent\n\nNew job.\n")
    (root / "notes").mkdir()
    (root / "notes/trip.md").write_text(
        "---\ndate: 2026-03-03\n---\n# Trip\n\nBobby's flight lands at 6.\n")
    return root


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    clear_people_cache()
    config = load_config(build_root(tmp_path_factory.mktemp("time") / "root"))
    assert not reindex(config=config).errors
    s = Searcher(config)
    yield s
    s.close()


def ids(response) -> list[str]:
    return [r.id for r in response]


def in_march(response) -> bool:
    return all(MARCH[0] <= r.content_date <= MARCH[1] for r in response)


# -- time phrases ------------------------------------------------------------------------------

def test_what_did_i_do_in_march_lists_march_newest_first(searcher):
    r = searcher.search("what did I do in March", limit=20, now=NOW)
    assert r.time == 'time: 2026-03-01..2026-03-31 (from "in March")'
    assert r.time_phrase == "in March" and r.sort == "date"
    assert (r.since, r.until, r.month_day) == ("2026-03-01", "2026-03-31", None)  # for --json
    assert {f"{J}j1", f"{J}j2", f"{J}j3"} <= set(ids(r)) and in_march(r)
    assert f"{J}j4" not in ids(r)  # "Shipped in March", written in November
    dates = [x.content_date for x in r]
    assert dates == sorted(dates, reverse=True) and len(r) == 8  # every March chunk
    # the facets count them though no arm ranked them
    assert r.type_counts == dict(Counter(x.source_type for x in r))
    assert sum(searcher.search("what did I do in March", limit=3, now=NOW).type_counts.values()) \
        == 8


def test_an_iso_day_alone_gives_that_days_rows(searcher):
    r = searcher.search("2026-03-14", now=NOW)
    assert r.time == 'time: 2026-03-14..2026-03-14 (from "2026-03-14")'
    assert set(ids(r)) == {"data/health/garmin/2026-03-14.json#day", f"{J}j2",
                           "data/slack/general.jsonl#w0"}
    steps = searcher.search("steps on 2026-03-14", now=NOW)
    assert ids(steps)[0] == "data/health/garmin/2026-03-14.json#day"
    assert all(x.content_date == "2026-03-14" for x in steps)


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_the_range_is_pushed_into_each_arm_and_the_phrase_leaves_the_text(searcher, mode):
    r = searcher.search("dinner in March", mode=mode, now=NOW)
    assert r.results and in_march(r), ids(r)
    assert r.terms == ["dinner"]  # "march" is not searched for: it became the range
    if mode != "semantic":
        assert ids(r)[0] == f"{J}j3"


def test_explicit_since_wins_and_the_phrase_is_still_no_words(searcher):
    r = searcher.search("dinner in March", mode="keyword", since="2026-11-01", now=NOW)
    assert r.time == 'time: "in March" not applied: the dates given win'
    assert r.time_phrase is None and r.terms == ["dinner"]
    assert f"{J}j4" in ids(r)  # "dinner", written in November
    assert r.results and all(x.content_date >= "2026-11-01" for x in r)


def test_decay_is_off_inside_a_closed_range_and_measured_from_an_open_ranges_end(searcher):
    closed = searcher.search("tacos coast ride in March", now=NOW)
    assert ids(closed)[0] == f"{J}j1"
    assert not closed.decay_applied and all(x.decay is None for x in closed)
    before = searcher.search("tacos coast ride before April 2026", now=NOW)
    assert before.time == 'time: ..2026-03-31 (from "before April 2026")'
    assert (before.since, before.until) == (None, "2026-03-31")
    assert before.decay_applied and ids(before)[0] == f"{J}j1"
    assert before[0].decay.age_days == pytest.approx(26.0)  # from 2026-03-31, not from now
    plain = searcher.search("tacos coast ride", now=NOW)
    assert plain[0].decay.age_days == pytest.approx(260.5)


def test_on_this_day_is_the_same_date_in_earlier_years(searcher):
    r = searcher.search("on this day", now=NOW)
    assert r.time == 'time: on this day 11-20 (from "on this day")'
    assert ids(r) == [f"{J}j6", f"{J}j7"]


def test_words_that_only_look_like_dates_do_not_filter(searcher):
    r = searcher.search("I may go climbing", mode="keyword", now=NOW)
    assert r.time is None and "climbing" in r.terms
    assert f"{J}j5" in ids(r)  # November: no date filter crept in


def test_module_search_reads_phrases_with_the_same_arguments(searcher):
    r = search("dinner in March", 5, ["journal"], config=searcher.config, now=NOW,
               mode="keyword")
    assert ids(r) == [f"{J}j3"] and r.time_phrase == "in March"


# -- the person filter -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_the_person_filter_holds_in_each_arm_with_a_typo(searcher, mode):
    r = searcher.search("flight dinner", person="Robert Okafr", mode=mode, now=NOW)
    assert r.person == 'person: Robert Okafor (as "Robert Okafr")'
    assert r.results and set(ids(r)) <= ROBERT, ids(r)
    assert f"{MAIL}m2" not in ids(r)  # the airline email never names him
    unfiltered = searcher.search("flight dinner", mode=mode, now=NOW, limit=20)
    assert set(ids(unfiltered)) - ROBERT  # the filter, not the query, keeps the others out


def test_the_persons_own_profile_passes_and_anothers_does_not(searcher):
    own = searcher.search("Robert Okafor", person="Bobby", now=NOW)
    assert "profile:robert-okafor" in ids(own)
    other = searcher.search("Robert Okafor", person="Maya Chen", now=NOW)
    assert "profile:robert-okafor" not in ids(other)
    assert all("Maya" in x.content or "maya" in x.source_file for x in other)


def test_a_person_and_a_time_phrase_together(searcher):
    r = searcher.search("dinner in March", person="Robert Okafor", mode="keyword", now=NOW)
    assert ids(r)[:2] == [f"{J}j3", f"{MAIL}m1"] and in_march(r)
    blank = searcher.search("", person="Bobby", now=NOW)  # nothing to rank: newest first
    assert blank.sort == "date" and blank.results and set(ids(blank)) <= ROBERT
    with pytest.raises(SearchError):
        searcher.search("dinner", person="x")


# -- one of each per search ----------------------------------------------------------------------

def test_vector_index_writer_check_and_stale_check_run_once_per_search(searcher, monkeypatch):
    import engine.retrieval.search_pipeline as pipeline
    import engine.searcher as module

    calls = {"vector_index": 0, "active_writer": 0}
    real_index, real_writer = Searcher.vector_index, module.active_writer

    def vector_index(self, *a, **kw):
        calls["vector_index"] += 1
        return real_index(self, *a, **kw)

    def active_writer(*a, **kw):
        calls["active_writer"] += 1
        return real_writer(*a, **kw)

    monkeypatch.setattr(Searcher, "vector_index", vector_index)
    monkeypatch.setattr(module, "active_writer", active_writer)  # both modules ask it
    monkeypatch.setattr(pipeline, "active_writer", active_writer)
    statements: list[str] = []
    conn = searcher.connection()
    conn.set_trace_callback(statements.append)
    try:
        r = searcher.search("dinner flight tacos", now=NOW)
    finally:
        conn.set_trace_callback(None)
    assert len({x.source_file for x in r}) > 1
    assert calls == {"vector_index": 1, "active_writer": 1}
    assert sum("index_state" in s for s in statements) == 1


def test_a_phrase_whose_range_holds_nothing_searches_every_date_and_says_so(searcher):
    # nothing in the root is dated 2019: the phrase must not make a false empty page
    response = searcher.search("dinner in 2019", now=NOW)
    assert response.results
    assert response.time == ('time: 2019-01-01..2019-12-31 (from "in 2019"): nothing dated '
                             'there; shown: "dinner in 2019" at every date')
