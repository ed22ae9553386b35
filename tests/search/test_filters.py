"""One Filters class, two forms: the SQL pushed into the arms and the in-memory re-check agree
on a table of chunks and filters (real SQLite, its JSON functions), and each filter means what
it says."""

from __future__ import annotations

import json
from datetime import date

import pytest

from engine.dates.message_days import MESSAGE_DAYS_DDL, parse_marks, store
from engine.rank.candidates import Candidate
from engine.retrieval.filters import Filters, SearchError, strict_equal
from engine.storage.db import connect

CHUNKS = [  # id, source_type, source_file, content_date, metadata
    ("a", "slack", "data/slack/general.jsonl", "2026-03-01", {}),
    ("b", "note", "notes/garden.md", "2026-03-15", {"tags": ["garden", "home"]}),
    ("c", "note", "notes/work/x.md", "2026-03-31", {"tags": "garden",
                                                     "frontmatter": {"draft": False, "rev": 0}}),
    ("d", "note", "notes/work/y.md", None, {"frontmatter": {"draft": 0, "rev": "0"}}),
    ("e", "journal", "data/journal/2025.jsonl", "2025-03-15", {"tags": [1, "Garden"]}),
    ("f", "journal", "data/journal/2024.jsonl", "2024-03-15",
     {"frontmatter": {"status": None, "score": 1.5}}),
    ("g", "cgm", "data/health/cgm/2026-04-01.json", "2026-04-01", {"tags": {"k": "garden"}}),
    ("h", "note", "notes/odd.md", "2026-03-15T23:59:00", {}),  # not the documented form
    ("i", "telegram", "data/telegram/chat.jsonl", "2026-03-20",
     {"participants": ["Ana", "Ben"], "message_count": 2}),  # spans from 03-14
    ("j", "slack", "data/slack/trip.jsonl", "2026-03-22",
     {"participants": ["Ana"], "message_count": 3}),  # spans from 03-10
]
FIRST_DATES = {"i": "2026-03-14", "j": "2026-03-10"}
# chat windows over several sessions: i on its first and last day only, j on a middle day too
WINDOWS = {"i": "[2026-03-14 09:00] Ana: first session\n[2026-03-20 10:00] Ben: second",
           "j": "[2026-03-10 08:00] Ana: leaving\n[2026-03-16 12:30] Ana: halfway\n"
                "[2026-03-22 19:00] Ana: home"}

CASES = [
    ({}, "abcdefghij"),
    ({"source_types": ["note"]}, "bcdh"),
    ({"source_types": []}, "abcdefghij"),
    ({"since": "2026-03-01", "until": "2026-03-15"}, "abhij"),  # i, j: their first day
    ({"since": "2026-03-15"}, "bcghij"),
    ({"until": "2026-03-14"}, "aefij"),
    ({"since": "2026-03-15", "until": "2026-03-19"}, "bhj"),  # i overlaps, no message inside
    ({"since": "2026-03-17", "until": "2026-03-19"}, ""),
    ({"since": "2026-03-21"}, "cgj"),
    ({"since": "2026-03-14", "until": "2026-03-14"}, "i"),  # its first day only
    ({"since": "2026-03-20", "until": "2026-03-20"}, "i"),  # its last day only
    ({"since": "2026-03-11", "until": "2026-03-13"}, ""),  # the day before i starts
    ({"since": "2026-03-16", "until": "2026-03-16"}, "j"),  # j's middle day
    ({"month_day": "03-14"}, "i"),
    ({"month_day": "03-16"}, "j"),
    ({"month_day": "03-16", "since": "2026-03-17"}, ""),
    ({"month_day": "03-18"}, ""),  # inside both spans, no message
    ({"until": "2025-12-31"}, "ef"),
    ({"since": date(2026, 3, 31), "until": "2026-03-31T08:00"}, "c"),
    ({"month_day": "03-15"}, "befh"),
    ({"month_day": "03-15", "until": "2025-12-31"}, "ef"),
    ({"path_prefix": "notes/work/"}, "cd"),
    ({"tags": ["garden"]}, "bcg"),
    ({"tags": ["garden", "home"]}, "b"),
    ({"tags": ["1"]}, ""),  # a number is no string tag
    ({"frontmatter": {"draft": False}}, "c"),
    ({"frontmatter": {"rev": "0"}}, "d"),
    ({"frontmatter": {"rev": 0}}, "c"),
    ({"frontmatter": {"status": None}}, "f"),
    ({"frontmatter": {"score": 1.5}}, "f"),
    ({"frontmatter": {"missing": None}}, ""),
    ({"source_types": ["note", "journal"], "since": "2025-01-01", "tags": ["garden"]}, "bc"),
]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("filters") / "t.db")
    conn.execute("CREATE TABLE chunks (id TEXT, source_type TEXT, source_file TEXT, "
                 "content_date TEXT, metadata TEXT, first_date TEXT, content TEXT)")
    conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?)",
                     [(i, t, f, d, json.dumps(m), FIRST_DATES.get(i), content_of(i))
                      for i, t, f, d, m in CHUNKS])
    for ddl in MESSAGE_DAYS_DDL:
        if "day_counts" not in ddl:  # no counting here
            conn.execute(ddl)
    windows = conn.execute("SELECT rowid, id, source_type, source_file, content, metadata "
                           f"FROM chunks WHERE id IN ({','.join('?' * len(WINDOWS))})",
                           list(WINDOWS)).fetchall()
    store(conn, [(rowid, f"{file}#w{n}", source_type,
                  parse_marks(content, json.loads(meta)["participants"], json.loads(meta)["message_count"]))
                 for n, (rowid, _, source_type, file, content, meta) in enumerate(windows)])
    yield conn
    conn.close()


def content_of(cid: str) -> str:
    return WINDOWS.get(cid, f"content of {cid}")


def candidate(row, **kw) -> Candidate:
    cid, source_type, source_file, content_date, meta = row
    return Candidate(id=cid, content=content_of(cid), source_file=source_file,
                     source_type=source_type, content_date=content_date,
                     first_date=FIRST_DATES.get(cid), metadata=meta, **kw)


@pytest.mark.parametrize("years", [None, (2024, 2026), (2020, 2030)])  # "on this day"'s years
@pytest.mark.parametrize("span_days", [None, 12, 15])  # unknown; j spans 12 days; a bound above
@pytest.mark.parametrize(("kwargs", "expected"), CASES)
def test_sql_and_matches_agree(table, kwargs, expected, span_days, years):
    filters = Filters.build(**kwargs, span_days=span_days, years=years)
    where, args = filters.sql("c")
    by_sql = {r[0] for r in table.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}
    by_memory = {row[0] for row in CHUNKS if filters.matches(candidate(row))}
    assert by_sql == by_memory == set(expected)


@pytest.mark.parametrize("years", [None, (2024, 2026)])
@pytest.mark.parametrize("span_days", [None, 12])
@pytest.mark.parametrize(("kwargs", "expected"), CASES)
def test_the_vector_mask_selects_what_the_sql_form_does(table, kwargs, expected, span_days,
                                                         years):
    filters = Filters.build(**{k: v for k, v in kwargs.items() if k != "source_types"},
                            span_days=span_days, years=years)
    where, args = filters.sql("c")
    by_sql = {r[0] for r in table.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}
    masks = filters.rowid_queries()
    if not masks:  # nothing to mask
        assert by_sql == {row[0] for row in CHUNKS}
        return
    (sql, margs), = masks
    rowids = [r[0] for r in table.execute(sql, margs)]
    assert len(rowids) == len(set(rowids))  # the branches of a span are disjoint
    got = {r[0] for r in table.execute(
        f"SELECT id FROM chunks WHERE rowid IN ({','.join('?' * len(rowids))})", rowids)}
    assert got == by_sql


def test_no_span_in_the_index_keeps_the_one_range_form():
    where, args = Filters.build(since="2026-03-01", until="2026-03-15", span_days=0).sql("c")
    assert "first_date" not in where and args == ["2026-03-01", "2026-03-16"]
    where, _ = Filters.build(until="2026-03-15", span_days=6).sql("c")
    assert "c.first_date < ?" in where


def test_the_vector_mask_queries_select_the_same_chunks(table):
    filters = Filters.build(source_types=["note"], since="2026-03-15", path_prefix="notes/")
    (sql, args), = filters.rowid_queries()  # the type is masked by the vector index itself
    got = {r[0] for r in table.execute(f"SELECT id FROM chunks WHERE rowid IN ({sql})", args)}
    assert got == {"b", "c", "h"}
    assert Filters.build(source_types=["note"]).rowid_queries() == []


def test_an_injected_profile_passes_dates_but_not_types_folders_or_tags_it_lacks():
    profile = Candidate(id="profile:maya", content="Maya Chen", source_file="profile/r.json",
                        source_type="profile", injected=True)
    assert Filters.build(since="2025-01-01").matches(profile)  # the person's events' dates
    assert not Filters.build(source_types=["note"]).matches(profile)
    assert Filters.build(source_types=["note", "profile"]).matches(profile)
    assert not Filters.build(tags=["x"]).matches(profile)  # it has no tags
    assert not Filters.build(frontmatter={"a": 1}).matches(profile)
    assert not Filters.build(path_prefix="notes/").matches(profile)
    assert Filters.build(path_prefix="profile/").matches(profile)


@pytest.mark.parametrize("kwargs", [
    {"since": "last week"}, {"until": "2026-13-01"}, {"source_types": "slack"},
    {"source_types": {"keyword": 1.0}}, {"tags": "garden"}, {"frontmatter": {"a": {"b": 1}}},
    {"frontmatter": {'we"ird': 1}}, {"frontmatter": ["a"]}])
def test_bad_filters_are_one_search_error(kwargs):
    with pytest.raises(SearchError) as err:
        Filters.build(**kwargs)
    assert "\n" not in str(err.value)


def test_strict_equal():
    assert strict_equal(1, 1) and strict_equal("a", "a") and strict_equal([1, "x"], [1, "x"])
    assert not strict_equal("0", 0)
    assert not strict_equal(True, 1)
    assert not strict_equal(1, 1.0)
    assert not strict_equal([True], [1])
    assert not strict_equal({"a": 1}, {"a": True})


# -- a folder as a person writes it (engine/retrieval/folders.py) ------------------------------

FOLDER_FILES = ["data/slack/random.jsonl", "notes/home/garden.md", "notes/work/x.md",
                "@Vault/Work/plan.md", "@Vault/Workshop.md", "@Vault/Daily/2026-03-01.md",
                "@Notes/Ideas/lamps.md", "@Notes/Work/todo.md"]


@pytest.fixture(scope="module")
def folder_index(tmp_path_factory):
    from tests.conftest import chunk_db

    conn = chunk_db(tmp_path_factory.mktemp("folders") / "idx.db",
                    [(f"{f}#s{i}", f, "note", "text") for f in FOLDER_FILES for i in (1, 2)])
    yield conn
    conn.close()


class Declared:
    def __init__(self, name: str):
        self.name = name


@pytest.mark.parametrize(("typed", "meant"), [
    ("notes/work/", "notes/work/"),  # a prefix the index holds: as written, as before
    ("@Vault/Work/", "@Vault/Work/"),
    ("@Vault/Work", "@Vault/Work/"),  # that folder, never also @Vault/Workshop.md
    ("@Vault/Workshop.md", "@Vault/Workshop.md"),  # a file
    ("home/", "notes/home/"),  # one place: that folder
    ("home", "notes/home/"),
    ("Daily/", "@Vault/Daily/"),
    ("Vault/Daily/", "@Vault/Daily/"),  # a source's folder named without its '@'
    ("Ideas", "@Notes/Ideas/"),
    ("./notes/home/", "notes/home/"),
    ("random", "data/slack/random."),  # a file's name without its extension
    ("data/slack/random", "data/slack/random."),
    ("garden.md", "notes/home/garden.md"),
    ("@Empty/", "@Empty/"),  # a declared source before it holds a file
    ("", None), (None, None),
])
def test_a_folder_means_the_one_place_the_index_holds_it(folder_index, typed, meant):
    from engine.retrieval.folders import folder_prefix

    assert folder_prefix(folder_index, typed, [Declared("Empty")]) == meant


@pytest.mark.parametrize(("typed", "message"), [
    ("Work/", 'folder "Work/" is in 2 places: "@Notes/Work/", "@Vault/Work/"; write the one '
              'you mean'),  # case counts: notes/work/ is another folder
    ("Wrok/", 'no folder "Wrok/" in the index; did you mean "@Notes/Work/" or "@Vault/Work/" '
              'or "notes/work/"?'),
    ("notes/hmoe/", 'no folder "notes/hmoe/" in the index; did you mean "notes/home/"?'),
    ("zzz/", 'no folder "zzz/" in the index; its folders start with "@Notes/", "@Vault/", '
             '"data/", "notes/"'),
    ("Wrok\n/", 'no folder "Wrok\\n/" in the index; did you mean'),
    # the start of a name is no folder: said, with the whole names near it
    ("notes/wo", 'no folder "notes/wo" in the index; did you mean "@Notes/Work/" or '
                 '"notes/work/"?'),
    ("Dail", 'no folder "Dail" in the index; did you mean "@Vault/Daily/"?'),
])
def test_an_ambiguous_or_unknown_folder_is_one_line_naming_the_folders(folder_index, typed,
                                                                        message):
    from engine.retrieval.folders import folder_prefix

    with pytest.raises(SearchError) as err:
        folder_prefix(folder_index, typed)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_the_index_files_are_listed_by_one_seek_each(folder_index):
    from engine.retrieval.folders import FILES_SQL, folders, indexed_files

    assert indexed_files(folder_index) == sorted(FOLDER_FILES)
    plan = " ".join(r[-1] for r in folder_index.execute("EXPLAIN QUERY PLAN " + FILES_SQL))
    assert "SCAN chunks" not in plan.replace("SCAN f", "")  # seeks of the source_file index
    assert "@Vault/" in folders(FOLDER_FILES) and "notes/home/" in folders(FOLDER_FILES)
