"""Pilot tests of the main screen's rough edges: each failed before."""

from __future__ import annotations

from engine.config import load_config
from engine.storage.db import connect
from tests.app.conftest import aio, make_app, ready, search
from tui.widgets.facets import FacetList


def status_of(app) -> str:
    return app.main.query_one("#status").render().plain


def header_of(app) -> str:
    return app.main.query_one("#infobar").render().plain


@aio
async def test_most_chunks_without_a_vector_say_so_instead_of_arms_both(writable_root):
    conn = connect(load_config(writable_root).db_path)
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    with conn:  # what a cancelled re-embed leaves: a few vectors, the rest pending
        conn.execute("UPDATE chunks SET embedding = NULL WHERE rowid > 52")
    pending = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]
    conn.close()
    app = make_app(writable_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        assert f"{pending:,} embeddings pending" in header_of(app)
        await search(pilot, "maya birthday dinner")
        status = status_of(app)
        assert f"semantic covers {round(100 * (total - pending) / total)}% of the index" in status
        assert "arms: both" not in status and "confidence: ok" not in status
        await pilot.press("ctrl+t")  # keyword mode: the keyword arm covers everything
        await search(pilot, "maya birthday dinner")
        assert "arms: keyword" in status_of(app) and "semantic covers" not in status_of(app)


@aio
async def test_a_fully_embedded_index_keeps_arms_both(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        assert "pending" not in header_of(app)
        await search(pilot, "maya birthday dinner")
        assert "arms: both" in status_of(app) and "semantic covers" not in status_of(app)


def facet_rows(app) -> dict[str, str]:
    facets = app.main.query_one(FacetList)
    return {facets.get_option_at_index(i).value: facets.render_line(i).text
            for i in range(min(facets.option_count, facets.size.height))}


@aio
async def test_facets_show_state_by_glyph_and_counts_of_the_query(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        facets = app.main.query_one(FacetList)
        rows = facet_rows(app)
        assert all("☑" in row for row in rows.values())
        assert facets.border_subtitle == "all · index counts"
        assert "ride memory" in rows["rwgps_memory"]  # a readable label, not the type id
        assert f"{facets.counts['slack']:,}" in rows["slack"]
        await search(pilot, "maya birthday dinner")
        counts = app.main.response.type_counts
        assert facets.border_subtitle == "all · query counts"
        assert 0 < sum(counts.values()) < sum(facets.counts.values())
        rows = facet_rows(app)
        for source_type, row in rows.items():
            assert row.split()[-1] == f"{counts.get(source_type, 0):,}"
        facets.focus()
        facets.highlighted = 0
        first = facets.get_option_at_index(0).value
        await pilot.press("space")  # uncheck the first type: ☐, and not searched ("—")
        await search(pilot, "maya birthday dinner dessert")
        facets.focus()
        rows = facet_rows(app)
        assert "☐" in rows[first] and "☑" not in rows[first] and rows[first].split()[-1] == "—"
        assert all("☑" in row for t, row in rows.items() if t != first)
        await search(pilot, "")  # no query: the index's counts again
        assert facets.border_subtitle.endswith("index counts")


@aio
async def test_preview_explains_in_words_and_shows_the_path_once(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        await search(pilot, "maya birthday dinner")
        result = app.main.results.current
        title = app.main.query_one("#pv-title").render().plain
        assert title.count(result.source_file) == 1  # the id's suffix follows it, once
        assert result.id[len(result.source_file):] in title
        summary = app.main.query_one("#pv-explain").render().plain
        assert "found by both searches: keyword #" in summary and "meaning #" in summary
        assert "×0." in summary and "RRF" not in summary and "bm25" not in summary
        border = app.main.query_one("#results-pane").border_subtitle
        assert "K keyword" in border and "S meaning" in border and "×age" in border


@aio
async def test_help_lists_what_the_result_marks_mean(demo_root):
    from tui.screens.help import help_content

    app = make_app(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        text = help_content(app, 150).plain
        assert "Result marks" in text and "the age weight" in text and "score bar" in text


@aio
async def test_snippet_rows_show_the_match_and_no_markdown_markers(writable_root):
    from engine.config import load_config as config_of
    from engine.indexer import reindex
    from tests.app.conftest import SharedEmbedder

    note = writable_root / "notes" / "kayak-trip.md"
    filler = " ".join(f"filler{i}" for i in range(60))
    note.write_text(f"# Trip\n\n{filler} the **zephyrine** kayak and `kit`.\n")
    reindex(config=config_of(writable_root), embedder=SharedEmbedder())
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "zephyrine")
        row = app.main.results.options[0].prompt
        snippet = row.plain.splitlines()[1]
        assert "**" not in snippet and "`" not in snippet
        assert snippet.strip().startswith("…") and snippet.index("zephyrine") < 30
        styled = {(row.plain[s.start:s.end], str(s.style)) for s in row.spans}
        assert {("zephyrine", "bold reverse $accent"), ("zephyrine", "bold"),
                ("kit", "$text-secondary")} <= styled


def test_job_summary_says_1_file_not_1_files():
    from engine.display import plural
    from engine.index.run_report import FileError, IndexStats
    from tui.summaries import job_summary

    assert (plural(1, "file"), plural(2594, "file"), plural(2, "match", "matches")) == (
        "1 file", "2,594 files", "2 matches")
    stats = IndexStats(files=1, skipped=2593, chunks=1, embedded=1, seconds=0.5,
                       errors=[FileError("notes/a.md", "bad")])
    text = job_summary("reindex", stats, 0.5)
    assert text.startswith("1 file indexed") and "1 chunk written" in text
    assert "1 file failed" in text and "(s)" not in text


@aio
async def test_a_time_phrase_shows_as_a_chip_that_ctrl_l_removes(demo_root):
    from tui.widgets.chips import FilterChips
    from tui.widgets.query import QueryInput

    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "dinner last week")
        chips = app.main.query_one(FilterChips)
        # NOW is Monday 2026-11-30: last week is 2026-11-23 to Sunday 2026-11-29
        assert "⏱ 2026-11-23..2026-11-29 (from \"last week\")" in chips.render().plain
        assert all("2026-11-23" <= (r.content_date or "")[:10] <= "2026-11-29"
                   for r in app.main.results.results)
        await pilot.press("ctrl+l")
        await pilot.pause(0.3)
        assert app.main.query_one(QueryInput).value == "dinner"
        assert "⏱" not in chips.render().plain


@aio
async def test_the_date_chip_says_what_a_time_question_was_answered_with(demo_root):
    from tui.widgets.chips import FilterChips

    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "what happened in March")  # question words: March's items
        chips = app.main.query_one(FilterChips).render().plain
        assert '⏱ 2026-03-01..2026-03-31 (from "in March") ' in chips + " ", chips
        shown = app.main.results.results
        assert shown and all(r.in_range or "2026-03-01" <= r.content_date <= "2026-03-31"
                             for r in shown)
        await search(pilot, "zorblatt in March")  # a word nothing holds: said, not blamed
        chips = app.main.query_one(FilterChips).render().plain
        assert 'nothing there matches "zorblatt"; shown: "zorblatt" at every date' in chips


@aio
async def test_a_quoted_phrase_no_row_holds_is_said_and_the_nearest_shown(demo_root):
    app = make_app(demo_root)
    told = []
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        app.notify = lambda message, **kw: told.append(message)
        await search(pilot, '"birthday maya dinner zebra"')
        assert told and told[-1].startswith('no result holds "birthday maya dinner zebra"')
        assert app.main.results.option_count > 0  # the nearest, not an empty page
        count = len(told)
        await search(pilot, '"maya"')  # one word: a term, nothing required
        assert len(told) == count
