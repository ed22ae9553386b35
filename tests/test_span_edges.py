"""Edges of chunks that span days (engine/spans.py): "on this day" on a first day in a year
no chunk ends in, the timeline's limit over both ends of a span, and the writers."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from engine.config import load_config
from engine.db import connect
from engine.indexer import reindex
from engine.timeline import on_this_day, timeline
from tests.conftest import CountingEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
NEW_YEAR = "data/telegram/party.jsonl#w0"


def write_log(path, stamps: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"date": ts, "from": ("Ana", "Ben")[i % 2],
                                        "text": f"party plans {i}"}) + "\n"
                            for i, ts in enumerate(stamps)))


@pytest.fixture
def root(tmp_path):
    # one window from New Year's Eve 2024 to 2 January 2025: no chunk ends in 2024
    write_log(tmp_path / "data/telegram/party.jsonl",
              ["2024-12-31T22:00:00", "2024-12-31T23:50:00", "2025-01-02T10:00:00"])
    reindex(config=load_config(tmp_path), embedder=CountingEmbedder())
    return tmp_path


def listed(tl) -> list[tuple[str, str]]:
    return [(d.date, item.id) for d in tl.days for g in d.groups for item in g.items]


def test_on_this_day_finds_a_first_day_in_a_year_no_chunk_ends_in(root):
    conn = connect(load_config(root).db_path)
    try:
        eve = on_this_day(conn, now=NOW, month_day=(12, 31))
        second = on_this_day(conn, now=NOW, month_day=(1, 2))
    finally:
        conn.close()
    assert listed(eve) == [("2024-12-31", NEW_YEAR)]
    assert listed(second) == [("2025-01-02", NEW_YEAR)]
