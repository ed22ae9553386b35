"""Every key binding of the app, in one place, each with an id.

The ids are what a user remaps in ``memlens.toml``::

    [keys]
    person_filter = "ctrl+y"
    results_down = "j,down,ctrl+n"

(applied with ``App.set_keymap``). The help screen is generated from these lists, so it always
shows every key, remapped or not.
"""

from __future__ import annotations

from textual.binding import Binding

APP = [
    Binding("f1,question_mark", "help", "Help", id="help", key_display="F1",
            tooltip="This screen: every key"),
    Binding("f2,m", "menu", "Menu", id="menu", key_display="F2",
            tooltip="Menu: reindex, re-embed, maintenance, stats, theme…"),
    Binding("ctrl+r", "reindex", "Reindex", id="reindex",
            tooltip="Reindex new and changed files (in the background)"),
    Binding("ctrl+o", "import_data", "Import", id="import", show=False,
            tooltip="Import an export (WhatsApp, Slack, mbox…), then reindex"),
    Binding("f3", "stats", "Stats", id="stats", key_display="F3",
            tooltip="Index statistics (charts, size, bloat, embedder)"),
    Binding("f4", "discover", "Discover", id="discover", show=False, key_display="F4",
            tooltip="Discover: routes and files waiting to be indexed"),
    Binding("x", "toggle_explain", "Explain", id="explain", show=False,
            tooltip="Show/hide the explain block in the preview"),
    Binding("f9", "change_theme", "Theme", id="theme", show=False, key_display="F9",
            tooltip="Pick a colour theme"),
    Binding("ctrl+g", "cancel_job", "Cancel job", id="cancel_job", priority=True,
            tooltip="Cancel the running reindex at the next file boundary"),
]

MAIN = [
    Binding("escape", "escape", "Query", id="back", show=False,
            tooltip="Back to the query box (there: cancel a running reindex)"),
    Binding("slash", "focus_query", "Query", id="focus_query", show=False,
            tooltip="Go to the query box"),
    Binding("ctrl+f", "facets", "Facets", id="facets",
            tooltip="Source-type facets (shown over the results when narrow)"),
    Binding("ctrl+t", "cycle_mode", "Mode", id="mode",
            tooltip="Search mode: hybrid → keyword → semantic"),
    Binding("ctrl+b,d", "date_filter", "Dates", id="date_filter",
            tooltip="Date range filter"),
    Binding("ctrl+n,p", "person_filter", "Person", id="person_filter",
            tooltip="Person filter (people from profile/relationships.json)"),
    Binding("ctrl+l", "clear_filters", "Clear filters", id="clear_filters", show=False,
            tooltip="Clear every filter (types, dates, person, mode)"),
    Binding("v", "toggle_preview", "Preview", id="toggle_preview", show=False,
            tooltip="Show/hide the preview pane"),
    Binding("o", "open_file", "Open file", id="open_file",
            tooltip="Open the whole source file at the chunk"),
    Binding("left_square_bracket", "step(-1)", "Prev chunk", id="prev_chunk",
            key_display="[", show=False, tooltip="Previous chunk of the same file (context)"),
    Binding("right_square_bracket", "step(1)", "Next chunk", id="next_chunk", key_display="]",
            tooltip="Next chunk of the same file (context)"),
    Binding("e", "edit", "Editor", id="edit", show=False,
            tooltip="Open the file in $EDITOR (the app resumes after)"),
    Binding("y", "copy", "Copy", id="copy", show=False, tooltip="Copy the chunk text"),
]

QUERY = [
    Binding("up", "history(-1)", "Previous query", id="history_prev", show=False),
    Binding("down", "history(1)", "Next query", id="history_next", show=False),
]

RESULTS = [
    Binding("j,down", "cursor_down", "Down", id="results_down", show=False),
    Binding("k,up", "cursor_up", "Up", id="results_up", show=False),
    Binding("g,home", "first", "First", id="results_first", show=False),
    Binding("G,end", "last", "Last", id="results_last", show=False),
    Binding("pageup,ctrl+u", "page_up", "Page up", id="results_page_up", show=False),
    Binding("pagedown,ctrl+d", "page_down", "Page down", id="results_page_down", show=False),
    Binding("enter", "select", "Preview", id="results_open", tooltip="Go to the preview"),
]

FACETS = [
    Binding("space", "select", "Toggle", id="facet_toggle", tooltip="Check/uncheck this type"),
    Binding("j,down", "cursor_down", "Down", id="facet_down", show=False),
    Binding("k,up", "cursor_up", "Up", id="facet_up", show=False),
    Binding("a", "facets_all", "All", id="facet_all"),
    Binding("n", "facets_none", "None", id="facet_none"),
    Binding("i", "facets_only", "Only this", id="facet_only", tooltip="Check only this type"),
]

PREVIEW = [
    Binding("j,down", "scroll_down", "Scroll down", id="preview_down", show=False),
    Binding("k,up", "scroll_up", "Scroll up", id="preview_up", show=False),
    Binding("g,home", "scroll_home", "Top", id="preview_top", show=False),
    Binding("G,end", "scroll_end", "Bottom", id="preview_bottom", show=False),
    Binding("pageup", "page_up", "Page up", id="preview_page_up", show=False),
    Binding("pagedown,space", "page_down", "Page down", id="preview_page_down", show=False),
]

VIEWER = [
    Binding("escape,q", "close", "Back", id="viewer_close"),
    Binding("e", "edit", "Editor", id="viewer_edit"),
    Binding("c", "center", "To chunk", id="viewer_center", tooltip="Back to the chunk"),
]

STATS = [
    Binding("escape,q", "close", "Back", id="stats_close"),
    Binding("r", "refresh", "Refresh", id="stats_refresh"),
    Binding("M", "app.maintenance", "Maintenance", id="stats_maintenance",
            tooltip="Run maintenance (rebuild the vector index + VACUUM)"),
]

DISCOVER = [
    Binding("escape,q", "close", "Back", id="discover_close"),
    Binding("r", "refresh", "Refresh", id="discover_refresh"),
]

MODAL = [
    Binding("escape", "close", "Close", id="modal_close"),
]

# (section title, bindings) in the order the help screen shows them
SECTIONS: list[tuple[str, list[Binding]]] = [
    ("Everywhere", APP),
    ("Main screen", MAIN),
    ("Query box", QUERY),
    ("Result list", RESULTS),
    ("Facets", FACETS),
    ("Preview", PREVIEW),
    ("File viewer", VIEWER),
    ("Index statistics", STATS),
    ("Discover", DISCOVER),
    ("Dialogs", MODAL),
]

EXTRA_HELP = [
    ("Everywhere", "^p", "Command palette (every action by name)"),
    ("Everywhere", "^q", "Quit"),
    ("Everywhere", "tab / shift+tab", "Move focus"),
    ("Query box", "enter", "Go to the results"),
]

ALL_IDS = {b.id for _, group in SECTIONS for b in group if b.id}
