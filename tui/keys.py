"""Every key binding of the app, in one place, each with an id.

The ids are what a user remaps in ``memlens.toml``::

    [keys]
    person_filter = "ctrl+y"
    results_down = "j,down,ctrl+e"

(applied with ``App.set_keymap``; the app keeps the remaps it applied, ``key_overrides``, so
the help screen and the menu show the keys that really run). A remap replaces every key of its
binding. :func:`remap_problems` checks the remaps first: every command line stops on one, the
app says it and applies only the others. The help screen is generated from
these lists, so it always shows every key, remapped or not. The actions' labels and help texts
are in ``tui/actions.py``.
"""

from __future__ import annotations

from textual.binding import Binding

from engine.display import close_matches, did_you_mean

from .actions import BY_ID


def act(keys: str, action_id: str, **kw) -> Binding:
    """The binding of a catalogue action: its footer label and help text come from
    ``tui/actions.py``."""
    a = BY_ID[action_id]
    return Binding(keys, a.action, a.short, id=a.id, tooltip=a.help, **kw)


APP = [
    act("f1,question_mark", "help", key_display="F1"),
    act("f2,m", "menu", key_display="F2"),
    act("ctrl+r", "reindex"),
    act("ctrl+o", "import", show=False),
    act("f3", "stats", key_display="F3"),
    act("f4", "discover", show=False, key_display="F4"),
    act("f5", "timeline", show=False, key_display="F5"),
    act("x", "explain", show=False),
    act("f9", "theme", show=False, key_display="F9"),
    act("ctrl+g", "cancel_job", priority=True),
]

MAIN = [
    Binding("escape", "escape", "Back", id="back", show=False,
            tooltip="Back: preview → results → query box → results"),
    act("slash", "focus_query", show=False),
    act("ctrl+f", "facets"),
    act("ctrl+t", "mode"),
    act("ctrl+b,d", "date_filter"),
    act("ctrl+n,p", "person_filter"),
    act("ctrl+l", "clear_filters", show=False),
    act("v", "toggle_preview", show=False),
    act("o", "open_file"),
    act("left_square_bracket", "prev_chunk", key_display="[", show=False),
    act("right_square_bracket", "next_chunk", key_display="]"),
    act("e", "edit", show=False),
    act("y", "copy", show=False),
    act("t", "timeline_here", show=False),
    act("c", "conversation", show=False),
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
    Binding("pageup", "page_up", "Page up", id="results_page_up", show=False),
    Binding("pagedown", "page_down", "Page down", id="results_page_down", show=False),
    Binding("ctrl+u", "half_page(-1)", "Half page up", id="results_half_up", show=False),
    Binding("ctrl+d", "half_page(1)", "Half page down", id="results_half_down", show=False),
    Binding("h", "screen.pane(-1)", "Facets", id="results_left", show=False,
            tooltip="To the facets (when shown)"),
    Binding("l", "screen.pane(1)", "Preview", id="results_right", show=False,
            tooltip="To the preview"),
    Binding("enter", "select", "Preview", id="results_open", tooltip="Go to the preview"),
    Binding("space", "toggle_repeats", "Repeats", id="results_repeats", show=False,
            tooltip="Unfold / fold a ▸3× row's repeats (same text, other dates)"),
]

FACETS = [
    Binding("space", "select", "Toggle", id="facet_toggle",
            tooltip="Check/uncheck this type or source"),
    Binding("j,down", "cursor_down", "Down", id="facet_down", show=False),
    Binding("k,up", "cursor_up", "Up", id="facet_up", show=False),
    Binding("a", "facets_all", "All", id="facet_all",
            tooltip="Check every type, no source: search everything"),
    Binding("n", "facets_none", "None", id="facet_none"),
    Binding("i", "facets_only", "Only this", id="facet_only",
            tooltip="Check only this type, or only this source"),
    Binding("l", "screen.pane(1)", "Results", id="facet_right", show=False,
            tooltip="To the results"),
]

PREVIEW = [
    Binding("j,down", "scroll_down", "Scroll down", id="preview_down", show=False),
    Binding("k,up", "scroll_up", "Scroll up", id="preview_up", show=False),
    Binding("g,home", "scroll_home", "Top", id="preview_top", show=False),
    Binding("G,end", "scroll_end", "Bottom", id="preview_bottom", show=False),
    Binding("pageup", "page_up", "Page up", id="preview_page_up", show=False),
    Binding("pagedown,space", "page_down", "Page down", id="preview_page_down", show=False),
    Binding("ctrl+u", "half_page(-1)", "Half page up", id="preview_half_up", show=False),
    Binding("ctrl+d", "half_page(1)", "Half page down", id="preview_half_down", show=False),
    Binding("h", "screen.pane(-1)", "Results", id="preview_left", show=False,
            tooltip="Back to the results"),
]

VIEWER = [
    Binding("escape,q", "close", "Back", id="viewer_close"),
    Binding("e", "edit", "Editor", id="viewer_edit"),
    Binding("c", "center", "To chunk", id="viewer_center", tooltip="Back to the chunk"),
    Binding("slash", "search", "Search", id="viewer_search", key_display="/",
            tooltip="Search the file (then n / N)"),
    Binding("n", "next_match(1)", "Next match", id="viewer_next", show=False),
    Binding("N", "next_match(-1)", "Previous match", id="viewer_prev", show=False),
    Binding("j", "scroll(1)", "Down", id="viewer_down", show=False,
            tooltip="Scroll down a line"),
    Binding("k", "scroll(-1)", "Up", id="viewer_up", show=False, tooltip="Scroll up a line"),
    Binding("g", "top", "Top", id="viewer_top", show=False, tooltip="The top of the file"),
    Binding("G", "bottom", "Bottom", id="viewer_bottom", show=False,
            tooltip="The end of the file"),
]

TIMELINE = [
    Binding("escape,q", "close", "Back", id="timeline_close"),
    Binding("left_square_bracket,left", "move('day', -1)", "Day", id="prev_day",
            key_display="[", show=False, tooltip="The day before"),
    Binding("right_square_bracket,right", "move('day', 1)", "Day", id="next_day",
            key_display="]", tooltip="The day after ([ the day before)"),
    Binding("left_curly_bracket", "move('week', -1)", "Week", id="prev_week",
            key_display="{", show=False, tooltip="The week before (Monday to Sunday)"),
    Binding("right_curly_bracket", "move('week', 1)", "Week", id="next_week",
            key_display="}", tooltip="The week after ({ the week before)"),
    Binding("less_than_sign", "move('month', -1)", "Month", id="prev_month",
            key_display="<", show=False, tooltip="The month before"),
    Binding("greater_than_sign", "move('month', 1)", "Month", id="next_month",
            key_display=">", tooltip="The month after (< the month before)"),
    Binding("slash,colon", "jump", "Go to", id="timeline_jump", key_display="/",
            tooltip="Go to a date, range or phrase (2026-03, last week…)"),
    Binding("o", "on_this_day", "On this day", id="on_this_day",
            tooltip="This month-day in every earlier year"),
    Binding("s", "source", "Source", id="timeline_source",
            tooltip="All sources, then one source type at a time"),
    Binding("t", "today", "Today", id="timeline_today", show=False, tooltip="Back to today"),
]

LIST = [  # the timeline's day list and the conversation's messages (tui/widgets/vim_list.py)
    Binding("j,down", "cursor_down", "Down", id="list_down", show=False),
    Binding("k,up", "cursor_up", "Up", id="list_up", show=False),
    Binding("g,home", "first", "First", id="list_first", show=False),
    Binding("G,end", "last", "Last", id="list_last", show=False),
    Binding("ctrl+u", "half_page(-1)", "Half page up", id="list_half_up", show=False),
    Binding("ctrl+d", "half_page(1)", "Half page down", id="list_half_down", show=False),
]

CONVERSATION = [
    Binding("escape,q", "close", "Back", id="conv_close"),
    Binding("n", "hit(1)", "Next hit", id="next_hit",
            tooltip="The query's next hit in this conversation"),
    Binding("N", "hit(-1)", "Previous hit", id="prev_hit",
            tooltip="The query's previous hit in this conversation"),
    Binding("c", "center", "To hit", id="conv_center", show=False,
            tooltip="Back to the message opened at"),
]

STATS = [
    Binding("escape,q", "close", "Back", id="stats_close"),
    Binding("r", "refresh", "Refresh", id="stats_refresh"),
    Binding("M", "maintenance", "Maintenance", id="stats_maintenance",
            tooltip="Run maintenance (vector file rewrite + VACUUM), after a yes"),
]

DISCOVER = [
    Binding("escape,q", "close", "Back", id="discover_close"),
    Binding("r", "refresh", "Refresh", id="discover_refresh"),
]

SOURCES = [  # the sources dialog (F2 → Sources…); esc closes it, as every dialog
    Binding("a", "add", "Add", id="sources_add", tooltip="Add a folder, indexed where it lives"),
    Binding("d,delete", "remove", "Remove", id="sources_remove",
            tooltip="Remove the highlighted source (after a yes)"),
    Binding("j,down", "cursor_down", "Down", id="sources_down", show=False),
    Binding("k,up", "cursor_up", "Up", id="sources_up", show=False),
]

MODAL = [
    Binding("escape", "close", "Close", id="modal_close"),
]

CONFIRM = [
    Binding("y", "answer(True)", "Yes", id="confirm_yes", tooltip="Yes: do it"),
    Binding("n", "answer(False)", "No", id="confirm_no", tooltip="No: leave things as they are"),
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
    ("Timeline", TIMELINE),
    ("Conversation", CONVERSATION),
    ("Timeline days and conversation messages", LIST),
    ("Index statistics", STATS),
    ("Discover", DISCOVER),
    ("Sources", SOURCES),
    ("Dialogs", MODAL),
    ("Questions (cancel a job, quit during one, VACUUM)", CONFIRM),
]

EXTRA_HELP = [
    ("Everywhere", "? m x", "Outside the query box (there they are typed)"),
    ("Everywhere", "^p", "Command palette (every action by name)"),
    ("Everywhere", "^q", "Quit"),
    ("Everywhere", "tab / shift+tab", "Move focus"),
    ("Query box", "enter / esc", "Go to the results"),
    ("Timeline", "enter", "Open the item: a conversation, else the file at the chunk"),
    ("Conversation", "pgup pgdn", "Older and newer messages load at either end"),
]

ALL_IDS = {b.id for _, group in SECTIONS for b in group if b.id}
BY_BINDING = {b.id: b for _, group in SECTIONS for b in group if b.id}


def keys_of(binding: Binding, overrides: dict[str, str]) -> list[str]:
    """The keys that run ``binding``: the user's remap from memlens.toml, else its own."""
    raw = overrides.get(binding.id, binding.key) if binding.id else binding.key
    return [k.strip() for k in raw.split(",") if k.strip()]


# -- remaps from memlens.toml, checked before any is applied ---------------------------------

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
# the bindings that are live together: a key of one shadows or takes the same key of another
_ALONGSIDE_MAIN = {"Main screen", "Query box", "Result list", "Facets", "Preview"}


def _is_key(key: str) -> bool:
    """A key Textual can bind: modifiers, then a character or a key name (``f10``,
    ``pagedown``, ``question_mark``)."""
    from textual.keys import Keys, key_to_character

    *mods, name = key.split("+")
    if not name or any(m not in MODIFIERS for m in mods):
        return False
    return len(name) == 1 or name in {k.value for k in Keys} or key_to_character(name) is not None


def _section_of() -> dict[str, str]:
    return {b.id: title for title, group in SECTIONS for b in group if b.id}


def _live_together(a: str, b: str) -> bool:
    """Whether bindings of sections ``a`` and ``b`` can both answer one key press."""
    return (a == b or "Everywhere" in (a, b)
            or (a in _ALONGSIDE_MAIN and b in _ALONGSIDE_MAIN and "Main screen" in (a, b)))


def remap_problems(remaps: dict[str, str]) -> list[str]:
    """What is wrong with the ``[keys]`` remaps, one line each: an id that is no binding (with
    a "did you mean"), a key that is no key, a key another binding already answers to where
    both are live (unless that one is remapped away too)."""
    problems = []
    for binding_id in remaps:
        if binding_id not in ALL_IDS:
            close = close_matches(binding_id, ALL_IDS)
            problems.append(f"[keys] {binding_id} is no binding id"
                            f"{did_you_mean(close, aside=True)}; the help screen (F1) lists them")
    valid = {i: v for i, v in remaps.items() if i in ALL_IDS}
    for binding_id, value in valid.items():
        keys = [k.strip() for k in value.split(",")]
        bad = [k for k in keys if not _is_key(k)]
        if bad:
            what = f"{value!r} is" if len(keys) == 1 else f"{value!r}: {bad[0]!r} is"
            problems.append(f"[keys] {binding_id} = {what} not a key (a character, or a name "
                            "such as f10, ctrl+k, question_mark; several: \"f10,m\")")
    section = _section_of()
    for binding_id, value in valid.items():
        mine = set(keys_of(BY_BINDING[binding_id], valid))
        for other, binding in BY_BINDING.items():
            if other == binding_id or not _live_together(section[binding_id], section[other]):
                continue
            taken = mine & set(keys_of(binding, valid))
            if taken:
                problems.append(f"[keys] {binding_id} = {value!r}: {sorted(taken)[0]} already "
                                f"runs {other} ({binding.description}); remap {other} too, "
                                "or pick another key")
                break
    return problems
