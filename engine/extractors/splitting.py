"""Cutting text into pieces of at most a limit: at blank lines (never inside a fenced code
block), then line ends, then spaces, then anywhere. One splitter for long note sections
(engine/extractors/markdown.py) and for any chunk past its bound (engine/extractors/bounds.py).
Linear in the text: a 50 MB line is cut by moving an offset, never by copying what is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SPACE_RUN = re.compile(r"\s*")




def code_lines(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it belongs to a fenced code block (its fence lines included),
    so headings, blank lines, tags and links inside code are left alone."""
    fence: str | None = None
    for line in lines:
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            yield line, True
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            yield line, True
            continue
        yield line, False


def _blocks(lines: list[str]) -> list[str]:
    """Paragraphs: runs of lines separated by blank lines; a fenced block is never cut."""
    blocks: list[str] = []
    current: list[str] = []
    for line, in_code in code_lines(lines):
        if not in_code and not line.strip():
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _hard_split(text: str, limit: int) -> list[str]:
    """Cut an oversize block at line ends, then at spaces, then anywhere. One pass: a long
    line is cut by moving an offset, never by copying what is left of it (a 50 MB line)."""
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        pos, end = 0, len(line)
        if end > limit and current:
            pieces.append(current)
            current = ""
        while end - pos > limit:
            cut = line.rfind(" ", pos, pos + limit + 1)
            cut = cut if cut > pos + limit // 2 else pos + limit
            piece = line[pos:cut].rstrip()
            if piece:
                pieces.append(piece)
            pos = _SPACE_RUN.match(line, cut).end()
        line = line[pos:] if pos else line
        if current and len(current) + 1 + len(line) > limit:
            pieces.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        pieces.append(current)
    return pieces


def split_section(body: str, limit: int) -> list[str]:
    """The section body, or parts of at most ``limit`` chars cut at paragraph boundaries."""
    if len(body) <= limit:
        return [body]
    parts: list[str] = []
    current = ""
    for block in _blocks(body.split("\n")):
        for piece in ([block] if len(block) <= limit else _hard_split(block, limit)):
            if current and len(current) + 2 + len(piece) > limit:
                parts.append(current)
                current = piece
            else:
                current = f"{current}\n\n{piece}" if current else piece
    if current:
        parts.append(current)
    return parts
