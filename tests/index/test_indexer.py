"""reindex() against real files and a real SQLite index."""

from __future__ import annotations

import os
import threading
import time

import pytest

from engine.indexer import reindex
from engine.maintenance import maintain_index
from engine.schema import SCHEMA_VERSION, EmbedderInfo, EmbedderMismatch, ensure_schema
from engine.storage.db import connect
from engine.storage.lock import WriterBusy, writer_lock
from tests.conftest import NOTE, CountingEmbedder, assert_consistent, slack_lines


def chunk_count(config, where="1=1", args=()):
    conn = connect(config.db_path)
    try:
        return conn.execute(f"SELECT count(*) FROM chunks WHERE {where}", args).fetchone()[0]
    finally:
        conn.close()


def test_first_build_indexes_every_file(config, embedder):
    stats = reindex(config=config, embedder=embedder)
    # 95 + 12 slack messages -> 10 + 2 windows; the note has #0 and 3 headed sections
    assert stats.files == 3
    assert stats.chunks == chunk_count(config) == 12 + 4
    assert stats.embedded == stats.chunks == len(embedder.texts)
    assert stats.pending_embeddings == 0 and not stats.errors
    assert_consistent(config.db_path)


def test_noop_second_reindex_embeds_nothing(config, embedder):
    reindex(config=config, embedder=embedder)
    again = CountingEmbedder()
    stats = reindex(config=config, embedder=again)
    assert again.texts == []
    assert (stats.files, stats.chunks, stats.skipped) == (0, 0, 3)
    # a touched but unchanged file is re-read, yet nothing is re-embedded (level two)
    os.utime(config.root / "notes/home/garden.md", (time.time() + 5, time.time() + 5))
    stats = reindex(config=config, embedder=again)
    # unchanged: every chunk of the index the run did not write, skipped files' included
    assert stats.files == 1 and stats.unchanged_chunks == 16 and again.texts == []


def test_appending_25_messages_embeds_only_changed_and_new_windows(config, embedder):
    reindex(config=config, embedder=embedder)
    log = config.root / "data/slack/general.jsonl"
    with log.open("a") as f:
        f.write(slack_lines(25, start=95))
    again = CountingEmbedder()
    stats = reindex(config=config, embedder=again)
    # 95 -> 120 messages: window 9 (90..99) changed, windows 10 and 11 are new
    assert stats.chunks == 3 and len(again.texts) == 3
    assert stats.unchanged_chunks == 18 - 3 and stats.deleted_chunks == 0
    assert chunk_count(config, "source_file = ?", ("data/slack/general.jsonl",)) == 12
    assert_consistent(config.db_path)


def test_an_appended_log_is_read_from_its_last_window_only(config, embedder):
    log = config.root / "data/slack/general.jsonl"
    lines = slack_lines(95).splitlines(keepends=True)
    log.write_text("".join(lines[:30]) + "{not json\n" + "".join(lines[30:]))
    stats = reindex(config=config, embedder=embedder)
    assert any("line 31" in w.message for w in stats.warnings)
    with log.open("a") as f:
        f.write(slack_lines(25, start=95))
    stats = reindex(config=config, embedder=CountingEmbedder())
    # the broken line 31 lies before the last window: not re-read, so not reported again
    assert stats.chunks == 3 and stats.unchanged_chunks == 18 - 3 and not stats.warnings
    assert_consistent(config.db_path)

    # an edit before the last window (same size) is caught by the prefix hash: full re-read
    text = log.read_text()
    log.write_text(text.replace("message 3 about", "message 3 ABOUT", 1))
    again = CountingEmbedder()
    stats = reindex(config=config, embedder=again)
    assert len(again.texts) == 1 and "ABOUT" in again.texts[0]
    assert any("line 31" in w.message for w in stats.warnings)


def test_editing_one_paragraph_reembeds_one_chunk(config, embedder):
    reindex(config=config, embedder=embedder)
    note = config.root / "notes/home/garden.md"
    note.write_text(NOTE.replace("Dahlias near the shed.", "Dahlias and lupins near the shed."))
    again = CountingEmbedder()
    stats = reindex(config=config, embedder=again)
    assert stats.chunks == 1 and len(again.texts) == 1 and "lupins" in again.texts[0]
    assert stats.unchanged_chunks == 16 - 1
    conn = connect(config.db_path)
    hits = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'lupins'")
    assert hits.fetchone()[0] == 1
    conn.close()
    assert_consistent(config.db_path)


def test_deleting_a_file_removes_its_chunks(config, embedder):
    reindex(config=config, embedder=embedder)
    (config.root / "data/slack/general.jsonl").unlink()
    stats = reindex(config=config, embedder=embedder)
    assert stats.removed_files == 1 and stats.deleted_chunks == 10
    assert chunk_count(config, "source_file = ?", ("data/slack/general.jsonl",)) == 0
    conn = connect(config.db_path)
    assert conn.execute("SELECT count(*) FROM index_state WHERE source_file = ?",
                        ("data/slack/general.jsonl",)).fetchone()[0] == 0
    assert conn.execute(
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'harbor'").fetchone()[0] == 2
    conn.close()
    assert_consistent(config.db_path)


def test_a_broken_file_is_reported_and_keeps_its_old_chunks(config, embedder):
    (config.root / "data/meetings/processed").mkdir(parents=True)
    meeting = config.root / "data/meetings/processed/2026-03-02-sync.json"
    meeting.write_text("{ this is not json")
    stats = reindex(config=config, embedder=embedder)
    assert [e.source_file for e in stats.errors] == ["data/meetings/processed/2026-03-02-sync.json"]
    assert stats.files == 3  # the rest of the run went on

    # a file that breaks after it was indexed keeps its chunks (nothing lost on bad input)
    before = chunk_count(config, "source_file = ?", ("data/slack/random.jsonl",))
    (config.root / "data/slack/random.jsonl").write_bytes(b"\xff\xfe garbage \x00\n{[")
    stats = reindex(config=config, embedder=embedder)
    assert chunk_count(config, "source_file = ?", ("data/slack/random.jsonl",)) <= before
    assert_consistent(config.db_path)


def test_failed_embeddings_are_kept_pending_and_embedded_next_run(config):
    down = CountingEmbedder(fail_with="provider_error")
    stats = reindex(config=config, embedder=down)
    assert stats.chunks == 16 and stats.embedded == 0 and stats.pending_embeddings == 16
    assert stats.embedding_errors and "provider_error" in stats.embedding_errors[0]
    # keyword-searchable meanwhile
    conn = connect(config.db_path)
    assert conn.execute(
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'dahlias'").fetchone()[0] == 1
    conn.close()
    assert_consistent(config.db_path)

    up = CountingEmbedder()
    stats = reindex(config=config, embedder=up)
    assert stats.chunks == 0 and stats.embedded == 16 and stats.pending_embeddings == 0
    assert len(up.texts) == 16
    assert_consistent(config.db_path)


def test_rejected_input_is_isolated_from_its_batch(config):
    class RejectsDahlias(CountingEmbedder):
        def embed(self, texts):
            from engine.embedder import EmbeddingError
            if any("Dahlias" in t for t in texts):
                raise EmbeddingError("provider_input_rejected", "refused (test)")
            return super().embed(texts)

    stats = reindex(config=config, embedder=RejectsDahlias())
    assert stats.pending_embeddings == 1 and stats.embedded == 15


def test_long_chunks_are_truncated_for_embedding_and_flagged(config, embedder):
    (config.root / "notes/long.md").write_text("# Long\n\n" + "word " * 9000)
    small = config.with_overrides(max_embed_chars=1000)
    reindex(config=small, embedder=embedder)
    assert max(len(t) for t in embedder.texts) == 1000
    assert chunk_count(small, "embedding_truncated = 1") >= 1


def test_second_writer_is_refused_cleanly(config, embedder):
    started, release = threading.Event(), threading.Event()

    def slow(progress):
        started.set()
        release.wait(10)

    worker = threading.Thread(target=reindex,
                              kwargs={"config": config, "embedder": embedder, "progress": slow})
    worker.start()
    try:
        assert started.wait(10)
        with pytest.raises(WriterBusy, match="reindex .* is already writing"):
            reindex(config=config, embedder=embedder)
        with pytest.raises(WriterBusy):
            maintain_index(config.db_path)
    finally:
        release.set()
        worker.join()
    assert reindex(config=config, embedder=embedder).skipped == 3


def test_cancel_stops_at_a_file_boundary_and_next_run_finishes(config, embedder):
    cancel = threading.Event()
    seen = []

    def progress(p):
        if p.phase == "index":
            seen.append(p.current_file)
            cancel.set()

    stats = reindex(config=config, embedder=embedder, progress=progress, cancel=cancel)
    assert stats.cancelled and stats.files == 1
    assert_consistent(config.db_path)
    stats = reindex(config=config, embedder=embedder)
    assert stats.files == 2 and not stats.cancelled
    assert chunk_count(config) == 16


def test_progress_reports_files_and_chunks(config, embedder):
    events = []
    reindex(config=config, embedder=embedder, progress=events.append)
    phases = [e.phase for e in events]
    assert phases[0] == "scan" and phases[-1] == "done"
    index_events = [e for e in events if e.phase == "index"]
    assert {e.files_total for e in index_events} == {3}
    assert events[-1].chunks_embedded == 16


def test_embedder_mismatch_never_mixes_vectors_and_re_embed_switches(config, embedder):
    reindex(config=config, embedder=embedder)

    class Other(CountingEmbedder):
        model = "other-model"

    with pytest.raises(EmbedderMismatch, match="re-embed"):
        reindex(config=config, embedder=Other())
    other = Other()
    stats = reindex(config=config, embedder=other, re_embed=True)
    assert stats.embedded == 16 and len(other.texts) == 16
    conn = connect(config.db_path)
    assert conn.execute("SELECT value FROM meta WHERE key='embedder_model'").fetchone()[0] == \
        "other-model"
    conn.close()
    assert_consistent(config.db_path)


def test_schema_is_idempotent_and_versioned(config, embedder):
    reindex(config=config, embedder=embedder)
    conn = connect(config.db_path)
    ensure_schema(conn)
    ensure_schema(conn)
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert EmbedderInfo("local", "m", 256).describe() == "local:m (256-d)"


def test_maintenance_hands_back_free_pages_and_rewrites_the_search_file(config, embedder,
                                                                         monkeypatch):
    from engine.index import contents

    log = config.root / "data/slack/big.jsonl"
    lines = slack_lines(12000).splitlines(keepends=True)
    log.write_text("".join(lines))
    reindex(config=config, embedder=embedder)
    for round_ in range(2):  # rewrite the older half
        log.write_text("".join(
            [line.replace("harbor", f"harbor{round_}") for line in lines[:8000]] + lines[8000:]))
        reindex(config=config, embedder=embedder)
    log.write_text("".join(lines[10000:]))  # most of it gone: its pages are free
    reindex(config=config, embedder=embedder)
    monkeypatch.setattr(contents, "MIN_FREE_BYTES", 0)
    conn = connect(config.db_path)
    health = contents.storage_health(conn, config.db_path)
    conn.close()
    assert health.free_bytes > 0 and health.suggest_maintenance
    assert health.vectors == chunk_count(config) and health.search_problem is None
    assert "each stored once" in health.vector_line and "maintenance" not in health.free_line
    assert health.search_line.startswith("search file ") and "segment" in health.search_line
    stats = maintain_index(config.db_path)
    assert stats["reclaimed_bytes"] > 0 and stats["size_after"] < stats["size_before"]
    assert stats["free_bytes_after"] == 0 < stats["free_bytes_before"]
    assert stats["vectors"] == stats["sidecar_rows"] == chunk_count(config)
    assert_consistent(config.db_path)
    conn = connect(config.db_path)
    assert not contents.storage_health(conn, config.db_path).suggest_maintenance
    conn.close()
    no_vacuum = maintain_index(config.db_path, vacuum=False)
    assert not no_vacuum["vacuumed"] and "vacuum_s" not in no_vacuum["timings"]


def test_writer_lock_is_released_after_use(config):
    with writer_lock(config.db_path, "test"):
        pass
    with writer_lock(config.db_path, "test"):
        pass


def test_a_version_1_index_is_migrated_in_place(config, embedder):
    conn = connect(config.db_path)
    conn.execute("CREATE TABLE index_state (source_file TEXT PRIMARY KEY, mtime REAL NOT NULL, "
                 "indexed_at TEXT NOT NULL, source_type TEXT, error TEXT)")
    conn.execute("CREATE TABLE chunks (id TEXT PRIMARY KEY, source_file TEXT NOT NULL, "
                 "source_type TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT, "
                 "embedding BLOB, indexed_at TEXT NOT NULL, content_hash TEXT NOT NULL, "
                 "content_date TEXT, embedding_truncated INTEGER NOT NULL DEFAULT 0)")
    conn.execute("CREATE INDEX chunks_source_file ON chunks(source_file)")
    conn.execute("PRAGMA user_version = 1")
    ensure_schema(conn)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(index_state)")}
    assert {"size", "resume", "prefix_hash"} <= columns
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vector_changes'").fetchone()
    conn.close()


class BatchingEmbedder(CountingEmbedder):
    """Like a transformer or a remote provider: a call has a fixed cost."""

    prefers_full_batches = True

    def __init__(self):
        super().__init__()
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return super().embed(texts)


def test_small_files_are_embedded_in_full_batches_by_the_pending_pass(config):
    for i in range(6):
        (config.root / f"notes/small-{i}.md").write_text(f"# Small {i}\n\nkohlrabi note {i}\n")
    embedder = BatchingEmbedder()
    stats = reindex(config=config, embedder=embedder)
    files = stats.files
    assert files >= 6 and stats.pending_embeddings == 0
    assert embedder.calls < files  # not one call per file
    assert chunk_count(config, "embedding IS NULL") == 0
    assert chunk_count(config, "embedding IS NOT NULL") == stats.embedded > 0


def test_a_cancelled_run_leaves_gathered_chunks_pending_for_the_next(config):
    stop = threading.Event()

    def on_progress(p):  # the last file is being indexed: stop before the pending pass
        if p.phase == "index" and p.files_total and p.files_done == p.files_total - 1:
            stop.set()

    stats = reindex(config=config, embedder=BatchingEmbedder(), progress=on_progress,
                    cancel=stop)
    assert stats.cancelled and stats.pending_embeddings > 0
    assert chunk_count(config, "embedding IS NULL") == stats.pending_embeddings
    stats = reindex(config=config, embedder=BatchingEmbedder())
    assert stats.pending_embeddings == 0 and chunk_count(config, "embedding IS NULL") == 0


def test_a_bulk_run_leaves_one_text_segment_and_a_small_one_does_not_merge(config, embedder):
    """Each file's commit adds an FTS5 segment; a run that wrote at least half of the index
    merges them (every phrase lookup probes each segment), a small append leaves the merging
    to FTS5's automerge and maintenance."""
    def segments():
        conn = connect(config.db_path)
        try:
            return [conn.execute(f"SELECT count(DISTINCT segid) FROM {t}_idx").fetchone()[0]
                    for t in ("chunks_fts", "chunks_cjk")]
        finally:
            conn.close()

    notes = config.root / "notes" / "bulk"
    notes.mkdir(parents=True)
    for i in range(12):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n\nbudget review {i} and the garden\n")
    first = reindex(config=config, embedder=embedder)
    assert first.files == 15 and not first.warnings
    assert segments()[0] == 1 and segments()[1] <= 1  # (no CJK text here: no trigram segment)
    (notes / "late.md").write_text("# Late\n\na later note about the budget\n")
    later = reindex(config=config, embedder=embedder)
    assert later.files == 1 and later.chunks == 1
    assert segments()[0] == 2
    assert_consistent(config.db_path)
