"""A result's snippet: a window of its text around the first matched word, with spans.

The engine hands front doors plain text plus offsets: ``highlights`` (the matched words) and
``emphasis`` (markdown ``**bold**``, ``*em*``, `` `code` ``, shown as styling: the markers
are removed). No marker character travels in the text; each front door renders the spans its
own way (the app as styles, MCP and the CLI as «»).

The window starts a few words before the first match (``LEAD`` characters) unless the match
is within ``2 * LEAD`` of the start: the result list shows as few as ~40 cells of the snippet
line at 120 columns, so a match further in would be cut off. Pure functions, no SQL (tests/search/test_snippets.py).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

WIDTH = 200  # characters of text in a snippet (the fallback head had the same)
LEAD = 20  # characters of context kept before the first match

_EMPHASIS = (  # (kind, pattern): code first, its inside is never emphasis
    ("code", re.compile(r"`([^`\n]+)`")),
    ("bold", re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")),
    ("bold", re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")),
    ("em", re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")),
    ("em", re.compile(r"(?<![\w_])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w_])")),
)


@dataclass(frozen=True)
class Snippet:
    text: str
    highlights: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of matches
    emphasis: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, kind)


def parse_marked(marked: str, open_mark: str, close_mark: str
                 ) -> tuple[str, list[tuple[int, int]]]:
    """Text with matches between ``open_mark`` and ``close_mark`` (FTS5 ``highlight()``) as
    (text, match spans); an unpaired marker is dropped. Split on the markers, not read a
    character at a time: a highlighted chunk is often kilobytes."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    pos, start = 0, None
    for part in _marker_split(open_mark, close_mark).split(marked):
        if part == open_mark:
            start = pos
        elif part == close_mark:
            if start is not None and pos > start:
                spans.append((start, pos))
            start = None
        elif part:
            out.append(part)
            pos += len(part)
    return "".join(out), spans


@functools.lru_cache(maxsize=8)
def _marker_split(open_mark: str, close_mark: str) -> re.Pattern:
    return re.compile(f"({re.escape(open_mark)}|{re.escape(close_mark)})")


def build(text: str, matches: list[tuple[int, int]] | None = None, width: int = WIDTH,
          lead: int = LEAD, start: int = 0) -> Snippet:
    """The snippet of ``text``: whitespace flattened, markdown emphasis turned into spans, a
    window of ``width`` characters starting ``lead`` characters (at a word start) before the
    first of ``matches`` (offsets into ``text``), cut with "…" at either end. Nothing before
    ``start`` is shown (a chat window's first message inside a date filter)."""
    if start:
        matches = [m for m in matches or () if m[0] >= start]
    # only the stretch around the first match is read (a chunk can be many KB): ~1.7 ms per
    # 2,000 characters otherwise, times every row of a 200-row page
    full = len(text)
    first_raw = min((s for s, _ in matches or ()), default=start)
    cut = max(start, first_raw - 8 * lead)
    text = text[cut:first_raw + 2 * width]
    cut_end = cut + len(text) < full
    if not any(pattern.search(text) for _, pattern in _EMPHASIS):
        return _plain(text, [(s - cut, e - cut) for s, e in matches or ()], width, lead,
                      bool(cut), cut_end)
    n = len(text)
    hit = [False] * n
    for s, e in matches or ():
        for i in range(max(s - cut, 0), min(e - cut, n)):
            hit[i] = True
    style: list[str | None] = [None] * n
    drop = [False] * n
    for kind, pattern in _EMPHASIS:
        for m in pattern.finditer(text):
            a, b = m.span()
            inner = range(m.start(1), m.end(1))
            if any(drop[i] or style[i] == "code" for i in range(a, b)):
                continue
            for i in (*range(a, m.start(1)), *range(m.end(1), b)):
                drop[i] = True
            for i in inner:
                style[i] = style[i] or kind
    # the kept characters, whitespace runs flattened to one space
    kept: list[tuple[str, bool, str | None]] = []
    for i, ch in enumerate(text):
        if drop[i]:
            continue
        if ch.isspace():
            if kept and kept[-1][0] != " ":
                kept.append((" ", False, style[i]))
            continue
        kept.append((ch, hit[i], style[i]))
    while kept and kept[-1][0] == " ":
        kept.pop()
    first = next((i for i, k in enumerate(kept) if k[1]), 0)
    start = first - lead if first > 2 * lead else 0  # a match that near the head shows
    if start:  # begin at a word: after the first space in the lead, if there is one
        space = next((i for i in range(start, first) if kept[i][0] == " "), None)
        start = space + 1 if space is not None else start
    end = min(len(kept), start + width)
    if end < len(kept):  # end at a word, if one ends within the window after the match
        space = next((i for i in range(end, first, -1) if kept[i][0] == " "), None)
        end = space if space is not None and space > first else end
    window = kept[start:end]
    prefix = "…" if start or cut else ""
    body = prefix + "".join(k[0] for k in window) + ("…" if end < len(kept) or cut_end else "")
    return Snippet(body, _runs([k[1] for k in window], len(prefix)),
                   [(s, e, kind) for s, e, kind in _kinds([k[2] for k in window], len(prefix))])


_SPACES = re.compile(r"\s+")  # \s is str.isspace in both (Py_UNICODE_ISSPACE)


def _plain(text: str, matches: list[tuple[int, int]], width: int, lead: int, cut: bool,
           cut_end: bool) -> Snippet:
    """What :func:`build` makes of a text with no emphasis markers, a word at a time instead
    of a character at a time (most chunks). Same window, text and highlights."""
    kept: list[str] = []
    words: list[tuple[int, int, int]] = []  # (offset in text, offset in kept, length)
    pos = size = 0
    for m in [*_SPACES.finditer(text), None]:
        a = len(text) if m is None else m.start()
        if a > pos:
            words.append((pos, size, a - pos))
            kept.append(text[pos:a])
            size += a - pos
        if m is not None and size and kept[-1] != " ":
            kept.append(" ")
            size += 1
        pos = len(text) if m is None else m.end()
    flat = "".join(kept).rstrip(" ")
    # each match's non-space characters, in kept offsets; runs that touch are one highlight
    starts = [w[0] for w in words]
    spans = []
    for s, e in matches:
        for w_text, w_kept, n in words[max(0, bisect.bisect_right(starts, s) - 1):
                                       bisect.bisect_left(starts, e)]:
            if max(s, w_text) < min(e, w_text + n):
                spans.append((w_kept + max(s, w_text) - w_text, w_kept + min(e, w_text + n) - w_text))
    spans.sort()
    hits: list[list[int]] = []
    for a, b in spans:
        if hits and hits[-1][1] >= a:
            hits[-1][1] = max(hits[-1][1], b)
        else:
            hits.append([a, b])
    first = hits[0][0] if hits else 0
    start = first - lead if first > 2 * lead else 0
    if start:  # begin at a word: after the first space in the lead, if there is one
        space = flat.find(" ", start, first)
        start = space + 1 if space >= 0 else start
    end = min(len(flat), start + width)
    if end < len(flat):  # end at a word, if one ends within the window after the match
        space = flat.rfind(" ", first + 1, end + 1)
        end = space if space > first else end
    prefix = "…" if start or cut else ""
    body = prefix + flat[start:end] + ("…" if end < len(flat) or cut_end else "")
    shift = len(prefix) - start
    return Snippet(body, [(max(a, start) + shift, min(b, end) + shift) for a, b in hits
                          if a < end and b > start])


def _runs(flags: list[bool], offset: int) -> list[tuple[int, int]]:
    return [(s, e) for s, e, _ in _kinds([True if f else None for f in flags], offset)]


def _kinds(values: list, offset: int) -> list[tuple[int, int, str]]:
    """Runs of equal non-None values as (start, end, value), shifted by ``offset``."""
    out: list[tuple[int, int, str]] = []
    start = None
    for i, v in enumerate([*values, None]):
        if start is not None and v != values[start]:
            out.append((start + offset, i + offset, values[start]))
            start = None
        if start is None and v is not None:
            start = i
    return out


def marked(snippet: Snippet, open_mark: str = "«", close_mark: str = "»") -> str:
    """The snippet's text with each highlight between markers (for text-only front doors)."""
    text, out, pos = snippet.text, [], 0
    for s, e in snippet.highlights:
        out += [text[pos:s], open_mark, text[s:e], close_mark]
        pos = e
    return "".join(out) + text[pos:]
