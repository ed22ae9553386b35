"""The search session's decisions, without Textual: debounce, sequence numbers, paging."""

from __future__ import annotations

from types import SimpleNamespace

from tui.session import PAGE_SIZES, ChipFilters, SearchRequest, SearchSession


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def answer(*ids: str) -> SimpleNamespace:
    return SimpleNamespace(results=[SimpleNamespace(id=i) for i in ids])


def ids(n: int, prefix: str = "r") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def test_leading_edge_then_one_trailing_search():
    clock = Clock()
    s = SearchSession(clock, debounce=0.15)
    assert s.change() is None  # after a pause: at once
    assert s.fire(SearchRequest("g")) == 1
    clock.t += 0.05
    assert s.change() == 0.15 and s.waiting and s.searching  # typing on: wait
    assert s.change() == 0.15  # restarts the timer
    assert s.fire(SearchRequest("garden")) == 2 and not s.waiting
    clock.t += 1
    assert s.change() is None


def test_trailing_fire_of_the_same_request_asks_nothing_and_is_idle():
    clock = Clock()
    s = SearchSession(clock)
    s.change()
    seq = s.fire(SearchRequest("garden"))
    s.change()  # a second change handled after the first had already read the final value
    assert s.accept(seq, answer("a")) == [SimpleNamespace(id="a")]
    assert s.searching  # the timer still waits
    assert s.fire(SearchRequest("garden")) is None
    assert s.idle and not s.searching  # so the status can say the search is done


def test_force_asks_the_same_request_again():
    s = SearchSession(Clock())
    seq = s.fire(SearchRequest("kayak"))
    s.accept(seq, answer("old"))
    assert s.fire(SearchRequest("kayak")) is None
    again = s.fire(SearchRequest("kayak"), force=True)
    assert again == seq + 1 and s.searching
    assert s.accept(again, answer("new")) == [SimpleNamespace(id="new")]


def test_a_stale_answer_is_dropped():
    s = SearchSession(Clock())
    old = s.fire(SearchRequest("garden"))
    new = s.fire(SearchRequest("garden tomatoes"))
    assert s.accept(old, answer("x")) is None and s.searching
    assert s.fail(old, RuntimeError("late")) is None
    assert s.accept(new, answer("y")) is not None and s.idle


def test_pages_append_new_rows_up_to_the_page_size():
    s = SearchSession(Clock())
    seq = s.fire(SearchRequest("the"))
    s.accept(seq, answer(*ids(20)))
    assert s.page_full and s.more_available and not s.at_cap
    seq = s.next_page(keep="r19")
    assert s.request.limit == 50 and s.kept(seq) == "r19"
    # the deeper search reranks: 45 of the 20 shown and 30 new; only 50 rows are kept
    rows = s.accept(seq, answer(*ids(15), *ids(40, "n")))
    assert len(rows) == 50 and [r.id for r in rows[:20]] == ids(20)
    for limit in PAGE_SIZES[2:]:
        seq = s.next_page(keep=None)
        assert s.request.limit == limit
        s.accept(seq, answer(*ids(limit, f"p{limit}-")))
        assert len(s.rows) == limit
    assert s.at_cap and not s.more_available and s.next_page(keep=None) is None


def test_a_short_page_has_no_more_and_a_failed_page_keeps_the_rows():
    s = SearchSession(Clock())
    seq = s.fire(SearchRequest("rare"))
    s.accept(seq, answer(*ids(7)))
    assert not s.page_full and s.next_page(None) is None
    s2 = SearchSession(Clock())
    seq = s2.fire(SearchRequest("the"))
    s2.accept(seq, answer(*ids(20)))
    seq = s2.next_page("r3")
    assert s2.fail(seq, RuntimeError("down")) == "page"
    assert len(s2.rows) == 20 and s2.request.limit == 20 and s2.idle


def test_empty_requests_settle_without_the_engine():
    s = SearchSession(Clock())
    seq = s.fire(SearchRequest(""))
    s.settle(seq)
    assert s.idle and s.rows == [] and s.response is None


def test_filters_make_the_request_and_clear():
    s = SearchSession(Clock())
    assert s.cycle_mode() == "keyword"
    s.filters.since, s.filters.person = "2026-01-01", "Maya"
    r = s.request_for("dinner", ("slack",))
    assert (r.mode, r.since, r.person, r.source_types) == ("keyword", "2026-01-01", "Maya",
                                                            ("slack",))
    assert s.filters.summary(1, 25) == ["types 1/25", "dates 2026-01-01 – …", "person Maya"]
    s.clear_filters(keep_mode=True)
    assert s.filters == ChipFilters(mode="keyword")
    s.clear_filters(keep_mode=False)
    assert s.filters == ChipFilters()


def test_the_session_module_loads_no_textual():
    import json
    import subprocess
    import sys
    from pathlib import Path

    code = ("import json, sys, tui.session\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    assert {"textual", "rich"} & set(json.loads(out.stdout)) == set()


def test_restoring_remembered_filters_leaves_an_unknown_mode_out():
    s = SearchSession()
    s.restore({"mode": "fuzzy", "since": "2026-07-01", "person": None, "colour": "red"})
    assert (s.filters.mode, s.filters.since, s.filters.person) == ("hybrid", "2026-07-01", None)
    s.restore({"mode": "keyword"})
    assert s.filters.mode == "keyword" and s.filters.since == "2026-07-01"
