"""Reading a few lines anywhere in a large append-only log without loading it.

The indexer records each message window's ``lines`` ([first, last] physical line numbers,
docs/data-layer.md) and, in ``index_state.resume``, the byte offset of the last window; it
does not record a byte offset per window. So a line number is turned into a byte offset by
counting newlines in 1 MiB blocks from the nearest known point, and every block boundary
passed becomes a known point (kept per file while its size and mtime stay the same): the first
open in the middle of an 84 MB log reads ~42 MB once (memchr-speed ``bytes.count``), later
opens and pages in that file start from a nearby point. Lines are then read forwards with
``readline`` and backwards in 64 KiB blocks, a bounded number each way.

Measured on a generated 540k-message, 82 MB telegram log (2 shared cores): opening the middle
window with 20 messages each side takes 25-30 ms in a fresh process, ~50 ms with the file
evicted from the page cache, 0.7 ms when reopened; a page of 40 messages back, 0.4 ms; the last
window, 1 ms (it starts at the indexer's resume point).
"""

from __future__ import annotations

import bisect
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

BLOCK = 1 << 20
BACK_BLOCK = 1 << 16
MAX_LINE_BYTES = 4 << 20  # a longer "line" is no message; reading stops there


@dataclass
class _Points:
    """Known (line number, byte offset of that line's start) pairs of one file version."""

    stamp: tuple[int, int]
    lines: list[int] = field(default_factory=lambda: [1])
    offsets: list[int] = field(default_factory=lambda: [0])

    def add(self, line: int, offset: int) -> None:
        i = bisect.bisect_left(self.lines, line)
        if i == len(self.lines) or self.lines[i] != line:
            self.lines.insert(i, line)
            self.offsets.insert(i, offset)

    def nearest(self, line: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.lines, line) - 1
        return self.lines[i], self.offsets[i]


_POINTS: dict[Path, _Points] = {}
_LOCK = threading.Lock()


def _stamp(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _points(path: Path) -> _Points:
    stamp = _stamp(path)
    with _LOCK:
        known = _POINTS.get(path)
        if known is None or known.stamp != stamp:
            known = _POINTS[path] = _Points(stamp)
        return known


def remember(path: Path, line: int, offset: int) -> None:
    """Record a known line start (e.g. the indexer's resume point for an unchanged file)."""
    _points(path).add(line, offset)


def offset_of_line(path: Path, line: int) -> int | None:
    """The byte offset where 1-based ``line`` starts; None when the file has fewer lines."""
    points = _points(path)
    at_line, offset = points.nearest(line)
    if at_line == line:
        return offset
    with path.open("rb") as fh:
        fh.seek(offset)
        while True:
            block = fh.read(BLOCK)
            if not block:
                return None
            newlines = block.count(b"\n")
            if at_line + newlines >= line:
                pos = -1
                for _ in range(line - at_line):
                    pos = block.index(b"\n", pos + 1)
                points.add(line, offset + pos + 1)
                return offset + pos + 1
            last = block.rindex(b"\n") if newlines else -1
            at_line += newlines
            if newlines:
                points.add(at_line, offset + last + 1)
            offset += len(block)


def lines_after(path: Path, offset: int, line: int) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, raw line without its newline) from ``offset`` on."""
    with path.open("rb") as fh:
        fh.seek(offset)
        while True:
            raw = fh.readline(MAX_LINE_BYTES)
            if not raw:
                return
            yield line, offset, raw.rstrip(b"\r\n")
            offset += len(raw)
            line += 1


def lines_before(path: Path, offset: int, line: int) -> Iterator[tuple[int, int, bytes]]:
    """The lines before the one starting at ``offset`` (numbered ``line``), nearest first."""
    if offset <= 0:
        return
    with path.open("rb") as fh:
        start, data = offset, b""  # data: bytes from ``start``; data[:end] not yet yielded
        end = 0
        while True:
            # data[:end] ends with the newline of the line to yield next
            cut = data.rfind(b"\n", 0, end - 1) if end else -1
            if cut < 0 and start > 0:
                if end > MAX_LINE_BYTES:
                    return
                earlier = max(0, start - BACK_BLOCK)
                fh.seek(earlier)
                block = fh.read(start - earlier)
                data, end, start = block + data[:end], len(block) + end, earlier
                continue
            if end == 0:
                return
            line -= 1
            yield line, start + cut + 1, data[cut + 1:end - 1].rstrip(b"\r")
            end = cut + 1
