"""Discover: the routes (pattern → source type → files; a source in place's as ``@vault/**/*.md``,
marked when its folder is missing) and the files waiting to be indexed."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from engine.display import type_label

from .. import keys
from ..messages import DiscoverLoaded
from ..widgets.bars import display_path
from ..widgets.footer import MemlensFooter
from ..widgets.text import one_line, safe
from ..workers import discover_job
from .modals import describe_error
from .sources import MISSING

MAX_PENDING_ROWS = 5000


class DiscoverScreen(Screen[None]):
    BINDINGS = keys.DISCOVER

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble((" discover ", "bold reverse $accent"), " ",
                                      safe(display_path(self.app.config.root), "bold")),
                     id="discover-title")
        with Vertical(id="routes-box", classes="chart-box"):
            yield DataTable(id="routes", cursor_type="row", zebra_stripes=True)
        with Vertical(id="pending-box", classes="chart-box"):
            yield DataTable(id="pending", cursor_type="row", zebra_stripes=True)
        yield Static(id="discover-summary")
        yield MemlensFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#routes-box").border_title = "Routes"
        self.query_one("#pending-box").border_title = "Pending files"
        self.action_refresh()

    def action_refresh(self) -> None:
        self.loaded = False
        config = self.app.config
        self.run_worker(lambda: discover_job(config, self.post_message), thread=True,
                        group="discover", exclusive=True, exit_on_error=False)

    def on_discover_loaded(self, message: DiscoverLoaded) -> None:
        self.loaded = True
        summary = self.query_one("#discover-summary", Static)
        if message.error is not None:
            summary.update(safe(describe_error(message.error), "$text-error"))
            return
        _fill(self.query_one("#routes", DataTable), ("source type", "pattern", "files"),
              [(Text(type_label(source_type)), _pattern(pattern, message.missing),
                Text(f"{count:,}", style="bold" if count else "dim", justify="right"))
               for pattern, source_type, count in message.routes])
        _fill(self.query_one("#pending", DataTable), ("source type", "file"),
              [(Text(type_label(source_type)), Text(one_line(rel)))
               for source_type, rel in message.pending[:MAX_PENDING_ROWS]])
        n = len(message.pending)
        text = (f"{n:,} of {message.total:,} files need indexing — ctrl+r reindexes"
                if n else f"all {message.total:,} routed files are indexed")
        if n > MAX_PENDING_ROWS:
            text += f" (first {MAX_PENDING_ROWS:,} shown)"
        summary.update(Content.styled(" " + text, "$text-warning" if n else "$text-success"))

    def action_close(self) -> None:
        self.dismiss(None)


def _pattern(pattern: str, missing: list[str]) -> Text:
    """A route's pattern; a missing source's says so (its files count 0 while it is)."""
    text = Text(one_line(pattern))
    if any(pattern.startswith(prefix) for prefix in missing):
        text.append(f"  {MISSING}", style="bold yellow")
    return text


def _fill(table: DataTable, labels: tuple[str, ...], rows: list[tuple[Text, ...]]) -> None:
    """Columns as wide as their widest cell: auto-width columns added before their first rows
    keep the width of their label until the next refresh."""
    table.clear(columns=True)
    for i, label in enumerate(labels):
        table.add_column(label, width=max([len(label), *(r[i].cell_len for r in rows)]))
    table.add_rows(rows)
