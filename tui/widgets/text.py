"""Plain text from the data layer, made safe and styled for display.

Everything the engine returns (chunk text, snippets, file names, metadata, error messages) is
data, never markup: it is turned into :class:`~textual.content.Content` built from plain
strings, with styles added as spans by this module. Control characters (ANSI escapes, bells,
carriage returns, bidi overrides) are replaced by visible one-cell stand-ins first, so nothing
read from disk can move the cursor, recolour the screen or reorder text. A line longer than
its place is cut after a whole word, with "…" (``fit_line``, ``WordCut``), never mid-word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len, set_cell_size
from textual.content import Content, Span
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions

from engine.display import (
    fold,  # as the index folds: the highlights match its matches
    one_line,
    plain,
)
from engine.display import human_bytes as human_bytes
from engine.display import shown_path as shown_path

HIGHLIGHT = "bold reverse $accent"  # matched terms


def safe(text: object, style: str = "") -> Content:
    """Content showing ``text`` literally (markup and escapes are not interpreted)."""
    return Content.styled(plain(text), style, strip_control_codes=False) if text else Content("")


EMPHASIS = {"bold": "bold", "em": "italic", "code": "$text-secondary"}  # markdown, shown


def snippet_content(result: Any, style: str = HIGHLIGHT) -> Content:
    """A result's snippet with the engine's spans (engine/retrieval/snippets.py) as styles: its
    highlights (the matched words) and its markdown emphasis (markers already removed)."""
    text = result.snippet or one_line(result.content)
    marks = [(s, e, style) for s, e in getattr(result, "highlights", None) or ()]
    marks += [(s, e, EMPHASIS.get(kind, "")) for s, e, kind in
              getattr(result, "emphasis", None) or ()]
    cuts = sorted({0, len(text), *(b for s, e, _ in marks for b in (s, e) if 0 <= b <= len(text))})
    out: list[str] = []
    where: dict[int, int] = {}  # an engine offset -> its offset in the shown text
    pos = 0
    for a, b in zip(cuts, cuts[1:], strict=False):
        where[a] = pos
        piece = plain(text[a:b], keep_newlines=False)  # a stand-in may be wider than 1
        out.append(piece)
        pos += len(piece)
    where[len(text)] = pos
    spans = [Span(where[s], where[e], st) for s, e, st in marks
             if s in where and e in where and e > s and st]
    return Content("".join(out), spans, strip_control_codes=False)


def _term_pattern(terms: Iterable[str]) -> re.Pattern | None:
    words = []
    for term in terms:
        for word in str(term).split():
            word = fold(word)
            if len(word) >= 2:
                words.append(re.escape(word))
    if not words:
        return None
    words.sort(key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(words) + r")\w*", re.IGNORECASE)


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` folded (lowercase, no diacritics) and, per folded char, its source offset."""
    out, where = [], []
    for i, ch in enumerate(text):
        for f in fold(ch):
            out.append(f)
            where.append(i)
    return "".join(out), where


def highlight_terms(text: str, terms: Sequence[str] | None, style: str = HIGHLIGHT,
                    base_style: str = "") -> Content:
    """Plain ``text`` with each word starting with a query term highlighted (diacritics and
    case ignored, so the porter-stemmed matches of the index are mostly covered)."""
    shown = plain(text)
    content = Content.styled(shown, base_style, strip_control_codes=False) if base_style \
        else Content(shown, strip_control_codes=False)
    pattern = _term_pattern(terms or ())
    if pattern is None or not shown:
        return content
    folded, where = _folded_with_map(shown)
    spans = list(content.spans)
    for m in pattern.finditer(folded):
        if m.end() <= m.start():
            continue
        start = where[m.start()]
        end = where[m.end() - 1] + 1
        spans.append(Span(start, end, style))
    return Content(shown, spans, strip_control_codes=False)


def human_count(n: int) -> str:
    return f"{n:,}"


BAR_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(fraction: float, width: int) -> str:
    """A horizontal bar ``width`` cells wide filled to ``fraction`` with eighth blocks."""
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + (BAR_EIGHTHS[part] if part and full < width else "")
    return s.ljust(width)


ELLIPSIS = "…"
WORD_JOINS = frozenset("-_./,;:!?)]}'\"…—–")


def _word_end(text: str, width: int) -> int | None:
    """The end of the last whole word of ``text`` that fits in ``width`` cells with an
    ellipsis after it (a wide character, as in CJK text, is a word of its own); None when not
    even the first word fits."""
    best, used = None, 0
    for i, ch in enumerate(text):
        used += cell_len(ch)
        if used + cell_len(ELLIPSIS) > width:
            break
        following = text[i + 1] if i + 1 < len(text) else " "
        # a word ends before a space, or where a letter meets punctuation that joins words
        # (maya-chen.md, "2026-10", "Maya,"); a mark such as "▸3×" is kept whole
        if (not ch.isspace() and following.isspace()) or (
                ch.isalnum() and (following in WORD_JOINS or cell_len(ch) > 1)):
            best = i + 1
    return best


def cut_at_word(text: str, width: int) -> str:
    """``text`` in ``width`` cells: whole, or cut after its last whole word, with "…" (only a
    first word longer than the width is cut inside)."""
    if cell_len(text) <= width:
        return text
    end = _word_end(text, width)
    if end is None:
        return set_cell_size(text, max(width - 1, 0)) + ELLIPSIS
    return text[:end] + ELLIPSIS


def fit_line(content: Content, width: int) -> Content:
    """One line of ``content`` in ``width`` cells: whole, or cut after its last whole word with
    "…" (the styles kept). Where no word fits, nothing but the "…"."""
    if content.cell_length <= width:
        return content
    end = _word_end(content.plain, width)
    return content[:end or 0].rstrip() + ELLIPSIS


class WordCut(Content):
    """Content whose lines, drawn narrower than they are, are cut after a whole word with "…"
    (``fit_line``) at the width they are drawn at, resized or not; the text stays whole."""

    @classmethod
    def of(cls, content: Content) -> WordCut:
        return cls(content.plain, list(content.spans), strip_control_codes=False)

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        whole = Content(self.plain, list(self.spans), strip_control_codes=False)
        lines = whole.split("\n", allow_blank=True)
        fitted = Content("\n").join(fit_line(line, width) for line in lines)
        return fitted.render_strips(width, height, style, options)
