"""The extractor contract: a file in, Chunks out, problems reported instead of raised.

Extractors stream: they yield chunks one at a time, so the indexer can sub-batch a 50 MB log
with bounded memory. A malformed record is skipped and reported through ``problems``; only a
file that cannot be read at all raises :class:`ExtractError`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple


class ExtractError(Exception):
    """The whole file could not be parsed; the indexer records it and moves on."""


class MessageMark(NamedTuple):
    """Where one message of a chat window sits in its content (engine/dates/message_days.py)."""

    day: str  # "YYYY-MM-DD", the day it was sent (wall clock as written)
    start: int  # where its "[YYYY-MM-DD HH:MM] sender: " line starts
    text_at: int  # where its text starts
    end: int  # where its text ends (a text may hold line breaks)
    minute: str  # "HH:MM", as the content shows it


@dataclass
class Chunk:
    id: str
    source_file: str  # POSIX path relative to the data root
    source_type: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    content_date: str | None = None  # ISO date (YYYY-MM-DD) that drives recency decay
    # the date the content starts on when it spans days before content_date (a chat window
    # over two sessions), else None: date filters match a chunk by its whole span
    first_date: str | None = None
    # a chat window: where each message sits in ``content`` and its day; derived from the
    # content, so no part of the hash
    message_marks: tuple[MessageMark, ...] | None = None

    def __post_init__(self) -> None:
        if not self.content_hash:
            self.content_hash = self.compute_hash(self.content, self.metadata)

    @staticmethod
    def compute_hash(content: str, metadata: dict[str, Any] | None = None) -> str:
        """16-hex-char SHA-256 prefix of what a chunk shows; drives chunk-level change detection."""
        h = hashlib.sha256(content.encode("utf-8", "surrogatepass"))
        if metadata:
            h.update(json.dumps(metadata, sort_keys=True, default=str).encode())
        return h.hexdigest()[:16]


class Problems(list):
    """Non-fatal issues met while extracting one file (line numbers where known); ``cuts``
    are those that say what a bound cut or split (engine/extractors/bounds.py), which the
    index keeps with the file until it is read again."""

    def __init__(self) -> None:
        super().__init__()
        self.cuts: list[str] = []

    def add(self, message: str, line: int | None = None) -> None:
        self.append(f"line {line}: {message}" if line is not None else message)

    def cut(self, message: str) -> None:
        self.add(message)
        self.cuts.append(message)


class BaseExtractor:
    source_type: str = ""
    # an append-only format whose extract() accepts ``resume`` and sets ``resume_point``
    resumable: bool = False

    def extract(self, path: Path, source_file: str, problems: Problems) -> Iterator[Chunk]:
        """Yield the file's chunks in file order. ``source_file`` is the root-relative path."""
        raise NotImplementedError
