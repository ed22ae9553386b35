"""Message vectors of chat windows (engine/vectors/message_vectors.py): what is embedded, that they are
written, replaced and removed with their window, survive a provider outage and a refused input,
are backfilled once for an older index, and how the semantic arm scores a window with them."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from engine.embedder import EmbeddingError
from engine.indexer import reindex
from engine.schema import get_meta
from engine.searcher import Searcher
from engine.storage.db import connect
from engine.vectors.message_vectors import (
    EDGE,
    META_KEY,
    message_texts,
    pack,
    rescore,
    store,
    unpack,
)
from tests.app.conftest import aio, job_panel_text
from tests.conftest import CountingEmbedder, assert_consistent, migrate_from, slack_lines
from tests.vectors.conftest import MessageEmbedder, cli_progress_task, message_rows

WINDOW = ("[2026-03-01 09:00] Maya Chen: where is the key?\n"
          "[2026-03-01 09:05] Sam Rivera: under the mat\n"
          "  and the spare is with Ola\n"
          "[2026-03-01 09:07] Maya Chen: thanks\n")




class DownOnMessages(MessageEmbedder):
    """Embeds windows and notes; goes down (provider_error) when asked for a lone message."""

    def embed(self, texts):
        if any("\n" not in t and t.startswith(("Maya Chen:", "Sam Rivera:")) for t in texts):
            raise EmbeddingError("provider_error", "connection reset (test)")
        return super().embed(texts)


class RefusesOne(MessageEmbedder):
    """Refuses one message's text (provider_input_rejected), as a content filter would."""

    def embed(self, texts):
        if "Sam Rivera: message 3 about the harbor bridge project" in texts:
            raise EmbeddingError("provider_input_rejected", "refused (test)")
        return super().embed(texts)


def db(config):
    return connect(config.db_path)




def chat_windows(config) -> dict[str, str]:
    conn = db(config)
    try:
        return dict(conn.execute(
            "SELECT id, content FROM chunks WHERE source_type = 'slack'").fetchall())
    finally:
        conn.close()


def orphans(config) -> int:
    conn = db(config)
    try:
        return conn.execute("SELECT count(*) FROM message_vectors WHERE chunk_rowid NOT IN "
                            "(SELECT rowid FROM chunks)").fetchone()[0]
    finally:
        conn.close()


# -- what a message is --------------------------------------------------------------------------

def test_a_window_is_split_into_its_messages_without_timestamps():
    assert message_texts("data/slack/general.jsonl#w3", WINDOW) == [
        "Maya Chen: where is the key?",
        "Sam Rivera: under the mat\n  and the spare is with Ola",  # a message spans lines
        "Maya Chen: thanks"]


def test_other_chunks_have_no_messages():
    assert message_texts("notes/home/garden.md#vegetables", WINDOW) is None
    assert message_texts("data/slack/general.jsonl#w3", "no message layout here") is None


def test_packed_rows_are_unit_float16_and_empty_means_none():
    rows = pack([np.array([3.0, 4.0]), np.array([0.0, 2.0])])
    got = unpack(rows, 2)
    assert got.dtype == np.float16 and got.shape == (2, 2)
    assert np.allclose(got.astype(np.float32), [[0.6, 0.8], [0.0, 1.0]], atol=1e-3)
    assert pack([]) == b"" and unpack(b"", 2) is None
    assert unpack(rows, 3) is None  # another dimension's rows are never read


# -- written with the window, replaced and removed with it ---------------------------------------

def test_every_chat_window_gets_one_vector_per_message_and_notes_none(config):
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    windows = chat_windows(config)
    rows = message_rows(config)
    assert set(rows) == set(windows)  # chat windows only: the note's sections have none
    for cid, content in windows.items():
        assert rows[cid] == len(message_texts(cid, content)) == content.count("\n[") + 1
    # the vectors are the embedder's for each message's text
    conn = db(config)
    cid = "data/slack/general.jsonl#w0"
    blob = conn.execute("SELECT m.vectors FROM message_vectors m JOIN chunks c ON "
                        "c.rowid = m.chunk_rowid WHERE c.id = ?", (cid,)).fetchone()[0]
    conn.close()
    want = embedder.embed(message_texts(cid, windows[cid]))
    assert np.allclose(unpack(blob, want.shape[1]).astype(np.float32), want, atol=2e-3)
    assert get_meta(db(config), META_KEY) == f"minilm:{embedder.model}"
    assert_consistent(config.db_path)


def test_the_local_embedder_stores_no_message_vectors(config):
    reindex(config=config, embedder=CountingEmbedder())
    assert message_rows(config) == {}


def test_the_config_can_turn_them_off_for_a_big_root(config):
    reindex(config=replace(config, message_share=0.0), embedder=MessageEmbedder())
    assert message_rows(config) == {}


def test_windows_written_while_they_were_turned_off_get_them_when_turned_back_on(config):
    reindex(config=config, embedder=MessageEmbedder())
    (config.root / "data/slack/more.jsonl").write_text(slack_lines(15, start=200))
    reindex(config=replace(config, message_share=0.0), embedder=MessageEmbedder())
    assert not any(cid.startswith("data/slack/more") for cid in message_rows(config))
    reindex(config=config, embedder=MessageEmbedder())
    assert set(message_rows(config)) == set(chat_windows(config))


def test_a_changed_window_gets_new_message_vectors_and_a_removed_file_leaves_none(config):
    reindex(config=config, embedder=MessageEmbedder())
    path = config.root / "data/slack/general.jsonl"
    lines = path.read_text().splitlines()
    edited = json.loads(lines[2])
    edited["text"] = "the ferry timetable changed"
    lines[2] = json.dumps(edited)
    path.write_text("\n".join(lines) + "\n")
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    # only the edited window was embedded again: its own vector and its messages
    assert sum("\n" not in t for t in embedder.texts) == 10
    assert any("the ferry timetable changed" == t.split(": ", 1)[1] for t in embedder.texts)
    rows = message_rows(config)
    assert set(rows) == set(chat_windows(config)) and orphans(config) == 0
    (config.root / "data/slack/random.jsonl").unlink()
    reindex(config=config, embedder=MessageEmbedder())
    assert not any(cid.startswith("data/slack/random") for cid in message_rows(config))
    assert orphans(config) == 0


def test_a_re_embed_with_another_embedder_drops_them(config):
    reindex(config=config, embedder=MessageEmbedder())
    assert message_rows(config)
    reindex(config=config, embedder=CountingEmbedder(), re_embed=True)
    assert message_rows(config) == {} and orphans(config) == 0
    assert get_meta(db(config), META_KEY) is None


# -- failures -------------------------------------------------------------------------------

def test_a_provider_down_on_messages_leaves_the_window_pending_then_both_are_embedded(config):
    stats = reindex(config=config, embedder=DownOnMessages())
    assert message_rows(config) == {}
    conn = db(config)
    pending = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE embedding IS NULL")}
    conn.close()
    # no window kept a vector without its messages (the provider stays down for the run, so
    # what came after waits too)
    assert set(chat_windows(config)) <= pending
    assert stats.pending_embeddings == len(pending) and stats.embedding_errors
    assert_consistent(config.db_path)
    stats = reindex(config=config, embedder=MessageEmbedder())
    assert stats.pending_embeddings == 0
    assert set(message_rows(config)) == set(chat_windows(config))
    assert_consistent(config.db_path)


def test_a_refused_message_is_left_out_and_the_window_keeps_the_others(config):
    stats = reindex(config=config, embedder=RefusesOne())
    assert stats.pending_embeddings == 0
    rows = message_rows(config)
    assert rows["data/slack/general.jsonl#w0"] == 9
    assert rows["data/slack/general.jsonl#w1"] == 10
    assert any("provider_input_rejected" in e for e in stats.embedding_errors)


# -- an index built before message vectors -------------------------------------------------------

def _forget_messages(config) -> None:
    conn = db(config)
    conn.execute("DELETE FROM message_vectors")
    conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
    conn.commit()
    conn.close()


def test_an_older_index_is_backfilled_once_without_re_embedding_windows(config):
    reindex(config=config, embedder=MessageEmbedder())
    want = message_rows(config)
    _forget_messages(config)
    embedder = MessageEmbedder()
    phases = []
    stats = reindex(config=config, embedder=embedder, progress=lambda p: phases.append(p))
    assert message_rows(config) == want
    assert stats.embedded == 0  # the windows' own vectors were kept
    assert all("\n" not in t for t in embedder.texts) and len(embedder.texts) == sum(want.values())
    last = [p for p in phases if p.phase == "messages"][-1]
    assert last.pending_done == last.pending_total == len(want)
    again = MessageEmbedder()
    reindex(config=config, embedder=again)
    assert again.texts == []  # recorded as done: no second pass


def test_a_cancelled_backfill_keeps_what_it_wrote_and_the_next_run_finishes(config):
    reindex(config=config, embedder=MessageEmbedder())
    want = message_rows(config)
    _forget_messages(config)
    seen = []

    def cancel_after_first_batch() -> bool:
        return bool(seen)

    reindex(config=replace(config, embedding_batch_size=4), embedder=MessageEmbedder(),
            progress=lambda p: seen.append(p) if p.phase == "messages" else None,
            cancel=cancel_after_first_batch)
    part = message_rows(config)
    assert 0 < len(part) < len(want) and get_meta(db(config), META_KEY) is None
    reindex(config=config, embedder=MessageEmbedder())
    assert message_rows(config) == want and orphans(config) == 0


def test_a_v4_index_is_migrated_by_the_writer(config):
    reindex(config=config, embedder=MessageEmbedder())
    migrate_from(config.db_path, 4, ("DROP TRIGGER chunks_msg_ad", "DROP TRIGGER chunks_msg_au",
                                     "DROP TABLE message_vectors",
                                     f"DELETE FROM meta WHERE key = '{META_KEY}'"))
    reindex(config=config, embedder=MessageEmbedder())
    assert set(message_rows(config)) == set(chat_windows(config))


# -- scoring ----------------------------------------------------------------------------------

def test_rescore_mixes_the_best_message_and_leaves_other_hits_alone(config):
    reindex(config=config, embedder=CountingEmbedder())
    conn = db(config)
    w0, w1, w2 = (conn.execute("SELECT rowid FROM chunks WHERE id = ?",
                               (f"data/slack/general.jsonl#w{n}",)).fetchone()[0]
                  for n in range(3))
    note = conn.execute("SELECT rowid FROM chunks WHERE source_type = 'note'").fetchone()[0]
    q, near, far = np.zeros(256, np.float32), np.zeros(256), np.zeros(256)
    q[0] = near[0] = far[1] = 1.0
    hits = [(w0, 0.5), (note, 0.45), (w1, 0.4)]
    store(conn, [(w0, pack([far, near])), (w1, pack([far]))])
    out = rescore(conn, hits, q, 0.5)
    # w0: 0.5 × 0.5 + 0.5 × 1.0 = 0.75; w1: its own message is far, but the last messages of
    # w0 before it reach it: 0.5 × 0.4 + 0.5 × 1.0 = 0.7; the note keeps its 0.45
    assert [h[0] for h in out.hits] == [w0, w1, note]
    assert out.hits[0][1] == pytest.approx(0.75, abs=1e-3)
    assert out.hits[2] == (note, 0.45)
    assert out.parts[w1] == pytest.approx((0.4, 1.0), abs=1e-3) and note not in out.parts
    assert rescore(conn, hits, q, 0.0).hits == hits
    # a window that is not a hit lends its first messages, EDGE of them and no more
    store(conn, [(w0, pack([far])), (w1, pack([far])),
                 (w2, pack([far] * EDGE + [near]))])
    assert rescore(conn, hits, q, 0.5).parts[w1] == pytest.approx((0.4, 0.0), abs=1e-3)
    store(conn, [(w2, pack([far] * (EDGE - 1) + [near]))])
    assert rescore(conn, hits, q, 0.5).parts[w1] == pytest.approx((0.4, 1.0), abs=1e-3)
    conn.close()


def test_a_search_shows_the_mix_in_its_scores_and_the_share_can_be_turned_off(config):
    topics = ["the quarterly budget review", "a new espresso machine", "parking permits",
              "the ferry to Helsinki leaves at dawn", "printer toner", "holiday rota"]
    lines = [json.dumps({"ts": f"2026-05-0{1 + i // 3}T1{i % 10}:00:00+00:00",
                         "user": ("Ana", "Ben")[i % 2], "text": f"about {t}"})
             for i, t in enumerate(topics * 3)]
    (config.root / "data/slack/travel.jsonl").write_text("\n".join(lines) + "\n")
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    query = "ferry Helsinki dawn"
    mixed = Searcher(replace(config, message_share=0.5), embedder=embedder)
    r = mixed.search(query, mode="semantic", limit=5)
    assert r.fusion == ("semantic arm only: score = similarity; chat windows: sim = 0.50 × window + 0.50 × best "
                        "message of its own and the 2 either side")
    assert mixed.search(query, limit=5).fusion.endswith(
        f"+ 0.50 × best message of its own and the {EDGE} either side")
    top = r.results[0]
    assert top.id.startswith("data/slack/travel.jsonl#w")
    text = top.fusion_terms["semantic"]
    assert "0.50 × window" in text and "0.50 × best message" in text
    plain = Searcher(replace(config, message_share=0.0), embedder=embedder)
    p = plain.search(query, mode="semantic", limit=20)
    assert p.fusion == "semantic arm only: score = similarity"
    assert all("best message" not in x.fusion_terms.get("semantic", "") for x in p.results)
    # the message that names the ferry is nearer the query than its whole window
    own = next(x.similarity for x in p.results if x.id == top.id)
    assert own < top.similarity
    mixed.close()
    plain.close()


def test_stats_count_the_windows_with_message_vectors(config, capsys):
    from engine.library import Library
    from tests.conftest import run_cli

    reindex(config=config, embedder=CountingEmbedder())
    assert Library(config).statistics().message_vectors == 0
    reindex(config=config, embedder=MessageEmbedder(), re_embed=True)
    windows = len(chat_windows(config))
    assert Library(config).statistics().message_vectors == windows
    code, out, _ = run_cli(capsys, "stats", "--root", str(config.root))
    assert code == 0 and f"message vectors for {windows} chat windows" in out


def test_maintenance_keeps_each_window_with_its_own_message_vectors(config):
    from engine.maintenance import maintain_index

    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    (config.root / "data/slack/general.jsonl").unlink()  # holes in the rowids before VACUUM
    reindex(config=config, embedder=embedder)
    maintain_index(config.db_path, vacuum=True)
    conn = db(config)
    rows = conn.execute("SELECT c.id, c.content, m.vectors FROM message_vectors m "
                        "JOIN chunks c ON c.rowid = m.chunk_rowid").fetchall()
    conn.close()
    assert rows and orphans(config) == 0
    for cid, content, blob in rows:
        want = embedder.embed(message_texts(cid, content))
        assert np.allclose(unpack(blob, want.shape[1]).astype(np.float32), want, atol=2e-3)


# -- the backfill's progress in the front doors -------------------------------------------------

@aio
async def test_the_app_shows_the_backfill_of_message_vectors():
    from engine.index.run_report import Progress

    text = await job_panel_text(Progress("messages", 3, 3, 0, None, 40, 10), 2.0)
    assert "embedding chat windows' messages 10/40" in text




def test_the_cli_shows_the_backfill_of_message_vectors(monkeypatch):
    from engine.index.run_report import Progress

    task = cli_progress_task(monkeypatch, Progress("messages", 3, 3, 0, None, 40, 10))
    assert task.description == "embedding chat messages"
    assert (task.completed, task.total) == (10, 40)


def test_the_header_names_the_mix_only_when_some_window_was_mixed(config):
    embedder = MessageEmbedder()
    reindex(config=replace(config, message_share=0.0), embedder=embedder)  # stores none
    s = Searcher(replace(config, message_share=0.5), embedder=embedder)
    r = s.search("harbor bridge project", limit=5)
    assert r.results and "best message" not in r.fusion
    assert all("best message" not in x.fusion_terms.get("semantic", "") for x in r.results)
    s.close()
