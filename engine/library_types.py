"""What the read facade (:mod:`engine.library`) returns: plain dataclasses, no SQL rows.

Also the one definition of where a chunk sits in its file (:func:`file_order_key`) and the
one parse of a chunk's metadata JSON (:func:`parse_metadata`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.index.contents import IndexStatistics
from engine.scanner import SourceFile
from engine.schema import EmbedderInfo

# one definition of "the index cannot be read" for the engine and its front doors
from engine.storage.db import IndexMissing, IndexUnavailable  # noqa: E402,F401


class ReadRefused(ValueError):
    """A file read the facade refuses (outside the root, not data, too long...): one line,
    naming the path only as the caller gave it (never an absolute path of the machine)."""


def parse_metadata(raw: Any) -> dict[str, Any]:
    """A chunk's metadata as a dict, whatever is stored ({} for NULL or broken JSON)."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def file_order_key(chunk_id: str, metadata: dict[str, Any], rowid: int) -> tuple:
    """Where a chunk sits in its source file: THE order of "the chunk before / after".

    The order the extractor wrote the file in, read off what it recorded: a record's ``line``,
    a markdown ``section`` (then its ``part``), a chat ``window``, else the number in the id's
    suffix (``#c3`` segments of a meeting; ``#summary`` first); then the ``piece`` of a chunk
    its bound split. The rowid only breaks ties:
    it is NOT file order, because a reindex rewrites only the chunks that changed, so an edited
    window gets a new, higher rowid than the windows after it.
    """
    piece = metadata.get("piece")  # a chunk split by its bound (engine/extractors/bounds.py)
    piece = piece if isinstance(piece, int) and not isinstance(piece, bool) else 0
    line = metadata.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        return (line, 0, piece, rowid)
    section = metadata.get("section")
    if isinstance(section, int) and not isinstance(section, bool):
        part = metadata.get("part")
        return (section, part if isinstance(part, int) else 0, piece, rowid)
    window = metadata.get("window")
    if isinstance(window, int) and not isinstance(window, bool):
        return (window, 0, piece, rowid)
    suffix = chunk_id.rsplit("#", 1)[1] if "#" in chunk_id else ""
    suffix = suffix.partition("~")[0]
    if suffix == "summary":
        return (-1, 0, piece, rowid)
    digits = [int(d) for d in re.findall(r"\d+", suffix)[:2]]
    digits += [0] * (2 - len(digits))
    return (digits[0], digits[1], piece, rowid)


@dataclass
class Chunk:
    """One stored chunk (no embedding)."""

    id: str
    source_file: str
    source_type: str
    content: str
    content_date: str | None
    metadata: dict[str, Any]
    embedding_truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "source_file": self.source_file, "source_type": self.source_type,
                "content": self.content, "content_date": self.content_date,
                "metadata": self.metadata, "embedding_truncated": self.embedding_truncated}


@dataclass
class Neighbours:
    """A run of consecutive chunks of one file, in file order, around ``center``."""

    source_file: str
    chunks: list[Chunk]
    center: int  # index into ``chunks`` of the chunk asked about
    first_position: int  # 1-based position in the file of ``chunks[0]``
    total: int  # chunks in the file

    def position(self, i: int) -> int:
        """The 1-based position in the file of ``chunks[i]``."""
        return self.first_position + i


@dataclass
class IndexOverview:
    """What a header shows: whether there is an index, its size, embedder and counts."""

    exists: bool
    db_path: str
    per_type: dict[str, int] = field(default_factory=dict)
    chunks: int = 0
    embedder: str | None = None
    db_bytes: int = 0
    pending_embeddings: int = 0  # chunks without a vector: the semantic arm cannot find them


@dataclass
class RouteCount:
    pattern: str
    source_type: str
    files: int


@dataclass
class PendingFiles:
    """What a reindex would do to the files: read ``new`` and ``changed``, drop ``vanished``."""

    routed: list[SourceFile]  # every file a route claims now
    new: list[SourceFile]  # routed, never indexed
    changed: list[SourceFile]  # indexed, mtime moved since
    vanished: list[str]  # indexed, no longer routed on disk

    @property
    def to_index(self) -> list[SourceFile]:
        """New and changed files, in discovery order (what ``reindex`` reads)."""
        wanted = {f.rel for f in self.new} | {f.rel for f in self.changed}
        return [f for f in self.routed if f.rel in wanted]


@dataclass
class EmbedderMatch:
    """The embedder that built the vectors against the configured one.

    ``state``: ``none_yet`` (no vectors), ``same``, ``same_model`` (the configured provider
    learns its dimension on first use, so only provider and model were compared) or
    ``mismatch`` (semantic search is unavailable until a re-embed).
    """

    stored: EmbedderInfo | None
    configured: EmbedderInfo  # dim 0 when the provider has not said yet
    state: str


@dataclass
class IndexStatus:
    """How fresh the index is, for ``index_status`` and the discover screen."""

    exists: bool
    db_path: str
    transition: str | None  # "reindex" | "re-embed" | "maintenance" while a writer runs
    statistics: IndexStatistics | None = None
    pending: PendingFiles | None = None
    embedder: EmbedderMatch | None = None


@dataclass
class FileText:
    """A data-layer file (or one markdown section of it) as text."""

    rel: str  # root-relative POSIX path
    source_type: str
    text: str  # the whole file, or the section's body
    indexed: bool
    stale: bool  # indexed, and changed (or gone) since
    markdown: bool
    section: int | None = None  # the section shown, when one was asked for
    section_path: list[str] | None = None  # its headings, outermost first ([] for #0)
    outline: list[str] = field(default_factory=list)  # a whole markdown file's section labels
