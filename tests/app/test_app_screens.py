"""Pilot tests of the app's secondary screens: the file viewer, dialogs at 80×24, the import
result, the date range, statistics, the persisted state and watch mode."""

from __future__ import annotations

from textual.widgets import TextArea

from tests.app.conftest import aio, make_app, ready, search, wait_for
from tui.keys import BY_BINDING
from tui.screens.modals import DateRangeScreen
from tui.screens.viewer import FileViewerScreen

OBSERVATIONS = "data/identity/observations.jsonl"


def _chunk(line: int) -> dict:
    return {"id": f"{OBSERVATIONS}#r{line}", "source_file": OBSERVATIONS, "content": "x",
            "metadata": {"line": line}}


async def _viewer(pilot, chunk: dict, terms=()) -> FileViewerScreen:
    app = pilot.app
    app.push_screen(FileViewerScreen(chunk, frozen=True, terms=terms))
    await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
    await pilot.pause()
    return app.screen


def _painted(area: TextArea, word: str, style) -> bool:
    """Whether a rendered line of the viewer shows ``word`` with ``style``'s background."""
    return any(seg.text.lower() == word and seg.style.bgcolor == style.bgcolor
               for y in range(area.size.height) for seg in area.render_line(y))


@aio
async def test_viewer_header_names_one_line_and_keys_move_and_search(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        viewer = await _viewer(pilot, _chunk(17), terms=["climbing"])
        title = viewer.query_one("#viewer-title").render().plain
        assert "chunk at line 17" in title and "lines 17" not in title
        area = viewer.query_one(TextArea)
        # the query's term is marked wherever it occurs (row 16 holds "Climbing")
        term, match = area.highlight_styles()
        assert any(span.style == term for span in area.get_line(16).spans)
        await pilot.press("G")
        assert area.cursor_location[0] == area.document.line_count - 1
        await pilot.press("g")
        assert area.cursor_location == (0, 0) and area.scroll_offset.y == 0
        await pilot.press("j", "j")
        assert area.scroll_offset.y == 2
        await pilot.press("k")
        assert area.scroll_offset.y == 1
        # / searches: enter goes to the first match after the cursor, n / N step
        await pilot.press("slash", *"mood", "enter")
        rows = [r for r, line in enumerate(area.document.lines) if "mood" in line.lower()]
        assert len(rows) >= 2
        assert area.selection.start[0] == rows[0]
        assert area.selected_text.lower() == "mood"
        found = viewer.query_one("#viewer-found").render().plain
        assert found.startswith(f"match 1 of {len(viewer.matches)}")
        assert any(span.style == match for span in area.get_line(rows[0]).spans)
        await pilot.press("n")
        assert area.selection.start[0] == viewer.matches[1][0]
        await pilot.press("N", "N")  # wraps round to the last match
        assert area.selection.start[0] == viewer.matches[-1][0]
        assert _painted(area, "mood", match), "the matches are painted"
        await pilot.press("slash", *"zzqx", "enter")
        assert "not found: zzqx" in viewer.query_one("#viewer-found").render().plain
        assert not _painted(area, "mood", match), "the last search's marks are gone"
        # the search box takes letters as text, esc closes it and the viewer stays
        await pilot.press("slash", "j", "escape")
        assert app.screen is viewer and not viewer.query_one("#viewer-search").display
        await pilot.press("escape")
        assert app.screen is app.main


@aio
async def test_viewer_and_editor_refuse_a_link_out_of_the_data_root(data_root, tmp_path,
                                                                    monkeypatch):
    """The viewer and the editor open a file by the read facade's rules (Library.file_path),
    as MCP's read_note does: a routed name that links out of the root is refused."""
    outside = tmp_path / "outside.md"
    outside.write_text("# private\n\nthe secret outside the root\n")
    (data_root / "notes/link.md").symlink_to(outside)
    record = tmp_path / "editor-args.txt"
    editor = tmp_path / "bin" / "vi"
    editor.parent.mkdir()
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    chunk = {"id": "notes/link.md#0", "source_file": "notes/link.md", "source_type": "note",
             "content": "the secret outside the root", "metadata": {}}
    app = make_app(data_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        viewer = await _viewer(pilot, chunk)
        title = viewer.query_one("#viewer-title").render().plain
        assert "cannot open" in title and "leaves the data root" in title
        assert "secret" not in viewer.query_one(TextArea).text
        await pilot.press("escape")
        app.main.preview.show_chunk(chunk, terms=[], position=None)
        app.main.preview.focus()
        await pilot.press("e")
        await pilot.pause()
        assert not record.exists()
        assert any("leaves the data root" in m for _, m, _ in app.notes)


@aio
async def test_terms_keep_their_colour_in_the_selected_chunk_in_every_theme(demo_root):
    from rich.color import Color

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        viewer = await _viewer(pilot, _chunk(17), terms=["climbing"])
        area = viewer.query_one(TextArea)
        for theme in ("textual-dark", "nord"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            selection = area.get_component_rich_style("text-area--selection").bgcolor
            words = [seg.style for y in range(area.size.height) for seg in area.render_line(y)
                     if seg.text.lower() == "climbing"]
            selected = [w for w in words if w.bgcolor.get_truecolor() == selection.get_truecolor()]
            assert selected, theme  # row 16 is the selected chunk
            accent = Color.parse(app.current_theme.accent).get_truecolor()
            assert all(w.color.get_truecolor() == accent for w in selected), theme


@aio
async def test_viewer_opened_from_a_result_highlights_the_query(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing mood")
        await pilot.press("enter", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        assert "climbing" in [t.lower() for t in app.screen.terms]


async def _date_dialog(pilot, since: str, until: str = "") -> str:
    """ctrl+b, type into the boxes; what the line under them says."""
    app = pilot.app
    await pilot.press("ctrl+b")
    await wait_for(pilot, lambda: isinstance(app.screen, DateRangeScreen))
    await pilot.press(*since, "tab", *until) if until else await pilot.press(*since)
    await pilot.pause()
    return app.screen.query_one("#date-error").render().plain


@aio
async def test_date_range_reads_months_and_phrases(demo_root):
    app = make_app(demo_root)  # now = 2026-11-30
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        line = await _date_dialog(pilot, "2026-07", "july")
        assert line == "→ 2026-07-01 – 2026-07-31"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.main and app.main.idle)
        f = app.main.session.filters
        assert (f.since, f.until) == ("2026-07-01", "2026-07-31")
        assert app.main.session.request.since == "2026-07-01"
        await pilot.press("escape")  # to the results: ctrl+b works from there too
        line = await _date_dialog(pilot, "")
        app.screen.query_one("#since").value = "last month"
        app.screen.query_one("#until").value = "last month"
        await pilot.pause()
        assert app.screen.query_one("#date-error").render().plain == \
            "→ 2026-10-01 – 2026-10-31"
        app.screen.query_one("#since").value = "julyy"
        await pilot.pause()
        line = app.screen.query_one("#date-error").render().plain
        assert line.startswith("cannot read 'julyy' as a date (try 2026-03-14")
        assert "\n" not in line
        await pilot.press("enter")  # refused: the dialog stays, the filter too
        assert isinstance(app.screen, DateRangeScreen)
        assert (f.since, f.until) == ("2026-07-01", "2026-07-31")
        app.screen.query_one("#since").value = "3 weeks ago"
        app.screen.query_one("#until").value = ""
        await pilot.pause()
        assert app.screen.query_one("#date-error").render().plain == "→ 2026-11-09 – …"  # that ISO week


def _fake_editor(folder, name: str, record) -> None:
    folder.mkdir(exist_ok=True)
    editor = folder / name
    editor.write_text(f'#!/bin/sh\nprintf "%s\\n" "$0" "$@" > {record}\n')
    editor.chmod(0o755)


@aio
async def test_editor_falls_back_to_visual_then_nano_and_says_which(
        demo_root, tmp_path, monkeypatch):
    record = tmp_path / "args.txt"
    bin_ = tmp_path / "bin"
    _fake_editor(bin_, "nano", record)
    _fake_editor(bin_, "visual-ed", record)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("VISUAL", str(bin_ / "visual-ed"))
    monkeypatch.setenv("PATH", str(bin_))
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await pilot.press("enter", "e")
        await wait_for(pilot, record.exists, what="the editor")
        assert record.read_text().split()[0].endswith("visual-ed")
        assert "$EDITOR is not set: opening in $VISUAL" in "\n".join(m for _, m, _ in app.notes)
        record.unlink()
        monkeypatch.delenv("VISUAL")
        await pilot.press("e")
        await wait_for(pilot, record.exists, what="nano")
        args = record.read_text().split()
        assert args[0].endswith("/nano") and args[1].startswith("+")  # nano takes +LINE
        assert "Neither $EDITOR nor $VISUAL is set: opening in nano" in \
            "\n".join(m for _, m, _ in app.notes)


def test_month_chart_shows_gaps_as_gaps_and_years_under_their_months():
    from tui.widgets.charts import GAP, fit_months, month_series, year_line

    data = {"2016-03": 5, "2016-04": 2, "2025-01": 9, "2025-03": 4}
    series = month_series(data)
    assert len(series) == 109 and series[2] == ("2016-05", 0)  # empty months are there
    assert ("2025-02", 0) in series
    items, cut = fit_months(series, 40)  # 109 months do not fit: the long run is one gap
    assert items == [("2016-03", 5), ("2016-04", 2), (GAP, 104), ("2025-01", 9),
                     ("2025-02", 0), ("2025-03", 4)] and not cut
    assert year_line(items, 4) == "2016        2025"  # each year under its own first column
    # a December before a January: the partial year gives way, the next is not moved
    items = [("2025-12", 1), ("2026-01", 2), ("2026-02", 3)]
    assert year_line(items, 3) == "   2026"
    # months that fit are all drawn, without gap columns
    few = month_series({"2026-01": 1, "2026-04": 1})
    assert fit_months(few, 40) == (few, False) and len(few) == 4


def test_stats_timestamps_are_local_time(monkeypatch):
    import time

    from tui.screens.stats import local_time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert local_time("2026-12-01T09:55:00+00:00") == "2026-12-01 18:55 JST"
        assert local_time(None) == "never"
    finally:
        monkeypatch.undo()
        time.tzset()


def _visible(app, widget) -> bool:
    """Whether the widget is wholly on the screen (not scrolled away, not off the edge)."""
    region = widget.region
    return region.height > 0 and app.screen.region.contains_region(region)


@aio
async def test_80x24_dialogs_fit_and_the_footer_keeps_f1_f2(own_root):
    from tui.screens.help import HelpScreen, help_content
    from tui.screens.import_dialog import ImportScreen

    app = make_app(own_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await pilot.press("enter")  # the results focused: their keys come first in Textual
        footer = app.main.query_one("MemlensFooter")
        await pilot.pause()
        shown = [k.key_display for k in footer.query("FooterKey") if _visible(app, k)]
        assert shown[:2] == ["F1", "F2"]
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen))
        await pilot.pause()
        dialog = app.screen
        for bid in ("#import", "#cancel"):
            assert _visible(app, dialog.query_one(bid))  # always on screen
        help_text = dialog.query_one("#import-kind-help").render().plain
        assert "→ data/whatsapp/" in help_text and "->" not in help_text
        assert "one log per chat, named after it" in help_text
        await pilot.press("tab", "tab")  # to the checkboxes: scrolled into view
        await pilot.pause()
        assert dialog.focused.id == "import-dry-run" and _visible(app, dialog.focused)
        await pilot.press("escape", "escape", "f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        width = app.screen.query_one("#help-text").content_region.width
        assert width < 80
        ids = set(BY_BINDING)
        for line in help_content(app, width).plain.splitlines()[2:]:  # the rows of keys
            assert len(line.rstrip()) <= width, line
            # no id alone on a line: in the id column, past the key and text columns (a
            # wrapped description may be one word that happens to name an action)
            indent = len(line) - len(line.lstrip())
            assert not (line.strip() in ids and indent > 20), line


# -- remembered state and watch mode -----------------------------------------------------------

@aio
async def test_theme_history_filters_and_watch_are_remembered(demo_root, app_state):
    import json

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.theme = "nord"
        await search(pilot, "climbing")
        await pilot.press("enter")  # remembered in the history
        app.main.session.filters.since = "2026-07-01"
        app.main.session.filters.mode = "keyword"
        await pilot.press("ctrl+q")
    saved = json.loads((app_state / "state.json").read_text())
    assert saved["theme"] == "nord" and saved["history"] == ["climbing"]
    assert saved["filters"]["since"] == "2026-07-01" and saved["filters"]["mode"] == "keyword"
    assert saved["watch"] is True  # the setting, not MEMLENS_WATCH's override
    assert not list(app_state.glob("*.tmp"))  # written atomically: no temporary file left

    again = make_app(demo_root)
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert again.theme == "nord"
        assert again.main.session.filters.since == "2026-07-01"
        assert "2026-07-01" in again.main.query_one("#chips").render().plain
        await pilot.press("up")
        assert again.main.query_one("#query").value == "climbing"


@aio
async def test_a_corrupt_state_file_is_ignored_with_a_notice(demo_root, app_state):
    app_state.mkdir()
    (app_state / "state.json").write_text('{"theme": "nord", "history": [')
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.theme != "nord"
        notes = [(m, s) for _, m, s in app.notes if "Ignored the saved app state" in m]
        assert notes and notes[0][1] == "warning" and "\n" not in notes[0][0]


@aio
async def test_watch_mode_refreshes_the_results_when_a_log_grows(tmp_path, monkeypatch):
    import json

    from engine.config import load_config
    from engine.indexer import reindex
    from tests.app.conftest import SharedEmbedder
    from tests.conftest import make_root

    root = make_root(tmp_path / "root")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    monkeypatch.setenv("MEMLENS_WATCH", "on")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.state.watcher is not None and app.state.watcher.running
        assert "watching" in app.main.query_one("#infobar").render().plain
        await search(pilot, "zeppelin")
        assert not app.main.results.results
        with (root / "data/slack/general.jsonl").open("a") as fh:
            fh.write(json.dumps({"ts": "2026-03-02T10:00:00-08:00", "user": "Maya Chen",
                                 "text": "the zeppelin lands at noon"}) + "\n")
        await wait_for(pilot, lambda: any("zeppelin" in r.content
                                          for r in app.main.results.results),
                       timeout=30, what="the watched reindex to reach the results")
        # off from the palette's action (the menu runs the same one): the watcher stops
        await app.run_action("toggle_watch")
        assert app.state.watcher is None and not app.state.watching
        await pilot.pause()  # the header hears of it by a message (HeaderChanged)
        assert "watch off" in app.main.query_one("#infobar").render().plain


@aio
async def test_import_result_dialog_shows_the_whole_summary_at_80x24(demo_root):
    from types import SimpleNamespace

    from tui.screens.import_dialog import ImportResultScreen

    report = SimpleNamespace(kind="whatsapp", ok=True, dry_run=False, records_imported=3,
                             problems=[("chat.txt", 5, "unrecognised date/time format")])
    long_line = "wrote data/whatsapp/" + "A-very-long-chat-name-" * 4 + ".jsonl (+3)"
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(ImportResultScreen(report, "Import finished",
                                           "whatsapp: imported 3 records\n" + long_line))
        await wait_for(pilot, lambda: isinstance(app.screen, ImportResultScreen)
                       and bool(app.screen.query("#ok")), what="the import result, mounted")
        await pilot.pause()
        summary = app.screen.query_one("#import-summary")
        shown = "".join(line.strip() for line in
                        (summary.render_line(y).text for y in range(summary.size.height)))
        assert long_line.replace(" ", "") in shown.replace(" ", "")  # wrapped, not cut
        assert "chat.txt:5: unrecognised" in app.screen.query_one(
            "#import-problems-text").render().plain
        await pilot.press("enter")
        assert app.screen is app.main


@aio
async def test_an_older_index_the_watcher_converts_is_shown_once_converted(tmp_path, monkeypatch):
    from engine.config import load_config
    from engine.indexer import reindex
    from tests.app.conftest import SharedEmbedder
    from tests.conftest import as_vec0_index, make_root

    root = make_root(tmp_path / "root")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    as_vec0_index(load_config(root).db_path)  # as the memlens before schema v11 left it
    monkeypatch.setenv("MEMLENS_WATCH", "on")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        # the watcher's first run converts it (nothing else changed): the screen follows
        await wait_for(pilot, lambda: "chunks" in app.main.query_one("#infobar").render().plain
                       and "unreadable" not in app.main.query_one("#infobar").render().plain,
                       timeout=30, what="the header to show the converted index")
        await search(pilot, "harbor")
        assert app.main.results.results
