"""The first results do not move with the page size asked: the injected profile's score and
place come from a fixed head of the ranking (docs/design.md, stage 7), not from ``limit``."""
# ruff: noqa: F811 - the fixture imported from tests.test_app is an argument here

from __future__ import annotations

from datetime import UTC, datetime

from engine.config import load_config
from engine.library import Library
from tests.test_app import demo_root  # noqa: F401 - a fixture

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def test_the_injected_profile_sits_at_one_place_whatever_the_limit(demo_root):
    with Library(load_config(demo_root)) as library:
        for query in ("dinner with maya", "maya birthday"):
            seen = set()
            for limit in (5, 10, 20, 50):
                rows = library.search(query, limit, now=NOW).results
                seen |= {(i, f"{r.score:.4f}") for i, r in enumerate(rows) if r.injected}
            assert len(seen) == 1, (query, seen)  # one place, one shown score, at every limit
            (place, _), = seen
            assert place < 5  # among the first results
