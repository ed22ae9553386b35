"""Message vectors at the edges: a chat window and its message vectors stay one unit (and no
row outlives its window's content) through appends, re-embeds, outages at any call, refusals,
cancels at any point and full re-reads; the backfill ends; the search reads them only where
it should (engine/vectors/message_vectors.py, docs/reliability.md)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from engine.embedder import EmbeddingError
from engine.indexer import reindex
from engine.retrieval.passages import WINDOW_ID
from engine.schema import get_meta
from engine.searcher import Searcher
from engine.storage.db import connect
from engine.vectors.message_vectors import META_KEY, message_texts, pack, rescore, store, unpack
from tests.conftest import assert_consistent, slack_lines
from tests.vectors.conftest import DownAfter, MessageEmbedder, message_rows

REFERENCE = MessageEmbedder()


def assert_one_unit(config, *, refused: frozenset[str] = frozenset()) -> None:
    """Every chat window with a vector has its message vectors, made from its current content
    (less the messages in ``refused``); no row is left for a chunk gone, changed or pending."""
    conn = connect(config.db_path)
    try:
        chunks = {rowid: (cid, content, emb is not None) for rowid, cid, content, emb in
                  conn.execute("SELECT rowid, id, content, embedding FROM chunks")}
        rows = dict(conn.execute("SELECT chunk_rowid, vectors FROM message_vectors"))
        dim = int(get_meta(conn, "embedding_dim"))
    finally:
        conn.close()
    assert set(rows) <= set(chunks), "message vectors of a chunk that is gone"
    for rowid, (cid, content, embedded) in chunks.items():
        texts = message_texts(cid, content)
        if not embedded or not texts:
            assert rowid not in rows, f"{cid}: message vectors without the window's vector"
            continue
        assert rowid in rows, f"{cid}: a window vector without its message vectors"
        want = [t for t in texts if t not in refused]
        got = unpack(rows[rowid], dim) if want else None
        assert (got is None and not want) or np.allclose(
            got.astype(np.float32), REFERENCE.embed(want), atol=2e-3), f"{cid}: stale vectors"
    assert_consistent(config.db_path)


def fresh(config) -> None:
    """No index: the next run is a first one."""
    shutil.rmtree(config.db_path.parent)




class RefusesMessages(MessageEmbedder):
    """Refuses the lone messages numbered in ``numbers`` (provider_input_rejected)."""

    def __init__(self, numbers: range):
        super().__init__()
        self.refused = frozenset(f"{who}: message {i} about the harbor bridge project"
                                 for i in numbers for who in ("Maya Chen", "Sam Rivera"))

    def embed(self, texts):
        if self.refused.intersection(texts):
            raise EmbeddingError("provider_input_rejected", "refused (test)")
        return super().embed(texts)


class RefusesWindow(MessageEmbedder):
    """Refuses the chat window holding message 33 (general.jsonl#w3), not its messages."""

    def embed(self, texts):
        if any("message 33 about" in t and "\n" in t for t in texts):
            raise EmbeddingError("provider_input_rejected", "refused (test)")
        return super().embed(texts)


def calls_of_a_first_index(config) -> int:
    counting = DownAfter(10_000)
    reindex(config=config, embedder=counting)
    fresh(config)
    return 10_000 - counting.left


# -- one unit through every write path -----------------------------------------------------------

def test_an_append_rewrites_the_last_window_and_its_message_vectors(config):
    reindex(config=config, embedder=MessageEmbedder())
    with (config.root / "data/slack/general.jsonl").open("a") as fh:
        fh.write(slack_lines(10, start=95))
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    # the resume point: only the last window (5 -> 10 messages) and the new one were embedded
    assert sum("\n" in t for t in embedder.texts) == 2
    assert message_rows(config)["data/slack/general.jsonl#w9"] == 10
    assert message_rows(config)["data/slack/general.jsonl#w10"] == 5
    assert_one_unit(config)


def test_a_re_embed_with_the_same_embedder_gives_every_window_its_messages_again(config):
    reindex(config=config, embedder=MessageEmbedder())
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder, re_embed=True)
    assert sum("\n" not in t for t in embedder.texts) == sum(message_rows(config).values())
    assert get_meta(connect(config.db_path), META_KEY) == f"minilm:{embedder.model}"
    assert_one_unit(config)


def test_a_full_re_read_after_an_edit_keeps_each_window_with_its_messages(config):
    reindex(config=config, embedder=MessageEmbedder())
    path = config.root / "data/slack/random.jsonl"
    path.write_text(path.read_text().replace("message 3 about", "message 3 not about"))
    reindex(config=config, embedder=MessageEmbedder(), full=True)
    assert_one_unit(config)


def test_a_provider_down_at_any_call_leaves_no_window_without_its_messages(config):
    config = replace(config, embedding_batch_size=8)  # many calls: many places to fail
    calls = calls_of_a_first_index(config)
    assert calls > 15
    for answered in range(calls):
        stats = reindex(config=config, embedder=DownAfter(answered))
        assert stats.embedding_errors, answered
        assert_one_unit(config)
        reindex(config=config, embedder=MessageEmbedder())
        assert_one_unit(config)
        assert set(message_rows(config)) == {
            cid for cid in _ids(config) if WINDOW_ID.match(cid)}, answered
        fresh(config)


def test_a_run_cancelled_at_any_call_leaves_no_window_without_its_messages(config):
    config = replace(config, embedding_batch_size=8)
    calls = calls_of_a_first_index(config)
    for answered in range(calls):
        embedder = DownAfter(10_000)
        stats = reindex(config=config, embedder=embedder,
                        cancel=lambda e=embedder, n=answered: 10_000 - e.left >= n)
        assert_one_unit(config)
        if stats.cancelled:
            assert get_meta(connect(config.db_path), META_KEY) is None
        reindex(config=config, embedder=MessageEmbedder())
        assert_one_unit(config)
        fresh(config)


def test_a_provider_that_wants_full_batches_embeds_windows_and_messages_together(config):
    class FullBatches(MessageEmbedder):
        prefers_full_batches = True

    stats = reindex(config=config, embedder=FullBatches())
    assert stats.pending_embeddings == 0
    assert set(message_rows(config)) == {cid for cid in _ids(config) if WINDOW_ID.match(cid)}
    assert_one_unit(config)


def test_ten_refused_messages_in_a_row_stop_the_run_and_no_window_is_left_half(config):
    embedder = RefusesMessages(range(20, 40))
    stats = reindex(config=config, embedder=embedder)
    assert any("in a row" in e for e in stats.embedding_errors)
    assert_one_unit(config)
    # the window holding the refusals waits with its messages
    assert "data/slack/general.jsonl#w2" not in message_rows(config)
    reindex(config=config, embedder=MessageEmbedder())
    assert_one_unit(config)


def test_a_refused_window_waits_and_gets_its_messages_when_embedded(config):
    stats = reindex(config=config, embedder=RefusesWindow())
    assert stats.pending_embeddings == 1
    assert "data/slack/general.jsonl#w3" not in message_rows(config)
    assert_one_unit(config)
    reindex(config=config, embedder=MessageEmbedder())
    assert message_rows(config)["data/slack/general.jsonl#w3"] == 10
    assert_one_unit(config)


def _ids(config) -> list[str]:
    conn = connect(config.db_path)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM chunks")]
    finally:
        conn.close()


# -- the backfill ------------------------------------------------------------------------------

def _forget_messages(config) -> None:
    """As an index built before message vectors: none stored, no backfill done."""
    conn = connect(config.db_path)
    conn.execute("DELETE FROM message_vectors")
    conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
    conn.commit()
    conn.close()


def test_the_backfill_ends_on_chunks_named_like_windows_that_hold_no_messages(config):
    journal = config.root / "data/journal"
    journal.mkdir(parents=True)
    (journal / "2026.jsonl").write_text("".join(
        json.dumps({"id": f"w{i}", "date": "2026-03-01", "title": f"day {i}",
                    "text": f"walked to the harbor {i}"}) + "\n" for i in range(3)))
    reindex(config=config, embedder=MessageEmbedder())
    assert "data/journal/2026.jsonl#w1" in _ids(config)
    _forget_messages(config)
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    assert get_meta(connect(config.db_path), META_KEY) == f"minilm:{embedder.model}"
    assert not any(cid.startswith("data/journal") for cid in message_rows(config))
    assert_one_unit(config)
    again = MessageEmbedder()
    reindex(config=config, embedder=again)
    assert again.texts == []


def test_the_backfill_counts_only_the_windows_it_can_do(config):
    reindex(config=config, embedder=RefusesWindow())
    _forget_messages(config)
    phases = []
    reindex(config=config, embedder=RefusesWindow(), progress=phases.append)
    last = [p for p in phases if p.phase == "messages"][-1]
    # the refused window waits for its own vector: the backfill has nothing to do for it
    assert last.pending_done == last.pending_total == len(message_rows(config))
    assert_one_unit(config)


@pytest.mark.parametrize("answered", [0, 1, 3])
def test_a_backfill_cut_by_an_outage_keeps_what_it_wrote_and_the_next_run_ends_it(
        config, answered):
    config = replace(config, embedding_batch_size=4)
    reindex(config=config, embedder=MessageEmbedder())
    want = message_rows(config)
    _forget_messages(config)
    stats = reindex(config=config, embedder=DownAfter(answered))
    assert stats.embedding_errors and get_meta(connect(config.db_path), META_KEY) is None
    assert len(message_rows(config)) < len(want)
    reindex(config=config, embedder=MessageEmbedder())
    assert message_rows(config) == want
    assert_one_unit(config)


# -- the search ---------------------------------------------------------------------------------

def test_rescore_never_raises_on_odd_rows_and_leaves_those_hits_as_they_were(config):
    reindex(config=config, embedder=MessageEmbedder())
    conn = connect(config.db_path)
    dim = int(get_meta(conn, "embedding_dim"))
    rowids = [r[0] for r in conn.execute(
        "SELECT rowid FROM chunks WHERE id LIKE 'data/slack/general%' ORDER BY rowid LIMIT 5")]
    unit = np.zeros(dim, np.float32)
    unit[0] = 1.0
    store(conn, [(rowids[0], b""),  # every message refused
                 (rowids[1], b"\x00" * 3),  # not float16 rows
                 (rowids[2], pack([np.ones(dim + 1)])),  # another dimension's
                 (rowids[3], "x" * 2 * dim),  # text, not a blob: a hand-edited index
                 (rowids[4], pack([unit]))])
    hits = [(r, 0.5 - i / 100) for i, r in enumerate(rowids)]
    out = rescore(conn, hits, unit, 0.5)
    assert out.hits[0] == (rowids[4], pytest.approx(0.5 * 0.46 + 0.5))
    assert out.hits[1:] == hits[:4] and set(out.parts) == {rowids[4]}
    for query in (np.ones(dim // 2), np.zeros(dim), np.array([[1.0] * dim]), np.ones(dim + 3)):
        rescore(conn, hits, query, 0.5)  # another size, no norm, a row: never raises
    conn.close()


def _dated_chat(config) -> None:
    """30 days of a channel: windows w0 (May 1-10), w1 (May 11-20), w2 (May 21-30)."""
    topics = ["the ferry to Helsinki leaves at dawn", "printer toner", "holiday rota"]
    (config.root / "data/slack/travel.jsonl").write_text("".join(
        json.dumps({"ts": f"2026-05-{1 + i:02d}T10:00:00+00:00", "user": ("Ana", "Ben")[i % 2],
                    "text": f"about {topics[i % 3]} day {i}"}) + "\n" for i in range(30)))


def SEARCH(config):  # noqa: N802 - reads as a constant
    """The config a search with MessageEmbedder runs with: the test root's configured
    embedder is the local one, whose calibration reads no message vectors."""
    return replace(config, message_share=0.5)


QUERY = "the ferry at dawn, the harbor bridge, tomatoes along the south fence"
FILTERS = [
    ({"source_types": ["note"]}, lambda r: r.source_type == "note"),
    ({"source_types": ["slack"]}, lambda r: r.source_type == "slack"),
    ({"since": "2026-05-11", "until": "2026-05-20"},
     lambda r: r.content_date is not None and "2026-05-11" <= r.content_date <= "2026-05-20"),
    ({"path_prefix": "data/slack/random"},
     lambda r: r.source_file.startswith("data/slack/random")),
]


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
@pytest.mark.parametrize(("filters", "passes"), FILTERS)
def test_a_filtered_search_returns_only_rows_passing_its_filters(config, mode, filters, passes):
    _dated_chat(config)
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    searcher = Searcher(SEARCH(config), embedder=embedder)
    try:
        everything = searcher.search(QUERY, mode=mode, limit=50)
        assert not all(passes(r) for r in everything)  # the filter has something to drop
        response = searcher.search(QUERY, mode=mode, limit=50, **filters)
    finally:
        searcher.close()
    assert response.results and all(passes(r) for r in response.results)
    if filters != {"source_types": ["note"]}:  # chat windows were scored with their messages
        assert any("best message" in r.fusion_terms.get("semantic", "")
                   for r in response.results)


def test_a_keyword_search_reads_no_message_vectors(config):
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    searcher = Searcher(SEARCH(config), embedder=embedder)
    statements: list[str] = []
    searcher.connection().set_trace_callback(statements.append)
    # the vector arm reads through the worker thread's own connection
    searcher._open_worker_connection().set_trace_callback(statements.append)
    try:
        response = searcher.search("harbor bridge", mode="keyword", limit=20)
        assert response.results and response.fusion.startswith("keyword arm only")
        assert not any("message_vectors" in s for s in statements)
        assert searcher.search("harbor bridge", mode="semantic", limit=20).results
        assert any("message_vectors" in s for s in statements)  # the trace sees them
    finally:
        searcher.close()


def test_the_explain_text_adds_up_to_the_similarity_it_explains(config):
    _dated_chat(config)
    embedder = MessageEmbedder()
    reindex(config=config, embedder=embedder)
    searcher = Searcher(replace(config, message_share=0.3), embedder=embedder)
    try:
        response = searcher.search("ferry to Helsinki at dawn", mode="hybrid", limit=20)
    finally:
        searcher.close()
    assert response.fusion.endswith("; chat windows: sim = 0.70 × window + 0.30 × best message "
                                    "of its own and the 2 either side")
    mixed = [r for r in response.results if "best message" in r.fusion_terms.get("semantic", "")]
    assert mixed and all(r.source_type == "slack" for r in mixed)
    for r in mixed:
        text = r.fusion_terms["semantic"]
        window = float(text.split("0.70 × window ")[1].split()[0])
        message = float(text.split("0.30 × best message ")[1].split(",")[0])
        assert r.similarity == pytest.approx(0.7 * window + 0.3 * message, abs=2e-3)
        head = text.split(" = ")[0]  # a negative reference similarity is added
        assert f" × ({r.similarity:.3f} - " in head or f" × ({r.similarity:.3f} + " in head


def test_windows_written_by_a_cancelled_run_that_stored_none_get_them_later(config):
    reindex(config=config, embedder=MessageEmbedder())
    for name in ("more", "other"):
        (config.root / f"data/slack/{name}.jsonl").write_text(slack_lines(15, start=200))
    files = []
    stats = reindex(config=replace(config, message_share=0.0), embedder=MessageEmbedder(),
                    progress=lambda p: files.append(p.current_file) if p.current_file else None,
                    cancel=lambda: bool(files))  # after the first new file
    assert stats.cancelled and len(message_rows(config)) < len(_windows(config))
    reindex(config=config, embedder=MessageEmbedder())
    assert set(message_rows(config)) == _windows(config)
    assert_one_unit(config)


def _windows(config) -> set[str]:
    return {cid for cid in _ids(config) if WINDOW_ID.match(cid)}


def test_rescore_skips_messages_whose_similarity_is_not_a_number(config):
    reindex(config=config, embedder=MessageEmbedder())
    conn = connect(config.db_path)
    dim = int(get_meta(conn, "embedding_dim"))
    rowids = [r[0] for r in conn.execute(  # windows of two files: neither lends to the other
        "SELECT rowid FROM chunks WHERE id IN ('data/slack/general.jsonl#w0', "
        "'data/slack/random.jsonl#w0') ORDER BY rowid")]
    unit = np.zeros(dim, np.float32)
    unit[0] = 1.0
    broken = np.full(dim, np.nan, np.float16).tobytes()  # a provider's NaN, stored as given
    conn.execute("DELETE FROM message_vectors")  # no neighbouring window lends a message
    store(conn, [(rowids[0], broken + pack([unit])), (rowids[1], broken)])
    hits = [(rowids[1], 0.6), (rowids[0], 0.4)]
    out = rescore(conn, hits, unit, 0.5)
    assert out.hits == [(rowids[0], pytest.approx(0.7)), (rowids[1], 0.6)]
    assert rescore(conn, hits, np.full(dim, np.nan), 0.5).hits == hits
    conn.close()


def test_a_shrunk_chat_log_leaves_no_message_vectors_for_its_windows_gone(config):
    reindex(config=config, embedder=MessageEmbedder())
    path = config.root / "data/slack/general.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:25]))
    reindex(config=config, embedder=MessageEmbedder())
    rows = message_rows(config)
    assert rows["data/slack/general.jsonl#w2"] == 5
    assert not any(cid.startswith("data/slack/general.jsonl#w") and int(cid.rsplit("w", 1)[1]) > 2
                   for cid in rows)
    assert_one_unit(config)


def test_an_update_of_a_windows_content_or_vector_drops_its_rows_and_no_other(config):
    reindex(config=config, embedder=MessageEmbedder())
    conn = connect(config.db_path)
    with conn:
        conn.execute("UPDATE chunks SET metadata = '{}' WHERE id LIKE '%general.jsonl#w0'")
        conn.execute("UPDATE chunks SET content = content || ' (edited)' "
                     "WHERE id LIKE '%general.jsonl#w1'")
        conn.execute("UPDATE chunks SET embedding = NULL WHERE id LIKE '%general.jsonl#w2'")
    conn.close()
    rows = message_rows(config)
    assert "data/slack/general.jsonl#w0" in rows
    assert not {"data/slack/general.jsonl#w1", "data/slack/general.jsonl#w2"} & set(rows)


def test_a_re_embed_cut_by_an_outage_at_any_call_resumes_with_both_vectors(config):
    config = replace(config, embedding_batch_size=8)
    reindex(config=config, embedder=MessageEmbedder())
    for answered in range(0, 12, 2):
        reindex(config=config, embedder=DownAfter(answered), re_embed=True)
        assert_one_unit(config)
        stats = reindex(config=config, embedder=MessageEmbedder())
        assert stats.pending_embeddings == 0
        assert set(message_rows(config)) == _windows(config)
        assert_one_unit(config)
