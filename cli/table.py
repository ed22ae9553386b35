"""The search results as text: a table sized to the terminal, cut with an ellipsis.

Everything from data goes through engine/display.py's one_line first; the explain lines are
engine/retrieval/explain.py's, as in the app and the MCP page.
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

from engine.display import (
    Snippet,
    explain_lines,
    marked,
    one_line,
    plural,
    repeats_text,
    shown_path,
    type_label,
)


def _cut(text: str, cells: int) -> str:
    out, used = [], 0
    for ch in text:
        used += get_character_cell_size(ch)
        if used > cells:
            break
        out.append(ch)
    return "".join(out)


def _fit(text: str, cells: int, keep_end: bool = False) -> str:
    """``text`` in at most ``cells`` terminal cells, cut with an ellipsis; a path keeps its
    end (the file name)."""
    if cell_len(text) <= cells:
        return text
    if keep_end:
        return "…" + _cut(text[::-1], cells - 1)[::-1]
    return _cut(text, cells - 1) + "…"


def wrap(text: str, width: int, indent: str, more: str) -> list[str]:
    """``text`` over as many lines as it needs: the first starts with ``indent``, the rest with
    ``more``; only a single word wider than a line is cut."""
    lines, line = [], indent
    for word in text.split(" "):
        if line.strip() and cell_len(line) + 1 + cell_len(word) > width:
            lines.append(line)
            line = more
        line += (" " if line.strip() else "") + word
    lines.append(line)
    return [_fit(x, width) for x in lines]


def _header(response, width: int) -> list[str]:
    """What the search did, in parts joined by " | " and wrapped between parts: the count and
    time, how the query was read (a time phrase, a person), arms, confidence, depth."""
    depth = ", ".join(f"{arm} {n}/{d}" for arm, (n, d) in response.arm_depth.items())
    parts = [f"{plural(len(response), 'result')} in "
             f"{response.timings_ms.get('total', 0):.0f} ms"]
    parts += [one_line(x) for x in (response.time, response.person, response.phrases) if x]
    parts += [f"arms: {one_line(response.arms)}", f"confidence: {response.confidence}"]
    parts += [f"depth: {depth}"] if depth else []
    if response.sort == "date" and response.scored:  # the order is not the score's: say so
        parts.append("sorted by date: the best results, newest first")
    parts += [one_line(x) for x in vectors_notes(response)]
    lines = [parts[0]]
    for part in parts[1:]:
        if cell_len(lines[-1]) + 3 + cell_len(part) <= width:
            lines[-1] += " | " + part
        else:
            lines.append(part)
    return [_fit(line, width) for line in lines]


def vectors_notes(response) -> list[str]:
    """The index's vectors searched for another configured embedder, a re-embed's progress."""
    notes = []
    if response.serving_embedder:
        notes.append(f"vectors: {response.serving_embedder} (the configured embedder takes "
                     "over when a re-embed covers the index)")
    if response.re_embed:
        notes.append(response.re_embed)
    return notes


def search_lines(response, width: int, explain: bool) -> list[str]:
    """The results as a table sized to the terminal: rank, score, type, date, path; snippet;
    on a row standing for chunks of the same text, how many and when ("3×: 2026-02-12, …").
    Explain lines wrap rather than lose their end: that end is the number asked for."""
    lines = _header(response, width)
    type_width = min(13, max((cell_len(type_label(r.source_type)) for r in response), default=0))
    date_width = max((len(one_line(r.date_shown or "")) for r in response), default=10)
    for i, r in enumerate(response, 1):
        mark = " [profile]" if r.injected else ""
        # newest first when nothing ranks the page: the date column is the order, no score
        score = (f"{r.score:.4f}" + ("↓" if r.placed else " ")) if response.scored else ""
        head = (f"{i:2}. {score}{' ' if score else ''}"
                f"{_fit(type_label(r.source_type), type_width):{type_width}} "
                f"{one_line(r.date_shown or ''):{max(date_width, 10)}} ")
        room = max(width - cell_len(head) - len(mark), 12)
        lines.append(head + _fit(shown_path(r.source_file), room, keep_end=True) + mark)
        shown = marked(Snippet(r.snippet, list(r.highlights)))  # the matches in «»
        lines.append(_fit(f"    {one_line(shown)}", width))
        if r.repeats:  # the chunks of the same text this row stands for
            lines.append(_fit(f"    {repeats_text(r)}", width))
        if r.placed:  # the score above a lower one: why, in the row itself
            lines += wrap(one_line(f"↓ {r.placed}"), width, "    ", "      ")
        if explain:
            for x in explain_lines(r, response.rrf_k):
                lines += wrap(one_line(f"{x.label}: {x.text}"), width, "    ", "      ")
    return lines
