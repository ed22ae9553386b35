"""What the semantic arm embeds: chunk content without line-leading timestamps."""

import json

from engine.indexer import reindex
from engine.vectors.message_vectors import semantic_text


def test_chat_and_transcript_times_are_dropped_words_kept():
    window = ("[2023-05-08 13:56] Caroline: I went to a LGBTQ support group yesterday\n"
              "[2023-05-08 13:57] Melanie: [04:12] is not a time here, 10:30 stays")
    assert semantic_text(window) == (
        "Caroline: I went to a LGBTQ support group yesterday\n"
        "Melanie: [04:12] is not a time here, 10:30 stays")
    assert semantic_text("[04:12] Ana: budget\n[1:02:03] Ben: ok") == "Ana: budget\nBen: ok"
    assert semantic_text("[draft] notes [2023-05-08 13:56]") == "[draft] notes [2023-05-08 13:56]"


def test_reindex_embeds_chat_windows_without_timestamps_but_stores_them(config, embedder):
    log = config.root / "data" / "telegram" / "group.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(json.dumps({"date": f"2023-05-08T13:5{i}:00+00:00", "from": "Ana",
                                       "text": f"kohlrabi message {i}"}) + "\n"
                           for i in range(3)))
    reindex(config=config, embedder=embedder)
    chat = [t for t in embedder.texts if "kohlrabi" in t]
    assert chat == ["Ana: kohlrabi message 0\nAna: kohlrabi message 1\nAna: kohlrabi message 2"]
    from engine.library import Library
    with Library(config) as lib:
        hit = lib.search("kohlrabi", mode="keyword", limit=1)[0]
    assert hit.content.startswith("[2023-05-08 13:50] Ana: kohlrabi message 0")
