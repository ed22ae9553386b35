"""Plain text from the data layer, made safe and styled for display.

Everything the engine returns (chunk text, snippets, file names, metadata, error messages) is
data, never markup: it is turned into :class:`~textual.content.Content` built from plain
strings, with styles added as spans by this module. Control characters (ANSI escapes, bells,
carriage returns, bidi overrides) are replaced by visible one-cell stand-ins first, so nothing
read from disk can move the cursor, recolour the screen or reorder text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from textual.content import Content, Span

from engine.present import human_bytes as human_bytes  # one size format for every front door
from engine.textsafe import one_line, plain

HIGHLIGHT = "bold reverse $accent"  # matched terms
OPEN_MARK, CLOSE_MARK = "«", "»"


def safe(text: object, style: str = "") -> Content:
    """Content showing ``text`` literally (markup and escapes are not interpreted)."""
    return Content.styled(plain(text), style, strip_control_codes=False) if text else Content("")


def snippet_content(snippet: str, style: str = HIGHLIGHT) -> Content:
    """The engine's snippet with its «…» markers turned into highlight spans (markers removed).

    A marker without its partner (a literal « in the data) is kept as text.
    """
    text = one_line(snippet)
    out: list[str] = []
    spans: list[Span] = []
    pos = 0
    i = 0
    while i < len(text):
        start = text.find(OPEN_MARK, i)
        if start < 0:
            break
        end = text.find(CLOSE_MARK, start + 1)
        inner_open = text.find(OPEN_MARK, start + 1)
        if end < 0 or (0 <= inner_open < end):
            out.append(text[i:start + 1])
            pos += start + 1 - i
            i = start + 1
            continue
        before = text[i:start]
        out.append(before)
        pos += len(before)
        word = text[start + 1:end]
        out.append(word)
        if word:
            spans.append(Span(pos, pos + len(word), style))
        pos += len(word)
        i = end + 1
    out.append(text[i:])
    return Content("".join(out), spans, strip_control_codes=False)


def _term_pattern(terms: Iterable[str]) -> re.Pattern | None:
    words = []
    for term in terms:
        for word in str(term).split():
            word = _fold(word)
            if len(word) >= 2:
                words.append(re.escape(word))
    if not words:
        return None
    words.sort(key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(words) + r")\w*", re.IGNORECASE)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` folded (lowercase, no diacritics) and, per folded char, its source offset."""
    out, where = [], []
    for i, ch in enumerate(text):
        for f in _fold(ch):
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


def human_days(days: float | None) -> str:
    """An age in days as a short phrase: 3 h, 12 d, 5 mo, 2.1 y."""
    if days is None:
        return "undated"
    if days < 1:
        return f"{max(days * 24, 0):.0f} h"
    if days < 60:
        return f"{days:.0f} d"
    if days < 730:
        return f"{days / 30.44:.0f} mo"
    return f"{days / 365.25:.1f} y"


BAR_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(fraction: float, width: int) -> str:
    """A horizontal bar ``width`` cells wide filled to ``fraction`` with eighth blocks."""
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + (BAR_EIGHTHS[part] if part and full < width else "")
    return s.ljust(width)
