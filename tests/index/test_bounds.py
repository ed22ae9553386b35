"""No input of N bytes costs more than a constant × N (docs/reliability.md): a long record is
split, a long title or frontmatter is not copied into every chunk, a long line is split in one
pass, and a search does bounded work per row. Shapes are checked by what is stored and what is
read, never by time (bench/bench_bounds.py has the timings)."""

from __future__ import annotations

import json

import pytest

from engine.config import load_config
from engine.extractors.bounds import (
    CHUNK_MAX_CHARS,
    FIELD_MAX_CHARS,
    METADATA_MAX_CHARS,
    fit_metadata,
    short,
)
from engine.extractors.splitting import _hard_split
from engine.indexer import reindex
from engine.library_types import file_order_key
from engine.searcher import Searcher
from engine.storage.db import connect
from tests.conftest import assert_consistent, migrate_from, run_cli, write_chat

WORD = "zebrafinch"


def stored(config, rel):
    """(chunks, characters of text, characters of metadata, longest text) of one file."""
    conn = connect(config.db_path)
    try:
        return conn.execute(
            "SELECT count(*), coalesce(sum(length(content)), 0), "
            "coalesce(sum(length(metadata)), 0), coalesce(max(length(content)), 0) "
            "FROM chunks WHERE source_file = ?", (rel,)).fetchone()
    finally:
        conn.close()


def contents(config, rel):
    conn = connect(config.db_path)
    try:
        return [(r[0], r[1], json.loads(r[2])) for r in conn.execute(
            "SELECT id, content, metadata FROM chunks WHERE source_file = ? ORDER BY rowid",
            (rel,))]
    finally:
        conn.close()


def said(stats, rel):
    return " ".join(w.message for w in stats.warnings if w.source_file == rel)


# --------------------------------------------------------------------------- a long record


JOURNAL = "data/journal/2031.jsonl"


@pytest.fixture
def long_record(data_root):
    """A journal whose second record's text is 300 KB holding WORD ~30,000 times."""
    path = data_root / JOURNAL
    path.parent.mkdir(parents=True)
    text = f"{WORD} ab " * 30_000 + "the last words: kingfisher"
    path.write_text(json.dumps({"id": "a", "date": "2031-01-01", "text": "a short day"}) + "\n"
                    + json.dumps({"id": "big", "date": "2031-01-02", "title": "long day",
                                  "text": text}) + "\n")
    return load_config(data_root), text


def test_a_long_record_is_split_into_bounded_chunks_and_nothing_is_lost(long_record):
    config, text = long_record
    stats = reindex(config=config)
    rows = contents(config, JOURNAL)
    big = [r for r in rows if r[0].startswith(f"{JOURNAL}#big")]
    assert len(big) > len(text) // CHUNK_MAX_CHARS
    assert max(len(c) for _, c, _ in rows) <= CHUNK_MAX_CHARS
    assert [m["piece"] for _, _, m in big] == list(range(1, len(big) + 1))
    assert {m["pieces"] for _, _, m in big} == {len(big)}
    assert big[0][0] == f"{JOURNAL}#big" and big[1][0] == f"{JOURNAL}#big~2"
    head = "Journal — 2031-01-02: long day"
    assert all(c.startswith(head) for _, c, _ in big)  # each piece says what it is part of
    # every word of the record is in exactly one piece
    body = [c[len(head):] for _, c, _ in big]
    assert sum(b.count(WORD) for b in body) == text.count(WORD)
    assert "kingfisher" in big[-1][1]
    # in file order, after the record before it
    keys = [file_order_key(cid, meta, 0) for cid, _, meta in rows]
    assert keys == sorted(keys)
    assert "1 chunk(s) over 4,000 characters split into" in said(stats, JOURNAL)
    assert_consistent(config.db_path)


def test_a_search_over_a_long_record_reads_a_bounded_row(long_record):
    config, _ = long_record
    reindex(config=config)
    searcher = Searcher(config)
    try:
        response = searcher.search(WORD, 10, mode="keyword")
    finally:
        searcher.close()
    rows = list(response)
    assert rows and all(len(r.content) <= CHUNK_MAX_CHARS for r in rows)
    assert all(r.highlights for r in rows)


def test_a_row_stored_before_the_bounds_is_not_highlighted_whole(long_record, monkeypatch):
    """An index written before the bounds can hold a 300 KB row: its snippet reads at most
    SCAN_MAX_CHARS of it, and FTS5 highlight() (which reads all of it) is not asked."""
    config, text = long_record
    reindex(config=config)
    conn = connect(config.db_path)
    with conn:  # one old row, as an older memlens wrote it
        conn.execute("UPDATE chunks SET content = ? WHERE id = ?", (text, f"{JOURNAL}#big"))
    conn.close()
    asked: list[str] = []
    searcher = Searcher(config)
    try:
        searcher.connection().set_trace_callback(asked.append)
        rows = [r for r in searcher.search(WORD, 10, mode="keyword")
                if r.id == f"{JOURNAL}#big"]
    finally:
        searcher.close()
    assert rows and rows[0].snippet  # the head, at least
    assert rows[0].matched_terms == [WORD]
    highlighted = [s for s in asked if "highlight(" in s]  # with its values bound
    assert highlighted
    big_rowid = _rowid(config, f"{JOURNAL}#big")
    assert not any(f"rowid = {big_rowid}" in s for s in highlighted)


def _rowid(config, chunk_id):
    conn = connect(config.db_path)
    try:
        return conn.execute("SELECT rowid FROM chunks WHERE id = ?", (chunk_id,)).fetchone()[0]
    finally:
        conn.close()


def test_reindex_output_json_and_stats_name_what_was_split(long_record, capsys):
    config, _ = long_record
    root = str(config.root)
    code, out, _ = run_cli(capsys, "reindex", "--root", root, "--json")
    assert code == 0
    warnings = [w for w in json.loads(out)["warnings"] if w["source_file"] == JOURNAL]
    assert warnings and "split into" in warnings[0]["message"]
    code, out, _ = run_cli(capsys, "reindex", "--root", root)  # a second run reads nothing
    code, out, _ = run_cli(capsys, "stats", "--root", root)
    assert f"cut: {JOURNAL}: 1 chunk(s) over 4,000 characters split into" in out
    assert f"not read: {JOURNAL}" not in out
    code, out, _ = run_cli(capsys, "stats", "--root", root, "--json")
    cut = json.loads(out)["cut"]
    assert [c["source_file"] for c in cut] == [JOURNAL]
    # fixed: the notice goes with the next read
    (config.root / JOURNAL).write_text(json.dumps({"id": "a", "date": "2031-01-01",
                                                   "text": "short"}) + "\n")
    run_cli(capsys, "reindex", "--root", root)
    code, out, _ = run_cli(capsys, "stats", "--root", root, "--json")
    assert json.loads(out)["cut"] == []


# --------------------------------------------------------------------------- amplification


NOTE = "notes/inbox/long-title.md"


def test_a_long_title_is_not_copied_into_every_section(data_root):
    """A 20 KB title over 200 sections: stored once, not 200 times (it was 12 MB)."""
    title = ("heron " * 4000)[:20_000] + " osprey"
    # full-size sections: short ones are packed together (engine/extractors/markdown.py)
    sections = "".join(f"## part {i}\n{WORD} note {i} {'filler ' * 80}\n\n" for i in range(200))
    path = data_root / NOTE
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntitle: {title}\n---\n{sections}")
    config = load_config(data_root)
    stats = reindex(config=config)
    n, text_chars, meta_chars, _ = stored(config, NOTE)
    size = path.stat().st_size
    assert n >= 200
    # each chunk: its own text, a heading line of at most 2 × FIELD_MAX_CHARS, bounded metadata
    assert text_chars <= size + n * 2 * FIELD_MAX_CHARS
    assert meta_chars <= n * 1024
    rows = contents(config, NOTE)
    assert all(len(m["title"]) <= FIELD_MAX_CHARS for _, _, m in rows)
    assert sum(c.count("osprey") for _, c, _ in rows) == 1  # the whole title, indexed once
    assert "title or heading(s) over 200 characters shortened" in said(stats, NOTE)
    searcher = Searcher(config)
    try:
        assert [r.source_file for r in searcher.search("osprey", 3, mode="keyword")][:1] == [NOTE]
    finally:
        searcher.close()


def test_a_long_heading_is_shortened_in_the_heading_line_and_kept_in_its_section(data_root):
    heading = "kestrel " * 100 + "merlin"
    path = data_root / "notes/inbox/long-heading.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"# short title\n\n## {heading}\n\nbody one\n\n### deeper\n\nbody two\n")
    config = load_config(data_root)
    reindex(config=config)
    rows = contents(config, "notes/inbox/long-heading.md")
    heads = {cid.rpartition("#")[2]: c.split("\n\n")[0] for cid, c, _ in rows}
    assert heads["s2"] == f"short title > {heading}"  # whole in its own section, once
    assert len(heads["s3"]) <= 2 * FIELD_MAX_CHARS and heads["s3"].endswith("… > deeper")
    assert sum(c.count("merlin") for _, c, _ in rows) == 1
    assert all(len(json.dumps(m["section_path"])) <= 2 * FIELD_MAX_CHARS for _, _, m in rows)


def test_frontmatter_too_large_for_yaml_is_indexed_as_text(data_root):
    """50,000 keys (500 KB): not parsed as YAML (it took 14.5 s at 200,000), not copied into
    metadata (it stored 3.6 MB in one chunk); its text stays searchable."""
    keys = "".join(f"k{i}: v\n" for i in range(50_000))
    path = data_root / "notes/inbox/many-keys.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{keys}---\n# keys\n{WORD} body\n")
    config = load_config(data_root)
    stats = reindex(config=config)
    n, text_chars, meta_chars, longest = stored(config, "notes/inbox/many-keys.md")
    assert meta_chars <= n * METADATA_MAX_CHARS and longest <= CHUNK_MAX_CHARS
    assert text_chars >= len(keys)
    assert "indexed as text, not read as fields" in said(stats, "notes/inbox/many-keys.md")
    searcher = Searcher(config)
    try:
        hits = searcher.search("k49999", 3, mode="keyword")
        assert [r.source_file for r in hits][:1] == ["notes/inbox/many-keys.md"]
    finally:
        searcher.close()


def test_frontmatter_kept_per_chunk_is_bounded_and_its_first_keys_still_filter(data_root):
    keys = "".join(f"key{i}: {'long value ' * 20}\n" for i in range(100))  # 22 KB: YAML reads it
    path = data_root / "notes/inbox/wide.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nproject: alpine\n{keys}---\n# one\n{WORD} a\n\n# two\n{WORD} b\n")
    config = load_config(data_root)
    stats = reindex(config=config)
    rows = contents(config, "notes/inbox/wide.md")
    assert len(rows) == 2
    assert all(len(json.dumps(m["frontmatter"])) <= 2048 + 64 for _, _, m in rows)
    assert "each chunk keeps" in said(stats, "notes/inbox/wide.md")
    searcher = Searcher(config)
    try:
        hits = searcher.search(WORD, 5, mode="keyword", frontmatter={"project": "alpine"})
        assert {r.source_file for r in hits} == {"notes/inbox/wide.md"}
    finally:
        searcher.close()


def test_metadata_is_fit_by_shortening_its_largest_entries():
    meta = {"line": 3, "title": "x" * 10_000, "tags": [f"t{i}" for i in range(5000)],
            "frontmatter": {f"k{i}": "v" for i in range(200_000)}}
    out = fit_metadata(meta)
    assert len(json.dumps(out, ensure_ascii=False)) <= METADATA_MAX_CHARS
    assert out["line"] == 3 and out["title"].startswith("xxx") and out["title"].endswith("…")
    assert out["cut"] == ["frontmatter", "tags", "title"]
    assert list(out["frontmatter"])[:2] == ["k0", "k1"]
    small = {"line": 1, "title": "fine"}
    assert fit_metadata(small) is small
    assert short("a " * 300).endswith("…") and len(short("a " * 300)) <= FIELD_MAX_CHARS


# --------------------------------------------------------------------------- long lines


class Counted(str):
    """A str that counts the characters each split, slice, search and strip reads."""

    work = 0

    def _keep(self, value):
        Counted.work += len(value)
        return Counted(value)

    def split(self, *args):
        Counted.work += len(self)
        return [Counted(p) for p in str.split(self, *args)]

    def __getitem__(self, key):
        return self._keep(str.__getitem__(self, key))

    def rfind(self, sub, start=None, end=None):
        lo = 0 if start is None else start
        hi = len(self) if end is None else min(end, len(self))
        Counted.work += max(hi - lo, 0)
        return str.rfind(self, sub, lo, hi)

    def lstrip(self, *args):
        return self._keep(str.lstrip(self, *args))

    def rstrip(self, *args):
        return self._keep(str.rstrip(self, *args))

    def strip(self, *args):
        return self._keep(str.strip(self, *args))


def test_splitting_one_long_line_reads_each_character_a_constant_number_of_times():
    """A one-line note cut into pieces: linear work (50 MB took 492 s, quadratic)."""
    for n in (100_000, 400_000):
        Counted.work = 0
        line = Counted(f"{WORD} ab " * (n // 14))
        pieces = _hard_split(line, 2000)  # what split_section does with a long paragraph
        assert all(len(p) <= 2000 for p in pieces)
        assert "".join(pieces).replace(" ", "") == str(line).replace(" ", "")
        assert Counted.work <= 8 * len(line), (n, Counted.work)


# --------------------------------------------------------------------------- chat


LOG = "data/telegram/long.jsonl"


def test_a_long_chat_message_is_cut_and_windows_stay_bounded(data_root):
    texts = ["hello", "x " * 30_000 + "tail", *(f"{WORD} {i} " + "y" * 900 for i in range(12))]
    write_chat(data_root / LOG, texts)
    config = load_config(data_root)
    stats = reindex(config=config)
    rows = contents(config, LOG)
    assert max(len(c) for _, c, _ in rows) <= CHUNK_MAX_CHARS
    assert sum(m["message_count"] for _, _, m in rows) == len(texts)  # no message lost
    assert "1 message(s) longer than" in said(stats, LOG)
    conn = connect(config.db_path)
    try:
        assert conn.execute("SELECT sum(messages) FROM day_counts WHERE source_type = "
                            "'telegram'").fetchone()[0] == len(texts)
    finally:
        conn.close()
    # an append reads from the last window and writes what a fresh build writes
    with (data_root / LOG).open("a") as f:
        f.write(json.dumps({"date": "2026-11-02T10:00:00+00:00", "from": "Ana",
                            "text": "z" * 3000}) + "\n")
    reindex(config=config)
    appended = contents(config, LOG)
    conn = connect(config.db_path)
    conn.execute("DELETE FROM chunks WHERE source_file = ?", (LOG,))
    conn.execute("DELETE FROM index_state WHERE source_file = ?", (LOG,))
    conn.commit()
    conn.close()
    reindex(config=config)
    assert sorted((i, c) for i, c, _ in appended) == sorted((i, c) for i, c, _ in
                                                             contents(config, LOG))


# --------------------------------------------------------------------------- an older index


def test_an_older_index_reads_its_oversized_files_again(long_record):
    config, _ = long_record
    reindex(config=config)
    conn = connect(config.db_path)
    with conn:  # what an index from before the bounds holds: the record whole
        conn.execute(f"DELETE FROM chunks WHERE id LIKE '{JOURNAL}#big~%'")
        conn.execute("UPDATE chunks SET content = ?, content_hash = 'older' WHERE id = ?",
                     ("x " * 5000, f"{JOURNAL}#big"))
        conn.execute("UPDATE index_state SET notice = NULL")
    conn.close()
    migrate_from(config.db_path, 7, ())
    stats = reindex(config=config)
    assert stats.files == 1
    _, _, _, longest = stored(config, JOURNAL)
    assert longest <= CHUNK_MAX_CHARS
    assert_consistent(config.db_path)


def test_a_meeting_header_is_not_copied_into_every_part(data_root):
    """A 20 KB title and 2,000 attendees over 300 segments: each part starts with a bounded
    header; the whole header is indexed once, in #summary."""
    rel = "data/meetings/processed/2026-10-19-long.json"
    path = data_root / rel
    path.parent.mkdir(parents=True)
    title = "plover " * 3000 + "sandpiper"
    doc = {"title": title, "date": "2026-10-19",
           "attendees": [f"Person {i}" for i in range(2000)],
           "segments": [{"speaker": "Ana", "start": i * 5.0, "end": i * 5.0 + 4,
                         "text": f"{WORD} point {i} " + "x" * 400} for i in range(300)]}
    path.write_text(json.dumps(doc))
    config = load_config(data_root)
    stats = reindex(config=config)
    rows = contents(config, rel)
    n, text_chars, meta_chars, longest = stored(config, rel)
    assert longest <= CHUNK_MAX_CHARS and meta_chars <= n * METADATA_MAX_CHARS
    parts = [(i, c) for i, c, _ in rows if "#c" in i]
    assert all(len(c.split("\n")[0]) <= 2 * FIELD_MAX_CHARS for _, c in parts)
    assert text_chars <= 2 * path.stat().st_size
    assert sum(c.count("sandpiper") for _, c, _ in rows) == 1
    assert sum(c.count(f"{WORD} point") for _, c, _ in rows) == 300
    assert "the whole is indexed once, in #summary" in said(stats, rel)
