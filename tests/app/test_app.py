"""Pilot tests of the app: every flow, driven by keys, on a real indexed demo root."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

from textual.widgets import Static, TextArea

from engine.config import load_config
from engine.indexer import reindex
from engine.schema import EmbedderMismatch
from engine.searcher import Searcher
from engine.storage.lock import writer_lock
from tests.app.conftest import (
    MARKUP_QUERY,
    DownEmbedder,
    GatedEmbedder,
    OtherEmbedder,
    SharedEmbedder,
    SpySearcher,
    add_chat,
    aio,
    enter_text,
    lines_of,
    make_app,
    notes_text,
    ready,
    row_texts,
    search,
    wait_for,
)
from tests.conftest import make_root
from tui.screens.discover import DiscoverScreen
from tui.screens.help import HelpScreen
from tui.screens.menu import MenuScreen
from tui.screens.modals import (
    ConfirmScreen,
    DateRangeScreen,
    ErrorScreen,
    MismatchScreen,
    PersonScreen,
)
from tui.screens.stats import StatsScreen
from tui.screens.viewer import FileViewerScreen
from tui.widgets.facets import FacetList
from tui.widgets.jobpanel import JobPanel
from tui.widgets.query import QueryInput

# -- fixtures ------------------------------------------------------------------------------------



































# -- search --------------------------------------------------------------------------------------

@aio
async def test_typing_searches_and_shows_ranked_rows(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        header = app.main.query_one("#infobar").render().plain
        assert "chunks" in header and "local:" in header and "MB" in header
        await search(pilot, "maya birthday dinner", type_keys=True)
        rows = row_texts(app)
        assert len(rows) == len(app.main.response.results) > 5
        first = rows[0].splitlines()
        assert first[0].lstrip().startswith("1 ")
        assert "×0." in first[0] and "KS" in first[0]  # decay badge and the arms that found it
        assert "«" not in rows[0] and "»" not in rows[0]  # markers became highlight spans
        prompt = app.main.results.options[0].prompt
        highlighted = {prompt.plain[s.start:s.end].lower() for s in prompt.spans
                       if "reverse" in str(s.style)}
        assert highlighted & {"maya", "dinner", "birthday"}
        status = app.main.query_one("#status").render().plain
        assert "arms: both" in status and "confidence: ok" in status
        assert len(rows) == 20  # one page; the status says more may follow
        assert "20+ results" in status and "-- ms" in status  # frozen: no timings


@aio
async def test_the_next_page_loads_at_the_end_of_the_list(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "maya birthday dinner")
        results = app.main.results
        assert results.option_count == 20 and spy.calls[-1][1]["limit"] == 20
        first_page = [r.id for r in results.results]
        await pilot.press("enter", *"j" * 19)  # down to the last row: the next page comes
        await wait_for(pilot, lambda: app.main.idle and results.option_count > 20,
                       what="the next page")
        assert spy.calls[-1][0] == "maya birthday dinner" and spy.calls[-1][1]["limit"] == 50
        assert [r.id for r in results.results[:20]] == first_page  # the rows shown stay
        assert results.option_count == 50  # the page size, whatever the deeper search reranked
        assert len({r.id for r in results.results}) == results.option_count
        assert results.current.id == first_page[-1]  # the highlight stayed on its result
        assert app.main.preview.result.id == first_page[-1]
        status = app.main.query_one("#status").render().plain
        assert f"{results.option_count}+ results" in status
        await pilot.press("k")  # moving inside the page loads nothing
        await pilot.pause(0.1)
        assert len(spy.calls) == 2
        await search(pilot, "maya birthday dinner tomatoes")  # a new search: one page again
        assert results.option_count == 20 and spy.calls[-1][1]["limit"] == 20


@aio
async def test_debounce_and_stale_answer_never_wins(demo_root):
    """A slow answer to an older query arrives after the newer one: it is dropped."""
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()), delays={"garden": 0.8})
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        query = app.main.query_one(QueryInput)
        for ch in "garden":  # fast typing: one search, not one per key
            query.value += ch
        await wait_for(pilot, lambda: spy.calls, what="the first search")
        query.value = "garden tomatoes"
        await wait_for(pilot, lambda: app.main.idle, what="the second answer")
        assert app.main.response.query == "garden tomatoes"
        shown = [r.id for r in app.main.results.results]
        await pilot.pause(1.0)  # the slow "garden" answer arrives now, and is ignored
        assert app.main.response.query == "garden tomatoes"
        assert [r.id for r in app.main.results.results] == shown
        assert [q for q, _ in spy.calls] == ["garden", "garden tomatoes"]
        # after a pause, a single change searches at once (leading edge): no timer waits
        await pilot.pause(0.3)
        query.value += "s"
        await pilot.pause()
        assert not app.main.session.waiting and app.main.request.query == "garden tomatoess"


@aio
async def test_a_failed_next_page_keeps_the_page_shown(demo_root):
    class NoSecondPage(SpySearcher):
        def search(self, query, limit=10, source_types=None, **kw):
            if limit > 20:
                raise RuntimeError("database is locked")
            return super().search(query, limit, source_types, **kw)

    config = load_config(demo_root)
    app = make_app(demo_root, searcher=NoSecondPage(Searcher(config, SharedEmbedder())))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "maya birthday dinner")
        shown = [r.id for r in app.main.results.results]
        await pilot.press("enter", "G")
        await wait_for(pilot, lambda: "Could not load more" in notes_text(app))
        assert [r.id for r in app.main.results.results] == shown
        assert app.main.results.current.id == shown[-1] and app.main.error is None
        assert "20+ results" in app.main.query_one("#status").render().plain


@aio
async def test_query_history_up_down(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        query = app.main.query_one(QueryInput)
        for text in ("climbing", "tile cache"):
            await search(pilot, text)
            await pilot.press("enter")
            await pilot.press("escape")
        query.value = "draft"
        await pilot.press("up")
        assert query.value == "tile cache"
        await pilot.press("up")
        assert query.value == "climbing"
        await pilot.press("down")
        assert query.value == "tile cache"
        await pilot.press("down")
        assert query.value == "draft"


@aio
async def test_facet_only_this_pushes_the_filter_into_the_engine(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        facets = app.main.query_one(FacetList)
        assert facets.counts["slack"] > 0 and all(
            facets.get_option_at_index(i).value in facets.selected
            for i in range(facets.option_count) if facets.counts[
                facets.get_option_at_index(i).value])
        await search(pilot, "climbing")
        assert {r.source_type for r in app.main.results.results} - {"note"}
        await pilot.press("ctrl+f")
        assert app.main.focused is facets
        facets.highlighted = [facets.get_option_at_index(i).value
                              for i in range(facets.option_count)].index("note")
        await pilot.press("i")  # only this type
        await pilot.pause(0.05)
        await wait_for(pilot, lambda: app.main.idle)
        assert spy.calls[-1][1]["source_types"] == ["note"]
        assert {r.source_type for r in app.main.results.results} == {"note"}
        assert facets.border_subtitle == f"1/{len(facets.available)} · query counts"
        await pilot.press("space")  # toggle it off: nothing checked
        await pilot.pause(0.3)
        assert "No source type is checked" in app.main.query_one("#empty").render().plain
        await pilot.press("a")  # all again: no filter
        await pilot.pause(0.05)
        await wait_for(pilot, lambda: app.main.idle)
        assert spy.calls[-1][1]["source_types"] is None
        assert facets.border_subtitle == "all · query counts"


@aio
async def test_date_and_person_filters(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await pilot.press("ctrl+b")
        assert isinstance(app.screen, DateRangeScreen)
        app.screen.query_one("#since").value = "2026-10-01"
        await pilot.press("tab", *"2026-10-31", "enter")
        await wait_for(pilot, lambda: app.main.idle and spy.calls[-1][1].get("since"))
        assert spy.calls[-1][1]["since"] == "2026-10-01"
        assert spy.calls[-1][1]["until"] == "2026-10-31"
        dated = [r.content_date for r in app.main.results.results if not r.injected]
        assert dated and all("2026-10-01" <= d <= "2026-10-31" for d in dated)
        assert "2026-10-01 – 2026-10-31" in app.main.query_one("#chips").render().plain

        await pilot.press("ctrl+n")
        assert isinstance(app.screen, PersonScreen)
        await pilot.press(*"bobby", "enter")
        await pilot.pause(0.05)
        await wait_for(pilot, lambda: app.main.idle)
        assert app.main.session.filters.person == "Robert Okafor"
        assert spy.calls[-1][0] == "climbing"  # a filter, no longer words of the query
        assert spy.calls[-1][1]["person"] == "Robert Okafor"
        assert "Robert Okafor" in app.main.query_one("#chips").render().plain

        await pilot.press("ctrl+l")
        await pilot.pause(0.05)
        await wait_for(pilot, lambda: app.main.idle)
        assert spy.calls[-1][0] == "climbing"
        assert spy.calls[-1][1]["since"] is None and app.main.session.filters.person is None


@aio
async def test_nothing_found_suggests_what_to_change(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+t")  # hybrid -> keyword
        assert app.main.session.filters.mode == "keyword"
        await search(pilot, "zyxxyqq")
        empty = app.main.query_one("#empty")
        assert empty.display and not app.main.results.display
        text = empty.render().plain
        assert "Nothing found" in text and "ctrl+t" in text


@aio
async def test_semantic_arm_down_status_says_keyword_only(demo_root):
    config = load_config(demo_root)
    app = make_app(demo_root, searcher=Searcher(config, DownEmbedder()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        status = app.main.query_one("#status").render().plain
        assert "keyword-only (semantic unavailable: provider_error)" in status
        assert app.main.results.option_count > 0


@aio
async def test_no_index_shows_how_to_build_it(tmp_path):
    root = tmp_path / "empty"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "hello.md").write_text("# Hello\n\nThe lighthouse keeper's notes.\n")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        text = app.main.query_one("#empty").render().plain
        assert "No index yet" in text and "ctrl+r" in text
        assert "no index yet" in app.main.query_one("#infobar").render().plain
        await search(pilot, "lighthouse")
        assert "No index yet" in app.main.query_one("#empty").render().plain
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.job is None and app.main.overview.exists
                       and app.main.idle, what="the first index")
        assert app.main.error is None, app.main.error
        assert [r.source_file for r in app.main.results.results][:1] == ["notes/hello.md"], (
            app.main.response, notes_text(app))


# -- results, preview, viewer ----------------------------------------------------------------------

@aio
async def test_keys_move_through_results_and_preview_follows(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        results = app.main.results
        await pilot.press("enter")
        assert app.main.focused is results
        await pilot.press("j", "j")
        assert results.highlighted == 2
        assert app.main.query_one("#preview").result is results.results[2]
        await pilot.press("k")
        assert results.highlighted == 1
        await pilot.press("G")  # the end of the page: the next page is appended, G goes on
        await wait_for(pilot, lambda: app.main.idle and results.option_count > 20)
        assert results.highlighted == results.option_count - 1
        await pilot.press("g")
        assert results.highlighted == 0
        await pilot.press("pagedown")
        assert results.highlighted > 1
        await pilot.press("enter")  # into the preview
        assert app.main.focused is app.main.preview
        await pilot.press("escape")  # back to the results, then to the query
        assert app.main.focused is results
        await pilot.press("escape")
        assert app.main.focused is app.main.query_one(QueryInput)


@aio
async def test_preview_explain_block_and_toggle(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "maya birthday dinner")
        result = app.main.results.results[0]
        body = app.main.query_one("#pv-body").render().plain
        assert result.content.splitlines()[0][:40] in body
        explain = app.main.query_one("#pv-explain").render().plain
        assert "Why here" in explain and "found by both searches: keyword #" in explain
        meta = app.main.query_one("#pv-meta").render().plain
        assert "Metadata" in meta
        await pilot.press("enter", "x")  # in words → the exact numbers
        await pilot.pause()
        explain = app.main.query_one("#pv-explain").render().plain
        assert "fusion" in explain and "keyword 0.85 ×" in explain
        assert "half-life" in explain and "age" in explain and "mmr" in explain
        assert "similarity" in explain
        await pilot.press("x")
        await pilot.pause()
        assert not app.main.query_one("#pv-explain").display
        await pilot.press("x")
        await pilot.pause()
        assert app.main.query_one("#pv-explain").display
        assert "Why here" in app.main.query_one("#pv-explain").render().plain


@aio
async def test_profile_card_for_injected_person(tmp_path):
    # a small root: the engine injects the profile at the median score of all fused candidates,
    # which stays within the page only when there are few of them
    root = make_root(tmp_path / "small")
    (root / "profile").mkdir()
    (root / "profile" / "relationships.json").write_text(json.dumps({"people": [{
        "name": "Robert Okafor", "aliases": ["Bobby"], "relationship": "best friend",
        "context": "Climbs [bold]and[/] cycles", "interests": ["climbing"],
        "milestones": [{"date": "2026-05-12", "event": "engaged"}]}]}))
    reindex(config=load_config(root), embedder=SharedEmbedder())
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "what does Bobby like")
        results = app.main.results
        index = next(i for i, r in enumerate(results.results) if r.injected)
        assert "injected profile: Robert Okafor" in row_texts(app)[index]
        results.highlighted = index
        await pilot.pause()
        body = app.main.query_one("#pv-body").render().plain
        assert body.startswith("Robert Okafor") and "relationship" in body
        assert "Climbs [bold]and[/] cycles" in body and "2026-05-12" in body
        await pilot.press("tab", "tab", "right_square_bracket")  # a profile has no neighbours
        assert "no neighbouring" in notes_text(app)


@aio
async def test_on_windows_the_preview_and_the_viewer_show_paths_with_backslashes(
        demo_root, monkeypatch):
    monkeypatch.setenv("MEMLENS_PATH_STYLE", "windows")  # engine/path_style.py
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, MARKUP_QUERY)
        assert app.main.results.results[0].source_file == "data/slack/ops-alerts.jsonl"
        preview = app.main.preview.query_one("#pv-title").render().plain
        assert "data\\slack\\ops-alerts.jsonl#w74" in preview and "data/slack" not in preview
        await pilot.press("enter", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        await pilot.pause()
        title = app.screen.query_one("#viewer-title").render().plain
        assert "data\\slack\\ops-alerts.jsonl" in title and "cannot open" not in title


@aio
async def test_file_viewer_opens_at_the_chunk(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, MARKUP_QUERY)
        result = app.main.results.results[0]
        assert result.id == "data/slack/ops-alerts.jsonl#w74"
        await pilot.press("enter", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        await pilot.pause()
        viewer = app.screen
        first, last = result.metadata["lines"]
        assert viewer.span == (first - 1, last - 1)
        area = viewer.query_one(TextArea)
        assert area.selection.start[0] in (first - 1, last - 1)
        assert area.selection.end[0] in (first - 1, last - 1)
        top = area.wrapped_document.location_to_offset((first - 1, 0)).y
        assert area.scroll_offset.y <= top < area.scroll_offset.y + area.size.height
        title = viewer.query_one("#viewer-title").render().plain
        assert f"lines {first}–{last}" in title
        await pilot.press("escape")
        assert app.screen is app.main


@aio
async def test_neighbour_chunks_step_through_the_file(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, MARKUP_QUERY)
        preview = app.main.preview
        assert preview.chunk["id"] == "data/slack/ops-alerts.jsonl#w74"
        await pilot.press("enter", "right_square_bracket")
        await wait_for(pilot, lambda: preview.chunk["id"].endswith("#w75"))
        assert "chunk 76 of" in preview.border_subtitle
        assert preview.result is None  # context, not a result
        await pilot.press("left_square_bracket", "left_square_bracket")
        await wait_for(pilot, lambda: preview.chunk["id"].endswith("#w73"))
        # the first chunk of the file has no previous one
        app.main.preview.show_chunk({**preview.chunk, "id": "data/slack/ops-alerts.jsonl#w0",
                                     "source_file": "data/slack/ops-alerts.jsonl"},
                                    terms=[], position=(1, 2))
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: "first chunk" in notes_text(app))


@aio
async def test_copy_and_open_in_editor(demo_root, tmp_path, monkeypatch):
    record = tmp_path / "editor-args.txt"
    editor = tmp_path / "bin" / "vi"  # named vi: the app passes +LINE
    editor.parent.mkdir()
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, MARKUP_QUERY)
        result = app.main.results.results[0]
        await pilot.press("enter", "y")
        assert app.clipboard == result.content
        await pilot.press("e")
        await wait_for(pilot, record.exists, what="the editor")
        args = record.read_text().split()
        assert args == [f"+{result.metadata['lines'][0]}", str(demo_root / result.source_file)]
        monkeypatch.delenv("EDITOR")
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no nano or vi to fall back on
        await pilot.press("e")
        assert "Set $EDITOR" in notes_text(app)


# -- data is shown as text ---------------------------------------------------------------------------

@aio
async def test_markup_and_escapes_in_data_are_shown_literally(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, MARKUP_QUERY)
        row = row_texts(app)[0]
        assert "[bold red]alarm[/]" in row and "␛[31mERROR␛[0m" in row
        assert "\x1b" not in row
        body = app.main.query_one("#pv-body")
        text = body.render().plain
        assert "[bold red]alarm[/]" in text and "␛[31mERROR␛[0m" in text
        # no style from the data: the only style on "alarm" is the search highlight
        prompt = app.main.results.options[0].prompt
        start = prompt.plain.index("[bold red]")
        styles = {str(s.style) for s in prompt.spans if s.start < start + 19 and s.end > start}
        assert styles <= {"bold reverse $accent"}
        # what reaches the terminal: the literal text, no escape byte, no red
        rendered = "\n".join(lines_of(body))
        assert "[bold red]alarm[/]" in rendered and "\x1b" not in rendered
        for y in range(body.size.height):
            for seg in body.render_line(y):
                if "ERROR" in seg.text or "alarm" in seg.text:
                    assert not (seg.style and seg.style.color
                                and seg.style.color.name == "red")
        svg = app.export_screenshot()
        assert "[bold&#160;red]" in svg and "␛[31mERROR␛[0m" in svg
        await pilot.press("enter", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        area = app.screen.query_one(TextArea)
        # the raw JSONL line: markup as written, the escape as JSON wrote it
        assert "[bold red]alarm[/]" in area.text and "\\u001b[31m" in area.text


# -- index jobs ------------------------------------------------------------------------------



@aio
async def test_reindex_progress_search_meanwhile_refuse_second_and_cancel(writable_root):
    for name in ("kayak-a", "kayak-b", "kayak-c"):
        add_chat(writable_root, name)
    gate = GatedEmbedder()
    app = make_app(writable_root, embedder=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, gate.entered.is_set, what="the reindex to embed")
        panel = app.main.query_one(JobPanel)
        assert panel.display and app.job is not None
        await wait_for(pilot, lambda: "files 0/3" in panel.query_one("#job-text")
                       .render().plain, what="progress")
        text = panel.query_one("#job-text").render().plain
        assert "Reindex" in text and "chunks embedded" in text and "now:" in text
        assert "Reindex" in app.main.query_one("#infobar").render().plain
        # searching keeps working while the reindex runs
        await search(pilot, "tile cache")
        assert app.main.results.option_count > 0
        # a second run is refused
        await pilot.press("ctrl+r")
        assert "already running" in notes_text(app)
        await pilot.press("f2")
        assert isinstance(app.screen, MenuScreen)
        menu = app.screen.query_one("#menu-list")
        assert menu.get_option("reindex").disabled and menu.get_option("maintenance").disabled
        assert not menu.get_option("stats").disabled
        await pilot.press("escape")
        # cancel: ctrl+g, then a yes
        await pilot.press("ctrl+g")
        assert isinstance(app.screen, ConfirmScreen) and not app.job.cancel.is_set()
        await pilot.press("y")
        assert app.job.cancel.is_set()
        assert "cancelling" in panel.query_one("#job-text").render().plain
        gate.release.set()
        await wait_for(pilot, lambda: app.job is None, what="the cancelled run")
        await wait_for(pilot, lambda: not panel.display, what="the panel to close")
        assert "Reindex cancelled" in notes_text(app) and "1 file indexed" in notes_text(app)


@aio
async def test_reindex_finishes_with_summary_and_refreshed_counts(writable_root):
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        facets = app.main.query_one(FacetList)
        before = facets.counts["telegram"]
        add_chat(writable_root, "kayak")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.job is None, what="the reindex")
        await wait_for(pilot, lambda: facets.counts["telegram"] == before + 4, what="counts")
        assert "Reindex finished" in notes_text(app)
        assert "1 file indexed" in notes_text(app) and "4 chunks written" in notes_text(app)
        await search(pilot, "zephyrine kayak")
        assert app.main.results.results[0].source_file == "data/telegram/kayak.jsonl"


@aio
async def test_maintenance_from_the_menu(writable_root):
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        menu = app.screen.query_one("#menu-list")
        menu.highlighted = menu.get_option_index("maintenance")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Maintenance" in notes_text(app) and app.job is None,
                       what="maintenance")
        assert "search file rewritten: 2,632 vectors" in notes_text(app)
        await search(pilot, "tile cache")  # the searcher reopened on the rebuilt index
        assert app.main.results.option_count > 0


@aio
async def test_writer_busy_shows_an_error_modal(writable_root):
    app = make_app(writable_root)
    config = load_config(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        with writer_lock(config.db_path, "test run"):
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen))
        message = app.screen.query_one("#error-message").render().plain
        assert "already writing" in message and "Traceback" not in message
        assert app.job is None
        await pilot.press("escape")
        assert app.screen is app.main


@aio
async def test_embedder_mismatch_offers_re_embed(demo_root, monkeypatch):
    def unreadable(self, info, configured):  # vectors of a model no embedder here makes
        raise EmbedderMismatch(info, configured.info)

    monkeypatch.setattr(Searcher, "_serve", unreadable)
    config = load_config(demo_root)
    app = make_app(demo_root, searcher=Searcher(config, OtherEmbedder()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await wait_for(pilot, lambda: isinstance(app.screen, MismatchScreen))
        text = app.screen.query_one(".dialog").query("Static").last().render().plain
        assert "other:other-model" in str(app.screen.error) or "other" in text
        await pilot.press("tab", "enter")  # "Keyword only"
        await wait_for(pilot, lambda: app.screen is app.main and app.main.idle)
        assert app.main.results.option_count > 0
        status = app.main.query_one("#status").render().plain
        assert "keyword-only (semantic unavailable: embedder_mismatch)" in status
        assert "Re-embed" in status
        await search(pilot, "tile cache")  # offered once per session
        assert app.screen is app.main


@aio
async def test_another_embedder_configured_keeps_hybrid_search_and_offers_re_embed(demo_root):
    config = load_config(demo_root)
    app = make_app(demo_root, searcher=Searcher(config, OtherEmbedder()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await wait_for(pilot, lambda: isinstance(app.screen, MismatchScreen))
        text = " ".join(w.render().plain for w in app.screen.query_one(".dialog").query(Static))
        assert "Re-embed" in text and "local:wordllama" in text and "stays hybrid" in text
        await pilot.press("tab", "enter")  # "Later"
        await wait_for(pilot, lambda: app.screen is app.main and app.main.idle)
        assert app.main.results.option_count > 0
        status = app.main.query_one("#status").render().plain
        assert "arms: both" in status and "vectors: local (F2 → Re-embed)" in status
        await search(pilot, "tile cache")  # offered once per session
        assert app.screen is app.main


# -- import ------------------------------------------------------------------------------------

WHATSAPP_CHAT = (
    "27/11/2026, 21:04 - Maya Chen: the pelican kite is ready\n"
    "27/11/2026, 21:06 - Sam Rivera: great, bring the pelican kite to the dunes\n"
    "28/11/2026, 08:15 - Maya Chen: see you at the beach at nine\n"
)


def _whatsapp_export(folder: Path, body: str = WHATSAPP_CHAT) -> Path:
    path = folder / "WhatsApp Chat with Maya Chen.txt"
    path.write_text(body, encoding="utf-8")
    return path


async def _open_import(pilot, path: Path | str, *, kind: str = "whatsapp",
                       dry_run: bool = False) -> None:
    """ctrl+o, fill in the dialog (the path entered), enter."""
    from textual.widgets import Checkbox, Select

    from tui.screens.import_dialog import ImportScreen

    app = pilot.app
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen), what="the dialog")
    app.screen.query_one("#import-kind", Select).value = kind
    app.screen.query_one("#import-dry-run", Checkbox).value = dry_run
    await enter_text(pilot, app.screen.query_one("#import-path"), str(path))


@aio
async def test_import_whatsapp_progress_then_automatic_reindex_then_search(
        own_root, tmp_path, monkeypatch):
    import engine.importers as importers

    export = _whatsapp_export(tmp_path)
    real_run_import = importers.run_import
    entered, release = threading.Event(), threading.Event()

    def gated_run_import(*args, progress=None, **kw):
        def held(done, total):
            progress(done, total)
            entered.set()
            release.wait(20)  # the import is reliably still running meanwhile
        return real_run_import(*args, progress=held, **kw)
    monkeypatch.setattr(importers, "run_import", gated_run_import)

    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await _open_import(pilot, export)
        await wait_for(pilot, entered.is_set, what="the import to start")
        panel = app.main.query_one(JobPanel)
        await wait_for(pilot, lambda: "files 0/1" in panel.query_one("#job-text").render().plain,
                       what="import progress")
        text = panel.query_one("#job-text").render().plain
        assert panel.display and "Import whatsapp" in text and "cannot be cancelled" in text
        assert str(export) in text
        bar = panel.query_one("#job-bar")
        assert bar.total == 1 and bar.progress == 0
        assert "Import whatsapp" in app.main.query_one("#infobar").render().plain
        # one job at a time: a reindex or a second import is refused
        await pilot.press("ctrl+r")
        assert "Import whatsapp is already running" in notes_text(app)
        await pilot.press("ctrl+o")
        assert app.screen is app.main and notes_text(app).count("already running") == 2
        await pilot.press("f2")
        assert app.screen.query_one("#menu-list").get_option("import_data").disabled
        await pilot.press("escape")
        # cancel is not supported by the importer: said, and nothing gets stuck
        await pilot.press("ctrl+g")
        assert "cannot be cancelled" in notes_text(app) and not app.job.cancel.is_set()
        release.set()
        await wait_for(pilot, lambda: "Import finished" in notes_text(app), what="the import")
        from tui.screens.import_dialog import ImportResultScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ImportResultScreen)
                       and bool(app.screen.query("#ok")), what="the import result, mounted")
        note = app.screen.query_one("#import-summary").render().plain  # the whole summary
        assert "whatsapp: imported 3 records, 0 already present" in note
        assert "wrote data/whatsapp/Maya Chen.jsonl" in note
        assert "Reindexing now" in note
        assert "one log per chat, named after it" in note
        await pilot.press("enter")
        # the reindex starts on its own, and refreshes the counts when it is done
        await wait_for(pilot, lambda: "Reindex finished" in notes_text(app) and app.job is None,
                       what="the automatic reindex")
        assert "1 file indexed" in notes_text(app)
        await wait_for(pilot, lambda: not panel.display, what="the panel to close")
        assert (own_root / "data/whatsapp/Maya Chen.jsonl").exists()
        await search(pilot, "pelican kite")
        found = [(i, r) for i, r in enumerate(app.main.results.results)
                 if r.source_file == "data/whatsapp/Maya Chen.jsonl"]
        assert found and found[0][0] == 0, row_texts(app)[:3]
        assert found[0][1].source_type == "whatsapp" and "pelican kite" in found[0][1].content


@aio
async def test_import_bad_path_shows_an_inline_error(own_root, tmp_path):
    from tui.screens.import_dialog import ImportScreen

    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        missing = tmp_path / "no such [bold]export[/].txt"
        await _open_import(pilot, missing)
        await pilot.pause()
        assert isinstance(app.screen, ImportScreen) and app.job is None
        error = app.screen.query_one("#import-error")
        assert error.display
        assert f"No such file or folder: {missing}" in error.render().plain  # literally
        await pilot.press("a")  # typing clears the error
        assert not error.display
        await pilot.press("ctrl+u", "enter")  # empty
        assert "Enter the path" in error.render().plain
        await pilot.press("escape")
        assert app.screen is app.main and app.job is None


@aio
async def test_import_failure_shows_the_error_modal(own_root, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello, this is not a chat\n")
    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await _open_import(pilot, notes)
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen), what="the error")
        title = app.screen.query_one(".dialog-title").render().plain
        message = app.screen.query_one("#error-message").render().plain
        assert title == "Import failed"
        assert message == "notes.txt: not a WhatsApp chat export (no line starts with a date " \
                          "and time)"
        assert app.job is None and not app.main.query_one(JobPanel).display
        await pilot.press("escape")
        assert app.screen is app.main
        await pilot.press("ctrl+o")  # the next import is allowed, and starts from the last one
        assert app.screen.query_one("#import-path").value == str(notes)


@aio
async def test_import_dry_run_lists_problems_literally_and_does_not_reindex(
        own_root, tmp_path):
    from tui.screens.import_dialog import ImportResultScreen

    export = _whatsapp_export(tmp_path, WHATSAPP_CHAT
                              + "40/40/2026, 21:05 - Sam: [bold red]never[/] \x1b[31mX\n"
                              + "Aug 6, 2016, 13:23 - Maya Chen: [red]odd[/]\n")
    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await _open_import(pilot, export, dry_run=True)
        await wait_for(pilot, lambda: isinstance(app.screen, ImportResultScreen),
                       what="the problems")
        assert "Import (dry run) finished" in notes_text(app)
        note = app.screen.query_one("#import-summary").render().plain
        assert "would import 3 records" in note
        assert "would write data/whatsapp/Maya Chen.jsonl (+3)" in note
        assert "Dry run: nothing was written." in note and "Reindexing" not in note
        assert "problems (listed in the dialog)" in note and "problem:" not in note
        text = app.screen.query_one("#import-problems-text").render().plain
        assert "WhatsApp Chat with Maya Chen.txt:5: unrecognised date/time format" in text
        assert "[red]odd" in text and "invalid date 40/40/2026" in text
        assert "\x1b" not in text
        body = app.screen.query_one("#import-problems-text")
        assert "[red]odd" in "\n".join(lines_of(body))  # what reaches the terminal
        assert app.job is None  # no reindex after a dry run
        assert not (own_root / "data/whatsapp/Maya Chen.jsonl").exists()
        await pilot.press("enter")
        assert app.screen is app.main


# -- other screens -----------------------------------------------------------------------------

@aio
async def test_help_lists_every_key_and_keymap_remaps(demo_root):
    app = make_app(demo_root, keys={"person_filter": "ctrl+y"})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text").render().plain
        from tui import keys

        for _, group in keys.SECTIONS:
            for binding in group:
                assert binding.id in text and (binding.tooltip or binding.description) in text
        assert "^y" in text and "Command palette" in text
        await pilot.press("escape")
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, PersonScreen)


@aio
async def test_stats_and_discover_screens(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        assert isinstance(app.screen, StatsScreen)
        await wait_for(pilot, lambda: app.screen.loaded)
        screen = app.screen
        chart = "\n".join(lines_of(screen.query_one("#per-type")))
        assert "Slack" in chart and "email_catalog" not in chart and "█" in chart
        months = "\n".join(lines_of(screen.query_one("#per-month")))
        assert "2026" in months
        summary = screen.query_one("#stats-summary").render().plain
        assert "local:" in summary and "pending" in summary and "MB" in summary
        assert "compiled" in summary and "passage scans" in summary
        assert "each stored once" in screen.query_one("#health").render().plain
        await pilot.press("escape", "f4")
        assert isinstance(app.screen, DiscoverScreen)
        await wait_for(pilot, lambda: app.screen.loaded)
        assert app.screen.query_one("#routes").row_count >= 25
        assert "all" in app.screen.query_one("#discover-summary").render().plain


async def run_command(pilot, name: str) -> None:
    """ctrl+p, type ``name``, enter the first hit."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "CommandPalette")
    app.screen.query_one("Input").value = name
    await wait_for(pilot, lambda: app.screen.query("CommandList").first().option_count)
    await pilot.press("enter")


@aio
async def test_command_palette_offers_every_action_where_it_applies(demo_root):
    from tui.actions import ACTIONS
    from tui.commands import MemlensCommands

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)

        def titles() -> set[str]:
            return {title for title, _, _ in MemlensCommands(app.screen).commands}
        chunk_actions = {a.title for a in ACTIONS if a.needs_chunk}
        assert {"Reindex", "Full rebuild", "Re-embed", "Maintenance",
                "Maintenance (no vacuum)", "Discover", "Index statistics", "Toggle explain",
                "Theme", "Help", "Search mode", "Date range", "Person filter", "Clear filters",
                "Toggle preview", "Facets"} <= titles()
        assert not titles() & chunk_actions and "Cancel job" not in titles()
        assert not {"Import…", "Sources…"} & titles()  # the demo root refuses them
        theme = [c for c in app.get_system_commands(app.screen) if c.title == "Theme"]
        assert not theme  # offered once, by the catalogue
        await search(pilot, "climbing")
        await pilot.press("enter")
        assert chunk_actions <= titles()  # a chunk is shown: its actions are offered
        await run_command(pilot, "search mode")  # a main-screen action, by name
        await wait_for(pilot, lambda: app.main.session.filters.mode == "keyword")
        await run_command(pilot, "index statistics")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
        assert not {a.title for a in ACTIONS if a.scope == "main"} & titles()


@aio
async def test_narrow_terminal_stays_usable(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        main = app.main
        assert main.has_class("-narrow")
        assert not main.query_one(FacetList).display
        await search(pilot, "climbing")
        results, preview = main.results, main.preview
        assert results.region.height >= 4 and preview.region.height >= 4
        assert preview.region.y > results.region.y  # the preview moved below
        await pilot.press("ctrl+f")  # facets come up over the results
        assert main.query_one(FacetList).display and main.focused is main.query_one(FacetList)
        await pilot.press("escape")
        assert not main.query_one(FacetList).display
        await pilot.press("enter", "v")  # the preview can be hidden...
        assert not preview.display
        await pilot.press("v")
        assert preview.display
        status = main.query_one("#status").render().plain
        assert "results" in status
        await pilot.resize_terminal(100, 30)  # compact: preview beside, facets on ctrl+f
        await pilot.pause(0.1)
        assert main.has_class("-compact") and not main.query_one(FacetList).display
        assert preview.region.x > results.region.x and results.region.width >= 50
        await pilot.resize_terminal(160, 40)  # wide: everything side by side
        await pilot.pause(0.1)
        assert main.has_class("-wide") and main.query_one(FacetList).display


def test_styles_are_found_from_the_package():
    from tui.app import MemlensApp as App

    css = Path(App.CSS_PATH)
    assert css.is_absolute() and css.exists() and css.parent.name == "styles"



# -- pieces without the app -----------------------------------------------------------------------

def test_text_helpers_neutralise_data():
    from tui.widgets.text import plain, snippet_content

    assert plain("a\x1b[31mb\x07\r\nc\u202e\x9b") == "a␛[31mb␇\nc\ufffd\ufffd"
    from types import SimpleNamespace

    row = SimpleNamespace(snippet="x tile [link=file:///etc]y[/link] \x1b «a b» \udce9 zoom",
                          content="", highlights=[(2, 6), (42, 43)], emphasis=[(44, 48, "code")])
    content = snippet_content(row)  # spans, not markers: a literal « stays text
    assert content.plain == "x tile [link=file:///etc]y[/link] ␛ «a b» \\xe9 zoom"
    assert [(content.plain[s.start:s.end], str(s.style)) for s in content.spans] == [
        ("tile", "bold reverse $accent"), ("\\xe9", "bold reverse $accent"),
        ("zoom", "$text-secondary")]


def test_stats_health_suggests_maintenance():
    from engine.index.contents import StorageHealth
    from tui.screens.stats import health_content

    class Stats:
        db_bytes = 40 << 20
        storage = StorageHealth(vectors=1000, search_bytes=700_000, search_segments=2,
                                search_masked=30, search_behind=0, search_problem=None,
                                free_bytes=30 << 20, suggest_maintenance=True)

    text = health_content(Stats()).plain
    assert "25% of the file's pages" in text and "free pages 30.0 MB" in text
    assert "1,000 vectors, each stored once" in text and "run maintenance" in text
    assert "search file 683.6 KB in 2 segments, 30 rows masked" in text
    Stats.storage = StorageHealth(1000, 700_000, 1, 0, 5, None, 0, False)
    text = health_content(Stats()).plain
    assert "no maintenance needed" in text and "5 changes read from the rows" in text
    Stats.storage = StorageHealth(1000, 0, 0, 0, 0, "its manifest is unreadable", 0, False)
    assert "search file not used (its manifest is unreadable)" in health_content(Stats()).plain


def test_locate_chunk_in_a_window_of_a_big_file():
    from tui.workers import locate_chunk

    lines = [f"line {i}" for i in range(1000, 1100)]  # file lines 1001..1100
    assert locate_chunk(lines, {"metadata": {"lines": [1011, 1020]}}, first=1000) == (10, 19)
    assert locate_chunk(lines, {"metadata": {"line": 5}}, first=1000) is None
    md = ["# Title", "", "Intro", "## Part", "", "Body text of the part here", "more"]
    span = locate_chunk(md, {"metadata": {}, "content": "Title > Part\nBody text of the part here"})
    assert span == (5, 5)


def test_import_summary_and_typed_paths(tmp_path):
    from engine.importers import ImportReport
    from tui.screens.import_dialog import clean_path, problem_lines
    from tui.summaries import import_summary

    report = ImportReport(kind="slack", records_imported=300,
                          files_written=[f"data/slack/c{i}.jsonl" for i in range(30)],
                          problems=[("export/c1.json", 4, "bad [red]ts[/]\x1b[2J")])
    text = import_summary(report, 1.25, reindexing=True)
    lines = text.splitlines()
    assert lines[0] == "slack: imported 300 records, 0 already present · 1.2 s"
    assert "… 20 more lines" in text and "problem:" not in text
    assert lines[-2:] == ["1 problem (listed in the dialog)",
                          "Reindexing now, so the imported records become searchable."]
    assert problem_lines(report.problems) == ["export/c1.json:4: bad [red]ts[/]\x1b[2J"]
    report = ImportReport(kind="whatsapp", dry_run=True)
    assert import_summary(report, 0.0, reindexing=False).endswith(
        "nothing could be imported\nDry run: nothing was written.")
    spaced = tmp_path / "My Chats" / "chat.txt"
    spaced.parent.mkdir()
    spaced.write_text("x")
    assert clean_path(f"'{spaced}'") == spaced
    assert clean_path(str(spaced).replace(" ", "\\ ")) == spaced
    assert clean_path("  ") is None
    assert clean_path("~/x.txt") == Path.home() / "x.txt"


@aio
async def test_a_job_message_forwarded_to_the_main_screen_is_handled_once(demo_root,
                                                                           monkeypatch):
    """A JobProgress the App forwards must not bubble back to the App: it was forwarded again,
    a message loop that kept the UI thread busy (and starved the reindex) while a job ran."""
    from engine.indexer import Progress
    from tui.actions import JobKind
    from tui.app_jobs import Job
    from tui.messages import JobProgress

    calls = []
    monkeypatch.setattr(JobPanel, "progress", lambda self, p, elapsed: calls.append(p))
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.jobs.job = Job(JobKind.REINDEX, threading.Event())
        app.post_message(JobProgress(JobKind.REINDEX, Progress("scan"), 0.1))
        await pilot.pause(0.3)
        app.jobs.job = None
    assert len(calls) == 1
