"""Index statistics: what is in the index and what its bytes hold."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.display import human_bytes, plural
from engine.index import re_embed as re_embedding
from engine.index.compiled_parts import CompiledPart, compiled_parts, summary
from engine.index.warnings_seen import known_warnings
from engine.schema import get_meta, has_vectors, stored_embedder
from engine.storage.db import Connection

# free pages past this share of the file (and MIN_FREE_BYTES) are worth a VACUUM
FREE_SUGGEST_RATIO = 0.2
MIN_FREE_BYTES = 8 << 20


@dataclass
class StorageHealth:
    """What the index's bytes hold: vectors (stored once, in ``chunks.embedding``), the search
    structure derived from them (engine/vectors/sidecar_file.py) and free pages."""
    vectors: int  # chunks with a vector
    search_bytes: int  # the sidecar's files beside the index
    search_segments: int
    search_masked: int  # sidecar rows masked out (changed or deleted since written)
    search_behind: int  # vector changes since the sidecar was written (read from the rows)
    search_problem: str | None  # why the sidecar is not used (readers build it in memory)
    free_bytes: int  # pages no table uses: deletes leave them, a VACUUM hands them back
    suggest_maintenance: bool

    # what every front door says, line by line
    @property
    def vector_line(self) -> str:
        return f"{plural(self.vectors, 'vector')}, each stored once"

    @property
    def search_line(self) -> str:
        """The search file and how it stands against the rows."""
        if self.search_problem:
            return (f"search file not used ({self.search_problem}): searches read the rows; "
                    "a reindex writes it")
        search = (f"search file {human_bytes(self.search_bytes)} in "
                  f"{plural(self.search_segments, 'segment')}")
        if self.search_masked:
            search += f", {self.search_masked:,} rows masked"
        if self.search_behind:
            search += f", {plural(self.search_behind, 'change')} read from the rows"
        return search

    @property
    def free_line(self) -> str:
        return f"free pages {human_bytes(self.free_bytes)}"


@dataclass
class IndexStatistics:
    db_path: str
    db_bytes: int
    chunks: int
    files: int
    files_with_errors: list[dict]
    pending_embeddings: int
    truncated_embeddings: int
    embedder: str | None
    per_type: dict[str, int]
    per_month: dict[str, int]
    storage: StorageHealth | None
    last_reindex_at: str | None
    last_reindex: dict | None = field(default=None)
    message_vectors: int = 0  # chat windows with a vector per message (engine/vectors/message_vectors.py)
    # files whose chunks a bound split or cut, each {"source_file", "notice"} (kept until the
    # file is read again; engine/extractors/bounds.py)
    cut: list[dict] = field(default_factory=list)
    # files read that hold no chunk (empty, or nothing their source type indexes): kept
    # apart from the errors, never left out without a word
    no_chunk: list[str] = field(default_factory=list)
    sources: list = field(default_factory=list)  # SourceState of each source in place
    # a re-embed staged beside the index's vectors (engine/index/re_embed.py): how far it got
    re_embed: str | None = None
    # the warnings that hold now, each {"source_file", "message", "read"}: the last run's, and
    # those said while reading a file ("read") not read since (engine/index/warnings_seen.py)
    warnings: list[dict] | None = None
    # the compiled parts (engine/csrc/) and whether each serves (engine/index/compiled_parts.py)
    compiled: list[CompiledPart] = field(default_factory=list)

    def _file_warnings(self) -> list[dict]:
        warnings = self.warnings
        if warnings is None:  # an index no run has recorded its warnings in yet
            warnings = (self.last_reindex or {}).get("warnings") or []
        # read, only bounded or holding nothing: listed as cut or no chunk
        listed = {c["source_file"] for c in self.cut} | set(self.no_chunk) | {"(index)"}
        return [w for w in warnings if w.get("source_file") not in listed]

    @property
    def compiled_lines(self) -> list[str]:
        """Which compiled parts serve: one line for those in use, one for each that is not
        (engine/index/compiled_parts.py)."""
        return summary(self.compiled)

    @property
    def not_read(self) -> list[dict]:
        """The files the last reindex did not read, each ``{"source_file", "message"}``:
        refused links, protected names, odd files (the warnings about files that hold now;
        those about a run itself are named "(index)")."""
        return [w for w in self._file_warnings() if not w.get("read")]

    @property
    def read_with_warnings(self) -> list[dict]:
        """Files read and indexed with a warning (a legacy encoding, skipped records)."""
        return [w for w in self._file_warnings() if w.get("read")]

    def to_dict(self) -> dict:
        return {**asdict(self), "not_read": self.not_read,
                "read_with_warnings": self.read_with_warnings,
                "sources": [s.to_dict() for s in self.sources]}


def db_size(db_path: Path) -> int:
    """The index's bytes on disk, WAL included."""
    total = 0
    for suffix in ("", "-wal"):
        p = Path(str(db_path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total


def free_bytes(conn: Connection) -> int:
    """Bytes of pages the file holds that no table uses."""
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    return conn.execute("PRAGMA freelist_count").fetchone()[0] * page


def storage_health(conn: Connection, db_path: Path) -> StorageHealth | None:
    """None before the first vector (no embedder recorded)."""
    from engine.vectors.sidecar_file import sidecar_health  # numpy: only when stats are read

    if not has_vectors(conn):
        return None
    side = sidecar_health(db_path, conn)
    free = free_bytes(conn)
    return StorageHealth(
        vectors=chunk_count(conn) - pending_embeddings(conn),
        search_bytes=side.bytes, search_segments=side.segments, search_masked=side.masked,
        search_behind=side.behind, search_problem=side.problem, free_bytes=free,
        suggest_maintenance=free >= MIN_FREE_BYTES
        and free > FREE_SUGGEST_RATIO * max(db_size(db_path), 1))


def chunk_count(conn: Connection) -> int:
    return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def chunks_per_type(conn: Connection) -> dict[str, int]:
    """Chunks per source type, most first: the one count behind every header and facet."""
    return dict(conn.execute(
        "SELECT source_type, count(*) FROM chunks GROUP BY source_type ORDER BY 2 DESC"))


def pending_embeddings(conn: Connection) -> int:
    """Chunks without a vector yet (the partial index chunks_pending makes this a seek)."""
    return conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]


def index_statistics(conn: Connection, db_path: Path) -> IndexStatistics:
    per_type = chunks_per_type(conn)
    per_month = dict(conn.execute(
        "SELECT substr(content_date, 1, 7), count(*) FROM chunks "
        "WHERE content_date IS NOT NULL GROUP BY 1 ORDER BY 1"))
    errors = [{"source_file": r[0], "error": r[1]} for r in conn.execute(
        "SELECT source_file, error FROM index_state WHERE error IS NOT NULL ORDER BY 1")]
    info = stored_embedder(conn)
    last = get_meta(conn, "last_reindex_stats")
    return IndexStatistics(
        db_path=str(db_path),
        db_bytes=db_size(db_path),
        chunks=sum(per_type.values()),
        files=conn.execute("SELECT count(*) FROM index_state").fetchone()[0],
        files_with_errors=errors,
        pending_embeddings=pending_embeddings(conn),
        truncated_embeddings=conn.execute(
            "SELECT count(*) FROM chunks WHERE embedding_truncated = 1").fetchone()[0],
        embedder=info.describe() if info else None,
        per_type=per_type,
        per_month=per_month,
        storage=storage_health(conn, db_path),
        last_reindex_at=get_meta(conn, "last_reindex_at"),
        last_reindex=json.loads(last) if last else None,
        message_vectors=conn.execute(  # an empty row: every message was refused
            "SELECT count(*) FROM message_vectors WHERE length(vectors) > 0").fetchone()[0],
        cut=[{"source_file": r[0], "notice": r[1]} for r in conn.execute(
            "SELECT source_file, notice FROM index_state WHERE notice IS NOT NULL ORDER BY 1")],
        no_chunk=[r[0] for r in conn.execute(
            "SELECT source_file FROM index_state s WHERE error IS NULL AND NOT EXISTS (SELECT "
            "1 FROM chunks c WHERE c.source_file = s.source_file) ORDER BY 1")],
        re_embed=staged.describe() if (staged := re_embedding.staged(conn)) else None,
        compiled=compiled_parts(conn.rank_extension),
        warnings=None if (known := known_warnings(conn)) is None else [
            {"source_file": w["source_file"], "message": w["message"],
             "read": bool(w.get("read"))} for w in known],
    )
