"""What the result pane shows when there are no rows: idle, no index, nothing found, no type
checked, a failed search."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from .text import human_count, one_line, safe

KEY = "bold $text-accent"


def quoted(query: str) -> str:
    """The query in quotes, unless it is one quoted phrase already (no “"pecan pie"”)."""
    if len(query) > 1 and query[0] == query[-1] == '"' and '"' not in query[1:-1]:
        return f"“{query[1:-1]}”"
    return f"“{query}”"


class EmptyState(Static):
    """One message in place of the result list (the screen shows one or the other)."""

    def idle(self, chunks: int | None) -> None:
        count = f"{human_count(chunks)} chunks" if chunks is not None else "your memory"
        self.update(Content.assemble(
            ("Type to search ", "bold"), (count, "bold"), (".", "bold"), "\n\n",
            "Keyword (BM25) and semantic search run together and are fused; every result "
            "says why it is here.\n\n",
            ("enter", KEY), " / ", ("tab", KEY), " go to the results  ",
            ("↑ ↓", KEY), " query history\n",
            ("ctrl+f", KEY), " facets  ", ("ctrl+t", KEY), " mode  ",
            ("ctrl+b", KEY), " dates  ", ("ctrl+n", KEY), " person\n",
            ("F1", KEY), " every key  ", ("F2", KEY), " menu  ",
            ("ctrl+p", KEY), " commands"))

    def no_index(self, root: str, db_path: str, can_import: bool) -> None:
        """What to do first; the import is suggested only where it is not refused (the demo
        root takes none)."""
        then: list[Content | str | tuple[str, str]] = [("F4", KEY), " shows what will be indexed"]
        if can_import:
            then += [", ", ("ctrl+o", KEY), " imports an export (WhatsApp, Slack, mbox…)"]
        self.update(Content.assemble(
            ("No index yet.", "bold $text-warning"), "\n\n",
            "memlens has not indexed ", safe(root, "bold"),
            " yet (the index goes to ", safe(db_path, "dim"), ").\n\n",
            "Press ", ("ctrl+r", KEY), " to build it now (or ",
            ("F2", KEY), " → Reindex). You can keep typing while it runs; ", *then, "."))

    def no_results(self, request: Any, active_filters: list[str], has_index: bool) -> None:
        lines: list[Content | str | tuple[str, str]] = [
            ("Nothing found for ", "bold"), safe(quoted(one_line(request.query)), "bold"),
            "\n\n", "Try:\n"]
        if active_filters:
            lines += ["  • ", ("ctrl+l", KEY), " clear the filters (",
                      safe(", ".join(active_filters)), ")\n"]
        if request.mode != "keyword":
            lines += ["  • ", ("ctrl+t", KEY),
                      " switch mode (keyword mode matches exact words)\n"]
        else:
            lines += ["  • ", ("ctrl+t", KEY),
                      " switch to hybrid or semantic mode (finds related wording)\n"]
        lines += ["  • fewer or other words; a \"quoted phrase\" must occur as written\n"]
        if not has_index:
            lines += ["  • ", ("ctrl+r", KEY), " build the index first\n"]
        self.update(Content.assemble(*lines))

    def no_types(self) -> None:
        self.update(Content.assemble(
            ("No source type is checked.", "bold"), "\n\n",
            "Press ctrl+f to go to the facets, then ", ("a", KEY), " to check them all."))

    def failed(self, message: str) -> None:
        self.update(Content.assemble(("Search failed", "bold $text-error"), "\n\n",
                                     safe(message)))
