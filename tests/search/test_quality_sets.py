"""The quality bench's collection loaders (bench/quality_sets.py) read each classic collection
as its ../shared/bench-data/<name>/SOURCES.md counts it: documents, judged queries, pairs."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import BENCH_DATA, REPO

sys.path.append(str(REPO / "bench"))  # the bench's own modules
quality_sets = pytest.importorskip("quality_sets")

# (loader, folder, documents, judged queries, relevant pairs), as each SOURCES.md verifies them
COUNTS = [("Med", "med", 1033, 30, 696), ("Cacm", "cacm", 3204, 52, 796),
          ("Npl", "npl", 11429, 93, 2083), ("Lisa", "lisa", 5999, 35, 379)]


@pytest.mark.parametrize(("kind", "folder", "docs", "judged", "pairs"), COUNTS)
def test_a_classic_collection_loads_as_its_sources_count_it(kind, folder, docs, judged, pairs):
    if not (BENCH_DATA / folder / "SOURCES.md").exists():
        pytest.skip(f"../shared/bench-data/{folder} is absent from this checkout")
    collection = getattr(quality_sets, kind)()
    documents = collection.documents()
    queries = collection.queries()
    assert len(documents) == docs
    assert all((title or body).strip() for title, body in documents.values())
    assert len(queries) == judged and sum(len(q.judge) for q in queries) == pairs
    assert all(q.text and q.judge <= documents.keys() for q in queries)


def test_locomo_questions_carry_their_conversations_last_turn_as_a_clock():
    if not (BENCH_DATA / "locomo-dev" / "locomo-dev.json").exists():
        pytest.skip("../shared/bench-data/locomo-dev is absent from this checkout")
    queries = quality_sets.LoCoMoDev().queries()
    assert len(queries) == 756 and all(q.now is not None for q in queries)
    by_file = {}
    for q in queries:
        by_file.setdefault(q.filters["path_prefix"], set()).add(q.now)
    assert len(by_file) == 5 and all(len(clocks) == 1 for clocks in by_file.values())
