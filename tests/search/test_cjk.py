"""Keyword search in Japanese, Chinese, Thai and Korean chats and notes (engine/retrieval/cjk.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import reindex
from engine.config import load_config
from engine.retrieval.cjk import GLOB, RANGES, cjk_search, cjk_terms, has_unsegmented, merge_ranked
from engine.schema import open_reader
from engine.searcher import Searcher
from engine.storage.db import connect
from tests.conftest import CountingEmbedder, make_root, migrate_from

JA = ["明日の会議は午後三時からです", "資料は共有フォルダに置きました"]
ZH = ["我们下周去北京看长城", "记得带护照和相机"]
TH = ["ประชุมพรุ่งนี้บ่ายสามโมง", "เราจะไปเชียงใหม่เดือนหน้า"]
KO = ["내일 회의는 오후 세 시입니다"]
KYOTO = "---\ntitle: 京都旅行\ndate: 2026-10-01\n---\n# 京都旅行\n\n紅葉の季節に嵐山を散歩したい。\n"


def chat(path: Path, key: str, who: str, texts: list[str], when: str = "2026-03-14") -> None:
    lines = [{"ts" if key == "slack" else "date": f"{when}T09:{i:02d}:00+09:00",
              "user" if key == "slack" else "from": who, "text": text}
             for i, text in enumerate(texts)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                    encoding="utf-8")


def make_cjk_root(root: Path) -> Path:
    make_root(root)
    chat(root / "data/telegram/tokyo.jsonl", "telegram", "Yuki", ["See you there", *JA])
    chat(root / "data/slack/beijing.jsonl", "slack", "Li Wei", [*ZH, "passport reminder"])
    chat(root / "data/telegram/bangkok.jsonl", "telegram", "Somchai", TH)
    chat(root / "data/telegram/seoul.jsonl", "telegram", "Minji", KO)
    (root / "notes/travel").mkdir(parents=True)
    (root / "notes/travel/kyoto.md").write_text(KYOTO, encoding="utf-8")
    return root


@pytest.fixture
def cjk_root(tmp_path) -> Path:
    root = make_cjk_root(tmp_path / "root")
    reindex(config=load_config(root), embedder=CountingEmbedder())
    return root


def db(root: Path):
    return connect(load_config(root).db_path)


def assert_in_sync(conn) -> int:
    """chunks_cjk holds exactly the chunks with unsegmented text, and is a sound FTS5 index."""
    conn.execute("INSERT INTO chunks_cjk(chunks_cjk, rank) VALUES ('integrity-check', 1)")
    want = {r for r, text in conn.execute("SELECT rowid, content FROM chunks")
            if has_unsegmented(text)}
    have = {r for (r,) in conn.execute("SELECT rowid FROM chunks_cjk")}
    assert have == want
    same = conn.execute("SELECT count(*) FROM chunks_cjk k JOIN chunks c ON c.rowid = k.rowid "
                        "WHERE c.content || char(10, 10) = k.content").fetchone()[0]
    assert same == len(want)
    return len(want)


# -- the query side -------------------------------------------------------------------------

def test_runs_of_unsegmented_script_are_the_units():
    assert cjk_terms("Maya 北京 会議、明日の会議 harbor") == ["北京", "会議", "明日の会議"]
    assert cjk_terms("ประชุมพรุ่งนี้") == ["ประชุมพรุ่งนี้"]  # vowel and tone marks stay in
    assert cjk_terms("harbor bridge, naïve café") == []
    assert not has_unsegmented("Zürich — “quoted” … → done") and has_unsegmented("x 회의")


def test_the_sql_glob_and_the_python_test_agree_at_every_range_edge():
    conn = connect(":memory:")
    chars = [chr(c) for a, b in RANGES for c in (a - 1, a, b, b + 1)] + list("aé—。、")
    for ch in chars:
        in_sql = conn.execute("SELECT ? GLOB ?", (f"ab{ch}cd", GLOB)).fetchone()[0]
        assert bool(in_sql) == has_unsegmented(ch), hex(ord(ch))


HITS = [  # (query, chunk it must find first): a word from the middle of a sentence
    ("会議", "data/telegram/tokyo.jsonl#w0"),
    ("午後三時", "data/telegram/tokyo.jsonl#w0"),
    ("共有フォルダ", "data/telegram/tokyo.jsonl#w0"),
    ("北京", "data/slack/beijing.jsonl#w0"),
    ("看长城", "data/slack/beijing.jsonl#w0"),
    ("护照", "data/slack/beijing.jsonl#w0"),
    ("ไป", "data/telegram/bangkok.jsonl#w0"),
    ("พรุ่งนี้", "data/telegram/bangkok.jsonl#w0"),
    ("บ่ายสามโมง", "data/telegram/bangkok.jsonl#w0"),
    ("회의", "data/telegram/seoul.jsonl#w0"),
    ("니다", "data/telegram/seoul.jsonl#w0"),  # the last characters of the chunk
    ("다", "data/telegram/seoul.jsonl#w0"),
    ("嵐山", "notes/travel/kyoto.md#s1"),
    ("紅葉の季節", "notes/travel/kyoto.md#s1"),
]


@pytest.mark.parametrize("short_terms", ["trigram vocabulary", "scan"])
@pytest.mark.parametrize("query, chunk_id", HITS)
def test_a_word_inside_a_sentence_is_found(cjk_root, monkeypatch, query, chunk_id, short_terms):
    if short_terms == "scan":  # a 1-2 character term starting too many trigrams
        monkeypatch.setattr("engine.retrieval.cjk.MAX_TRIGRAMS", 0)
    conn = db(cjk_root)
    rows = cjk_search(conn, query, 10)
    assert rows and rows[0]["id"] == chunk_id
    assert query in rows[0]["content"] and rows[0]["score"] > 0
    assert {"rowid", "id", "content", "source_file", "source_type", "content_date", "first_date",
            "metadata", "embedding_truncated", "score"} == set(rows[0].keys())


def test_a_read_only_reader_searches_without_writing(cjk_root):
    path = load_config(cjk_root).db_path
    before = path.read_bytes()
    conn = open_reader(path)
    try:
        assert [r["id"] for r in cjk_search(conn, "北京", 10)] == ["data/slack/beijing.jsonl#w0"]
        assert [r["id"] for r in cjk_search(conn, "会", 10)] == ["data/telegram/tokyo.jsonl#w0"]
    finally:
        conn.close()
    assert path.read_bytes() == before


def test_misses_filters_and_depth(cjk_root):
    conn = db(cjk_root)
    assert cjk_search(conn, "東京タワー", 10) == [] and cjk_search(conn, "東", 10) == []
    assert cjk_search(conn, "harbor", 10) == []
    assert [r["id"] for r in cjk_search(conn, "京都", 10)] == ["notes/travel/kyoto.md#s1"]
    assert cjk_search(conn, "北京", 10, "c.source_type IN (?)", ["note"]) == []
    assert [r["source_type"] for r in
            cjk_search(conn, "北京", 10, "c.source_type IN (?)", ["slack"])] == ["slack"]
    both = cjk_search(conn, "北京 会議", 10)
    assert len(both) == 2 and len(cjk_search(conn, "北京 会議", 1)) == 1


def test_a_very_common_term_scores_its_newest_chunks_that_pass_the_filters(cjk_root,
                                                                           monkeypatch):
    conn = db(cjk_root)
    holders = conn.execute("SELECT rowid, source_type FROM chunks WHERE instr(content, '京') "
                           "ORDER BY rowid DESC").fetchall()
    assert len({t for _, t in holders}) == 2
    monkeypatch.setattr("engine.retrieval.cjk.SCORE_BUDGET", 1)
    assert [r["rowid"] for r in cjk_search(conn, "京", 10)] == [holders[0][0]]
    older = next(r for r, t in holders if t != holders[0][1])
    assert [r["rowid"] for r in cjk_search(conn, "京", 10, "c.source_type != ?",
                                           [holders[0][1]])] == [older]


def test_a_chunk_holding_more_of_the_units_ranks_first(cjk_root):
    conn = db(cjk_root)
    rows = cjk_search(conn, "会議 資料 北京", 10)
    assert [r["id"] for r in rows] == ["data/telegram/tokyo.jsonl#w0",
                                       "data/slack/beijing.jsonl#w0"]


def test_merge_sums_a_chunk_found_by_both_and_orders_by_score():
    fts = [{"rowid": 1, "score": 5.0}, {"rowid": 2, "score": 3.0}]
    cjk = [{"rowid": 3, "score": 4.0}, {"rowid": 2, "score": 2.5}]
    merged = merge_ranked(fts, cjk, 10)
    assert [(r["rowid"], r["score"]) for r in merged] == [(2, 5.5), (1, 5.0), (3, 4.0)]
    assert [r["rowid"] for r in merge_ranked(fts, cjk, 2)] == [2, 1]


# -- kept in step by the indexer --------------------------------------------------------------

def test_reindex_with_edits_and_deletes_keeps_the_trigram_table_in_sync(cjk_root):
    conn = db(cjk_root)
    assert assert_in_sync(conn) == 5
    chat(cjk_root / "data/telegram/tokyo.jsonl", "telegram", "Yuki", ["moved to Friday"])
    (cjk_root / "data/telegram/bangkok.jsonl").unlink()
    with (cjk_root / "data/slack/random.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"ts": "2026-03-20T10:00:00+09:00", "user": "Ola",
                            "text": "上海の出張は来月です"}, ensure_ascii=False) + "\n")
    reindex(config=load_config(cjk_root), embedder=CountingEmbedder())
    assert assert_in_sync(conn) == 4
    assert cjk_search(conn, "会議", 10) == [] and cjk_search(conn, "ไป", 10) == []
    assert [r["source_file"] for r in cjk_search(conn, "出張", 10)] == ["data/slack/random.jsonl"]


def test_an_update_in_place_of_content_is_mirrored(cjk_root):
    conn = db(cjk_root)
    conn.execute("UPDATE chunks SET content = 'plain English now' "
                 "WHERE id = 'data/telegram/seoul.jsonl#w0'")
    conn.execute("UPDATE chunks SET content = content || ' 大阪' "
                 "WHERE id = 'data/slack/general.jsonl#w0'")
    assert assert_in_sync(conn) == 5
    assert cjk_search(conn, "회의", 10) == []
    assert [r["id"] for r in cjk_search(conn, "大阪", 10)] == ["data/slack/general.jsonl#w0"]


def test_a_v2_index_is_migrated_and_backfilled_by_the_writer_only(cjk_root):
    config = load_config(cjk_root)
    conn = db(cjk_root)
    chunks = conn.execute("SELECT id, content_hash FROM chunks ORDER BY id").fetchall()
    conn.close()
    migrate_from(config.db_path, 2, ("DROP TRIGGER chunks_cjk_ad", "DROP TRIGGER chunks_cjk_au",
                                     "DROP TABLE chunks_cjk_vocab", "DROP TABLE chunks_cjk",
                                     "DROP INDEX chunks_date"))
    conn = db(cjk_root)
    assert conn.execute("SELECT id, content_hash FROM chunks ORDER BY id").fetchall() == chunks
    assert assert_in_sync(conn) == 5
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_date'").fetchone()
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.chunks == 0 and assert_in_sync(conn) == 5
    assert cjk_search(conn, "長城", 10) == [] and cjk_search(conn, "长城", 10)


# -- Latin script unchanged; search() once the keyword arm merges the CJK hits ------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from engine.demo import generate_demo_root

    root = tmp_path_factory.mktemp("demo") / "root"
    generate_demo_root(root)
    chat(root / "data/telegram/tokyo.jsonl", "telegram", "Yuki",
         ["the quarterly budget review", *JA, "budget sync moved"])
    chat(root / "data/slack/beijing.jsonl", "slack", "Li Wei", ["trip planning", *ZH])
    chat(root / "data/telegram/bangkok.jsonl", "telegram", "Somchai", TH)
    config = load_config(root)
    reindex(config=config)
    return config


LATIN = ["budget review", "climbing trip", "Maya", "dentist appointment", "dinner with maya",
         "what did we decide about the garden"]


def test_latin_results_are_the_same_with_the_cjk_table_empty(demo):
    searcher = Searcher(demo)
    try:
        before = {(q, m): [r.id for r in searcher.search(q, limit=20, mode=m)]
                  for q in LATIN for m in ("keyword", "hybrid")}
        conn = connect(demo.db_path)
        kept = conn.execute("SELECT rowid, content FROM chunks_cjk").fetchall()
        assert kept and all(not cjk_terms(q) for q in LATIN)
        conn.execute("DELETE FROM chunks_cjk")
        searcher.close()
        after = {(q, m): [r.id for r in searcher.search(q, limit=20, mode=m)]
                 for q in LATIN for m in ("keyword", "hybrid")}
        conn.executemany("INSERT INTO chunks_cjk(rowid, content) VALUES (?, ?)", kept)
        conn.close()
    finally:
        searcher.close()
    assert after == before and all(before.values()), [k for k, v in before.items() if not v]


def test_search_finds_japanese_chinese_and_thai(demo):
    searcher = Searcher(demo)
    try:
        for query, chunk_id in [("会議", "data/telegram/tokyo.jsonl#w0"),
                                ("午後三時", "data/telegram/tokyo.jsonl#w0"),
                                ("北京", "data/slack/beijing.jsonl#w0"),
                                ("看长城", "data/slack/beijing.jsonl#w0"),
                                ("ไป", "data/telegram/bangkok.jsonl#w0"),
                                ("พรุ่งนี้", "data/telegram/bangkok.jsonl#w0")]:
            top = [r.id for r in searcher.search(query, mode="keyword")]
            assert top[:1] == [chunk_id], query
            assert chunk_id in [r.id for r in searcher.search(query)], query  # hybrid
        assert searcher.search("budget 会議", mode="keyword")[0].id == \
            "data/telegram/tokyo.jsonl#w0"
    finally:
        searcher.close()
