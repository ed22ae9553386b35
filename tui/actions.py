"""Every action of the app, once: the menu, the command palette, the help screen, the footer
labels and the job titles are all read from ``ACTIONS`` (no Textual here: a plain table).

An action with a key has a binding of the same id in ``tui/keys.py`` (its label and help text
come from here); ``scope`` says who runs it: the app, or the main screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class JobKind(StrEnum):
    """The work that runs as the app's one background job."""

    REINDEX = "reindex"
    FULL = "full"
    RE_EMBED = "re_embed"
    MAINTENANCE = "maintenance"
    MAINTENANCE_NO_VACUUM = "maintenance_no_vacuum"
    IMPORT = "import"

    @property
    def title(self) -> str:
        """The running job's name (the catalogue action that starts it says it)."""
        action = BY_JOB[self]
        return action.job_title or action.title

    @property
    def maintenance(self) -> bool:
        """Rewrites the vector search file (and VACUUMs): needs an index, reopens the searcher."""
        return self in (JobKind.MAINTENANCE, JobKind.MAINTENANCE_NO_VACUUM)

    @property
    def cancellable(self) -> bool:
        # maintenance runs to the end; run_import takes no cancel flag
        return not self.maintenance and self is not JobKind.IMPORT

    @property
    def reopens_searcher(self) -> bool:
        """The vectors changed under the searcher's open index."""
        return self.maintenance or self is JobKind.RE_EMBED


@dataclass(frozen=True)
class Action:
    id: str  # the binding id too, when the action has a key
    action: str  # the Textual action it runs ("reindex", "step(1)")
    title: str  # in the menu and the palette
    help: str  # the palette's and the help screen's line
    label: str = ""  # the footer's short word (default: the title)
    scope: str = "app"  # "app" or "main" (the main screen runs it)
    job: JobKind | None = None
    job_title: str = ""  # the running job's name, when not the title
    menu: bool = False  # listed in the F2 menu
    needs_chunk: bool = False  # only when the preview shows a chunk
    writes_root: bool = False  # changes what the data root holds: never the demo root's

    @property
    def short(self) -> str:
        return self.label or self.title


ACTIONS: tuple[Action, ...] = (
    # index jobs
    Action("reindex", "reindex", "Reindex", "Reindex new and changed files (in the background)",
           job=JobKind.REINDEX, menu=True),
    Action("import", "import_data", "Import…",
           "Import WhatsApp, Slack, mbox… exports, then reindex", label="Import",
           job=JobKind.IMPORT, job_title="Import", menu=True, writes_root=True),
    Action("sources", "sources", "Sources…", "Folders outside the root, indexed in place: "
           "list, add, remove", label="Sources", menu=True, writes_root=True),
    Action("full_rebuild", "full_rebuild", "Full rebuild",
           "Re-read every file (unchanged chunks keep vectors)", job=JobKind.FULL,
           menu=True),
    Action("re_embed", "re_embed", "Re-embed",
           "Embed every chunk again with the configured embedder", job=JobKind.RE_EMBED,
           menu=True),
    Action("maintenance", "maintenance", "Maintenance", "Rewrite the vector search file and VACUUM",
           job=JobKind.MAINTENANCE, job_title="Maintenance (rewrite + VACUUM)", menu=True),
    Action("maintenance_no_vacuum", "maintenance_no_vacuum", "Maintenance (no vacuum)",
           "Rewrite the vector search file only", job=JobKind.MAINTENANCE_NO_VACUUM,
           job_title="Maintenance (rewrite, no VACUUM)", menu=True),
    Action("cancel_job", "cancel_job", "Cancel job",
           "Cancel the running reindex at the next file boundary"),
    # views
    Action("discover", "discover", "Discover",
           "Discover: routes and files waiting to be indexed", menu=True),
    Action("stats", "stats", "Index statistics",
           "Index statistics (charts, size, free space, embedder)", label="Stats", menu=True),
    Action("timeline", "timeline", "Timeline",
           "Timeline: everything dated, day by day, with a calendar",
           menu=True),
    Action("explain", "toggle_explain", "Toggle explain",
           "The preview's explain: words → numbers → off",
           label="Explain", menu=True),
    Action("watch", "toggle_watch", "Toggle watch",
           "Reindex files shortly after they change (on/off)", label="Watch", menu=True),
    Action("theme", "change_theme", "Theme", "Pick a colour theme", menu=True),
    Action("help", "help", "Help", "Every key and its id (remap in memlens.toml)", menu=True),
    Action("menu", "menu", "Menu", "Menu: reindex, re-embed, maintenance, stats, theme…"),
    # the main screen
    Action("facets", "facets", "Facets", "Source-type facets (shown over the results when "
           "narrow)", scope="main"),
    Action("mode", "cycle_mode", "Search mode", "Search mode: hybrid → keyword → semantic",
           label="Mode", scope="main"),
    Action("date_filter", "date_filter", "Date range", "Date range filter", label="Dates",
           scope="main"),
    Action("person_filter", "person_filter", "Person filter",
           "Person filter: only results with or about one person", label="Person",
           scope="main"),
    Action("clear_filters", "clear_filters", "Clear filters",
           "Clear every filter (types, source, dates, person, mode)", scope="main"),
    Action("toggle_preview", "toggle_preview", "Toggle preview", "Show/hide the preview pane",
           label="Preview", scope="main"),
    Action("focus_query", "focus_query", "Go to the query", "Go to the query box",
           label="Query", scope="main"),
    Action("open_file", "open_file", "Open file", "Open the whole source file at the chunk",
           scope="main", needs_chunk=True),
    Action("prev_chunk", "step(-1)", "Previous chunk",
           "Previous chunk of the same file (context)", label="Prev chunk", scope="main",
           needs_chunk=True),
    Action("next_chunk", "step(1)", "Next chunk", "Next chunk of the same file (context)",
           scope="main", needs_chunk=True),
    Action("edit", "edit", "Open in $EDITOR", "Open the file in $EDITOR (the app resumes "
           "after)", label="Editor", scope="main", needs_chunk=True),
    Action("timeline_here", "timeline_here", "Timeline at this date",
           "Open the timeline at the shown result's date", label="Timeline", scope="main",
           needs_chunk=True),
    Action("conversation", "conversation", "Conversation",
           "A chat, meeting or transcript hit inside its conversation",
           label="Conversation", scope="main", needs_chunk=True),
    Action("copy", "copy", "Copy chunk", "Copy the chunk text", label="Copy", scope="main",
           needs_chunk=True),
)

BY_ID = {a.id: a for a in ACTIONS}
BY_JOB = {a.job: a for a in ACTIONS if a.job is not None}
MENU = tuple(a for a in ACTIONS if a.menu)
