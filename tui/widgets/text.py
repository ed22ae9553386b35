"""Plain text from the data layer, made safe and styled for display.

Everything the engine returns (chunk text, snippets, file names, metadata, error messages) is
data, never markup: it is turned into :class:`~textual.content.Content` built from plain
strings, with styles added as spans by this module. Control characters (ANSI escapes, bells,
carriage returns, bidi overrides) are replaced by visible one-cell stand-ins first, so nothing
read from disk can move the cursor, recolour the screen or reorder text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from textual.content import Content, Span

from engine.display import (
    fold,  # as the index folds: the highlights match its matches
    one_line,
    plain,
)
from engine.display import human_bytes as human_bytes

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
