"""Date filters over chunk spans (engine/dates/spans.py): what the overlap costs at size.

    python bench/bench_date_filter.py --root <500k root> [--repeat 15]

For a week, a month and an older week before the index's newest date, and for an open range
("until" only), runs the vector arm's mask query (``Filters.rowid_queries``: every chunk rowid
the filter keeps) in three forms: as before spans (``span_days=0``, a chunk dated by its last
day only), bounded by the index's longest span (what search runs), and unbounded. Then the
whole search for a query with a time phrase, hybrid and keyword, and browsing by date (a
query of only a time phrase: newest first by the messages inside the dates, with the facet
counts). Prints p50/p95 and rows, and how many chunks span days.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date, datetime, timedelta

from common import machine, peak_rss_mb, percentiles

from engine.config import load_config
from engine.dates.spans import longest_span
from engine.retrieval.filters import Filters
from engine.searcher import Searcher
from engine.storage.db import connect


def ranges(newest: date) -> dict[str, tuple[str | None, str]]:
    def day(d: date) -> str:
        return d.isoformat()
    return {"last week": (day(newest - timedelta(days=6)), day(newest)),
            "a month": (day(newest - timedelta(days=60)), day(newest - timedelta(days=30))),
            "a week a year back": (day(newest - timedelta(days=371)),
                                   day(newest - timedelta(days=365))),
            "until 1.5 years back": (None, day(newest - timedelta(days=548)))}


def time_mask(conn, filters: Filters, repeat: int) -> dict:
    (sql, args), = [q for q in filters.rowid_queries()]
    samples, rows = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        rows = len(conn.execute(sql, args).fetchall())
        samples.append((time.perf_counter() - start) * 1000)
    return {"rows": rows, **percentiles(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    config = load_config(args.root)
    conn = connect(config.db_path, readonly=True)
    newest = date.fromisoformat(conn.execute("SELECT max(content_date) FROM chunks"
                                             ).fetchone()[0][:10])
    total, spanning = conn.execute("SELECT count(*), count(first_date) FROM chunks").fetchone()
    span = longest_span(conn)
    out = {"machine": machine(), "root": args.root, "chunks": total, "spanning": spanning,
           "longest_span_days": span, "mask": {}, "search": {}}
    for label, (since, until) in ranges(newest).items():
        out["mask"][label] = {
            form: time_mask(conn, Filters.build(since=since, until=until, span_days=days),
                            args.repeat)
            for form, days in (("last day only", 0), ("bounded", span), ("unbounded", None))}
    searcher = Searcher(config)
    now = datetime.combine(newest, datetime.min.time()).astimezone()
    # ranked inside a range; then browsing by date (no word to rank by: the page newest first
    # by the messages inside the dates, and the facet counts)
    for query, mode in (("dinner plans last week", "hybrid"), ("dinner plans last week", "keyword"),
                        ("what did I do last week", "hybrid"),
                        ("what did I do on this day", "hybrid")):
        searcher.search(query, mode=mode, now=now)  # warm
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            searcher.search(query, mode=mode, now=now)
            samples.append((time.perf_counter() - start) * 1000)
        out["search"][f'"{query}" {mode}'] = percentiles(samples)
    searcher.close()
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
