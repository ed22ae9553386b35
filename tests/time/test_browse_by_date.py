"""Browsing by date on the indexed demo root: the page and the facet counts of a query with only
a time phrase equal what reading every chunk says (engine/retrieval/search_arms.py
``newest_first``): each chunk kept by the in-memory filter, a chat window placed by its last
message inside the dates (engine/retrieval/in_range.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.config import load_config
from engine.dates.spans import index_years, longest_span
from engine.demo import generate_demo_root
from engine.indexer import reindex
from engine.retrieval.filters import Filters
from engine.retrieval.in_range import messages_in_range
from engine.retrieval.search_arms import _candidate, newest_first
from engine.storage.db import connect
from tests.conftest import CountingEmbedder

FILTERS = [  # (since, until, month_day)
    ("2026-11-23", "2026-11-29", None),  # a week
    ("2026-03-01", "2026-03-31", None),  # a month: windows run into April
    (None, "2025-12-31", "12-05"),  # "on this day" on 5 December 2026
    (None, "2026-12-31", "03-15"),  # every 15 March
    ("2026-01-01", None, "06-01"),
    ("2026-03-16", "2026-03-16", None),  # one day
]


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    root = tmp_path_factory.mktemp("browse") / "root"
    generate_demo_root(root)
    reindex(config=load_config(root), embedder=CountingEmbedder())
    conn = connect(load_config(root).db_path)
    yield conn
    conn.close()


def by_reading_everything(conn, filters: Filters, limit: int):
    kept = [c for c in map(_candidate, conn.execute(
        "SELECT c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
        "c.first_date, c.metadata, c.embedding_truncated FROM chunks c "
        "WHERE c.content_date IS NOT NULL")) if filters.matches(c)]
    inside = messages_in_range(conn, ((c.rowid, c.content) for c in kept), filters)
    keys = {c.rowid: (inside[c.rowid].last if c.rowid in inside else c.content_date, c.rowid)
            for c in kept}
    page = sorted(kept, key=lambda c: keys[c.rowid], reverse=True)[:limit]
    return [keys[c.rowid] for c in page], Counter(c.source_type for c in kept)


@pytest.mark.parametrize(("since", "until", "month_day"), FILTERS)
@pytest.mark.parametrize("years", [True, False])  # the days sought; every date compared
def test_the_page_and_the_counts_are_what_reading_every_chunk_gives(conn, since, until,
                                                                    month_day, years):
    filters = Filters.build(since=since, until=until, month_day=month_day,
                            span_days=longest_span(conn),
                            years=index_years(conn) if years else None)
    expected, counts = by_reading_everything(conn, filters, 20)
    assert expected  # the filter keeps something
    page, got_counts = newest_first(conn, filters, 20)
    inside = messages_in_range(conn, ((c.rowid, c.content) for c in page), filters)
    got = [(inside[c.rowid].last if c.rowid in inside else c.content_date, c.rowid)
           for c in page]
    # equal keys may come in either order only at the page's last time
    assert [k[0] for k in got] == [k[0] for k in expected]
    assert got_counts == dict(counts)
