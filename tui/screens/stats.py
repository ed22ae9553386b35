"""Index statistics: chunks per type and per month as charts, size, free space, pending, embedder,
and the sources in place."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from engine.display import plural, type_label

from .. import keys
from ..actions import JobKind
from ..messages import StatsLoaded
from ..widgets.badges import type_colour
from ..widgets.bars import display_path
from ..widgets.charts import ColumnChart, HBarChart
from ..widgets.footer import MemlensFooter
from ..widgets.text import bar, human_bytes, plain, safe, shown_path
from ..workers import stats_job
from .modals import describe_error


class StatsScreen(Screen[None]):
    BINDINGS = keys.STATS

    def __init__(self) -> None:
        super().__init__()
        self.stats = None
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble((" index statistics ", "bold reverse $accent"), " ",
                                      safe(display_path(self.app.config.root), "bold")),
                     id="stats-title")
        with VerticalScroll(id="stats-body"):
            yield Static(Content.styled("loading…", "dim"), id="stats-summary")
            yield Static(id="stats-sources")
            with Horizontal(id="stats-charts"):
                with Vertical(classes="chart-box", id="types-box"):
                    yield HBarChart(colour_by_type=True, id="per-type")
                with Vertical(classes="chart-box", id="months-box"):
                    yield ColumnChart(id="per-month")
                    yield Static(id="health")
            yield Static(id="stats-errors")
        yield MemlensFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#types-box").border_title = "Chunks per source type"
        self.query_one("#months-box").border_title = "Chunks per month"
        self.action_refresh()

    def action_refresh(self) -> None:
        self.loaded = False
        config = self.app.config
        self.run_worker(lambda: stats_job(config, self.post_message), thread=True,
                        group="stats", exclusive=True, exit_on_error=False)

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        self.loaded = True
        summary = self.query_one("#stats-summary", Static)
        if message.error is not None:
            summary.update(safe(describe_error(message.error), "$text-warning"))
            return
        st = self.stats = message.stats
        pending_style = "$text-warning" if st.pending_embeddings else ""
        label = "bold $text-secondary"
        rows = [
            Content.assemble(("  database   ", label), safe(display_path_str(st.db_path)),
                             "  ", (human_bytes(st.db_bytes), "bold")),
            Content.assemble(("  embedder   ", label),
                             (plain(st.embedder or "none yet"), "bold"),
                             (f"   ·   message vectors for {st.message_vectors:,} chat windows"
                              if st.message_vectors else "", "dim")),
            *([Content.assemble(("  re-embed   ", label), (plain(st.re_embed), "$text-warning"))]
              if st.re_embed else []),  # staged beside the vectors above, which still serve
            Content.assemble(("  chunks     ", label), (f"{st.chunks:,}", "bold"),
                             f" in {st.files:,} files"),
            Content.assemble(("  pending    ", label),
                             (f"{st.pending_embeddings:,} chunks without a vector",
                              pending_style),
                             (f"   ·   {st.truncated_embeddings:,} truncated", "dim")),
            Content.assemble(("  reindexed  ", label), plain(
                "(hidden in test mode)" if self.app.frozen and st.last_reindex_at
                else local_time(st.last_reindex_at))),
            *(Content.assemble(("  compiled   " if i == 0 else " " * 13, label),
                               (plain(line), "" if i == 0 and any(p.loaded for p in st.compiled)
                                else "$text-warning"))
              for i, line in enumerate(st.compiled_lines)),
        ]
        summary.update(Content("\n").join(rows))
        sources = self.query_one("#stats-sources", Static)
        sources.display = bool(message.sources)
        sources.update(sources_content(message.sources))
        self.query_one("#per-type", HBarChart).set_data(st.per_type)
        self.query_one("#per-month", ColumnChart).set_data(st.per_month)
        self.query_one("#health", Static).update(health_content(st))
        lines = (file_list("Files that failed to parse", "bold $text-error",
                           [(e["source_file"], e["error"]) for e in st.files_with_errors])
                 + file_list("Files not read at the last reindex", "bold $text-warning",
                             [(w["source_file"], w["message"]) for w in st.not_read])
                 + file_list("Files read with a warning", "bold $text-warning",
                             [(w["source_file"], w["message"])
                              for w in st.read_with_warnings])
                 + file_list("Files indexed in part (split or cut to the bounds)",
                             "bold $text-warning",
                             [(c["source_file"], c["notice"]) for c in st.cut])
                 + file_list("Files read that hold nothing to index", "bold $text-warning",
                             [(name, "empty, or nothing its source type indexes")
                              for name in st.no_chunk]))
        self.query_one("#stats-errors", Static).update(Content("\n").join(lines))

    def action_maintenance(self) -> None:
        """VACUUM rewrites the whole file and blocks every writer meanwhile: ask first."""
        from .modals import ConfirmScreen

        def chosen(yes: bool | None) -> None:
            if yes:
                self.app.jobs.start(JobKind.MAINTENANCE)
        self.app.push_screen(ConfirmScreen(
            "Run maintenance?", "Merge the text index, rewrite the vector search file and VACUUM "
            "the database: it rewrites the whole index file and can take minutes on a big index.", "Run it"), chosen)

    def action_close(self) -> None:
        self.dismiss(None)


def file_list(title: str, style: str, rows: list[tuple[str, str]],
              shown: int = 50) -> list[Content]:
    """A titled list of (file, why) lines, the first ``shown`` of them; nothing when empty."""
    if not rows:
        return []
    return [Content.styled(f"{title} ({len(rows)})", style),
            *(Content.assemble("  ", safe(shown_path(path), "bold"), "  ", safe(why, "dim"))
              for path, why in rows[:shown])]


def local_time(stamp: str | None) -> str:
    """A stored UTC timestamp (ISO) in the machine's local time, "2026-12-01 10:55 CET"."""
    if not stamp:
        return "never"
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # written by engine.index.index_file.now(): UTC
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def display_path_str(path: str) -> str:
    from pathlib import Path

    return display_path(Path(path))


def sources_content(sources: list) -> Content:
    """A line per source in place: name, type, files, chunks, folder, and whether it is
    missing; nothing without sources."""
    if not sources:
        return Content("")
    width = max(len(s.name) for s in sources)
    lines = [Content.styled("Sources in place", "bold underline")]
    for s in sources:
        lines.append(Content.assemble(
            f"  {s.name:<{width}}  ",
            (f"{type_label(s.source_type):<14}", type_colour(s.source_type)),
            f"{s.counts:>14}, {plural(s.chunks, 'chunk'):>12}  ",
            safe(display_path(Path(s.path)), "$text-secondary"),
            (f"  {s.state}" if s.state else "", "bold $text-warning")))
    return Content("\n").join(lines)


def health_content(st) -> Content:
    lines = [Content.styled("Vectors and free space", "bold underline")]
    storage = st.storage
    if storage is None:
        lines.append(Content.styled("  no vectors yet", "dim"))
        return Content("\n").join(lines)
    used = max(st.db_bytes - storage.free_bytes, 0)
    share = used / st.db_bytes if st.db_bytes else 1.0
    lines.append(Content.assemble("  used  ", (bar(share, 20), "$text-success" if share > 0.8
                                               else "$text-warning"),
                                  f" {share:.0%} of the file's pages"))
    lines.append(Content(f"  {storage.vector_line}"))
    lines.append(Content(f"  {storage.search_line}"))
    lines.append(Content.styled(f"  {storage.free_line}", "dim"))
    if storage.suggest_maintenance:
        lines.append(Content.styled(
            "  ⚠ many free pages: run maintenance (M here, or F2 → Maintenance) to hand them "
            "back", "bold $text-warning"))
    else:
        lines.append(Content.styled("  ✓ no maintenance needed", "$text-success"))
    return Content("\n").join(lines)
