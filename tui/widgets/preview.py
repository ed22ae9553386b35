"""The preview pane: a chunk's full text with highlights, its metadata and its explain block,
or a person's profile card."""

from __future__ import annotations

import json
from typing import Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine.display import explain_lines, plain_summary, plural, repeats_text, type_label
from engine.library import parse_metadata

from .. import keys
from .badges import arms_badge, decay_badge, type_badge
from .text import highlight_terms, one_line, plain, safe, shown_path

LABEL_WIDTH = 11
MAX_META_VALUE = 240


def _label(name: str) -> Content:
    return Content.styled(f"  {name:<{LABEL_WIDTH}}", "bold $text-secondary")


def _line(name: str, *parts: Content | str | tuple[str, str]) -> Content:
    return Content.assemble(_label(name), *parts, strip_control_codes=False)


def _meta_value(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    text = one_line(text)
    return text if len(text) <= MAX_META_VALUE else text[: MAX_META_VALUE - 1] + "…"


EXPLAIN_MODES = ("plain", "exact", "off")  # what x cycles through (the app holds the mode)


def explain_block(result: Any, mode: str, rank: int | None, total: int, rrf_k: int
                  ) -> Content | None:
    """Why this result is here (engine/retrieval/explain.py): in words, or every exact number."""
    if mode == "plain":
        return Content.assemble(
            Content.styled("Why here", "bold underline"), ("  x: exact numbers", "dim"), "\n  ",
            safe(plain_summary(result)), strip_control_codes=False)
    if mode != "exact":
        return None
    lines = [Content.assemble(Content.styled("Explain", "bold underline"),
                              ("  exact numbers · x: off", "dim"))]
    if rank is not None:
        lines.append(_line("score", f"{result.score:.6f}", (f"   rank {rank} of {total}", "dim")))
    for line in explain_lines(result, rrf_k):
        text = safe(line.text, "" if line.applies else "dim")
        if line.label == "found by":
            text = Content.assemble(arms_badge(result.found_by, result.injected), " ", text)
        lines.append(_line(line.label, text))
    if getattr(result, "rerank_score", None) is not None:
        lines.append(_line("rerank", f"{result.rerank_score:.4f}"))
    return Content("\n").join(lines)


def metadata_block(metadata: dict | None) -> Content:
    lines = [Content.styled("Metadata", "bold underline")]
    names = [one_line(k) for k in (metadata or {})]
    width = min(max((len(n) for n in names), default=0), 16)
    for name, value in zip(names, (metadata or {}).values(), strict=True):
        if len(name) > width:
            name = name[: width - 1] + "…"
        lines.append(Content.assemble(
            Content.styled(f"  {name:<{width}}  ", "bold $text-secondary",
                           strip_control_codes=False),
            safe(_meta_value(value)), strip_control_codes=False))
    if len(lines) == 1:
        lines.append(Content.styled("  none", "dim"))
    return Content("\n").join(lines)


def in_range_body(content: str, inside: Any, terms: list[str]) -> Content:
    """A chat window under a date filter opens at its messages inside the dates: those before
    them are one line, those after them dim."""
    parts: list[Content | str] = []
    if inside.before:
        parts += [Content.styled(f"… {plural(inside.before, 'earlier message')} of this window, "
                                 "before the dates (c: the conversation)", "dim italic"), "\n"]
    parts.append(highlight_terms(content[inside.start:inside.end], terms))
    if inside.end < len(content):
        parts.append(highlight_terms(content[inside.end:], terms, base_style="dim"))
    return Content.assemble(*parts, strip_control_codes=False)


def profile_card(person: Any, fallback: str) -> Content:
    """A person from relationships.json as a card (or the injected text when not found)."""
    if person is None:
        return safe(fallback)
    lines = [Content.styled(plain(person.name), "bold $text-accent")]
    if person.aliases:
        lines.append(Content.assemble(("also ", "dim"), safe(", ".join(person.aliases))))
    lines.append(Content(""))
    for label, value in (("relationship", person.relationship), ("context", person.context),
                         ("notes", person.notes)):
        if value:
            lines.append(Content.assemble(_label(label), safe(value)))
    if person.interests:
        lines.append(Content.assemble(_label("interests"), safe(", ".join(person.interests))))
    if person.milestones:
        lines.append(_label("milestones"))
        for m in person.milestones:
            lines.append(Content.assemble("    • ", (plain(m.get("date") or ""), "dim"),
                                          " " if m.get("date") else "", safe(m.get("event"))))
    return Content("\n").join(lines)


class Preview(VerticalScroll, can_focus=True):
    """Shows one chunk (a result, or a neighbour of one) or a profile."""

    BINDINGS = keys.PREVIEW

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.chunk: dict | None = None  # what is shown: id, content, source_file, ...
        self.result: Any | None = None  # the SearchResult when a result is shown
        self.border_title = "Preview"

    def compose(self):
        yield Static(id="pv-title")
        yield Static(id="pv-body")
        yield Static(id="pv-meta")
        yield Static(id="pv-explain")

    def _set(self, title: Content, body: Content, meta: Content | None,
             explain: Content | None) -> None:
        self.query_one("#pv-title", Static).update(title)
        self.query_one("#pv-body", Static).update(body)
        m = self.query_one("#pv-meta", Static)
        m.update(meta or Content(""))
        m.display = meta is not None
        e = self.query_one("#pv-explain", Static)
        e.update(explain or Content(""))
        e.display = explain is not None
        self.scroll_home(animate=False)

    def action_half_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * max(1, self.scrollable_content_region.height // 2),
                             animate=False)

    def show_nothing(self) -> None:
        self.show_message(Content.styled("Nothing selected.", "dim"))

    def show_message(self, message: Content | str) -> None:
        self.chunk = self.result = None
        self.border_subtitle = ""
        self._set(Content(""), message if isinstance(message, Content) else Content(message),
                  None, None)

    def show_result(self, result: Any, *, terms: list[str], explain: str, rank: int,
                    total: int, rrf_k: int, person: Any = None) -> None:
        self.result = result
        self.chunk = {"id": result.id, "content": result.content,
                      "source_file": result.source_file, "source_type": result.source_type,
                      "content_date": result.content_date, "metadata": result.metadata,
                      "injected": result.injected}
        self.border_subtitle = f"result {rank} of {total}"
        title = self._title(self.chunk, result)
        if result.injected:
            body = profile_card(person, result.content)
        elif result.in_range is not None:
            body = in_range_body(result.content, result.in_range, terms)
        else:
            body = highlight_terms(result.content, terms)
        self._set(title, body, metadata_block(result.metadata),
                  explain_block(result, explain, rank, total, rrf_k))

    def show_chunk(self, chunk: dict, *, terms: list[str], position: tuple[int, int] | None,
                   repeat: str | None = None) -> None:
        """A neighbour of a result: same file, no scores; or (``repeat``: "repeat 2 of 3 of
        result 2") a chunk of the same text as a result, folded into its row."""
        chunk = {**chunk, "metadata": parse_metadata(chunk.get("metadata")), "injected": False}
        self.chunk, self.result = chunk, None
        where = f"chunk {position[0]} of {position[1]} in this file" if position else "context"
        self.border_subtitle = repeat or where
        note = Content.styled(
            f"{repeat[0].upper()}{repeat[1:]}: the same text, dates aside (space in the list "
            "folds the repeats, [ and ] step through its file)" if repeat else
            f"Context: {where} ([ and ] step, esc back to the results)", "dim italic")
        self._set(self._title(chunk, None), highlight_terms(chunk["content"], terms),
                  metadata_block(chunk["metadata"]), note)

    @staticmethod
    def _title(chunk: dict, result: Any | None) -> Content:
        """Type, date, age weight and the file; the chunk's place in it (the id's suffix: the
        id repeats the path) on the same line."""
        label = plain(type_label(chunk["source_type"]))
        parts: list[Content | str | tuple[str, str]] = [
            type_badge(chunk["source_type"], len(label), text=label), " ",
            ((result.date_shown if result is not None else chunk.get("content_date"))
             or "undated", "bold"), "  ",
        ]
        if result is not None and result.decay is not None:
            parts += [decay_badge(result.decay), "  "]
        path, chunk_id = chunk["source_file"], chunk["id"]
        parts.append(safe(shown_path(path), "bold $text-primary"))
        if chunk_id.startswith(path):
            parts.append(safe(one_line(chunk_id[len(path):]), "dim"))
        else:
            parts += ["\n", safe(one_line(chunk_id), "dim")]
        inside = result.in_range if result is not None else None
        if inside is not None:
            parts += ["\n", (f"{plural(inside.messages, 'message')} inside the dates: "
                             f"{inside.label}", "$text-accent"),
                      (f"  (window to {chunk.get('content_date')})", "dim")]
        if result is not None and getattr(result, "repeats", None):
            parts += ["\n", (repeats_text(result), "bold $text-accent"),
                      ("  the same text, dates aside (space in the list: each on a row)",
                       "dim")]
        parts.append("\n")
        return Content.assemble(*parts, strip_control_codes=False)
