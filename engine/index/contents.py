"""Index statistics: what is in the index and how healthy its vec0 table is."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.index import re_embed as re_embedding
from engine.index.compiled_parts import CompiledPart, compiled_parts, summary
from engine.index.warnings_seen import known_warnings
from engine.schema import get_meta, has_vec_table, stored_embedder
from engine.storage.db import Connection

# vec0 never reuses a deleted slot; past this share of dead slots a rebuild pays off
BLOAT_SUGGEST_RATIO = 0.2
MIN_DEAD_SLOTS = 512  # below this a rebuild is not worth suggesting


@dataclass
class VecBloat:
    live_rows: int
    total_slots: int
    dead_slots: int
    dead_bytes: int
    slot_fill: float
    suggest_maintenance: bool


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
    bloat: VecBloat | None
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


def vec_bloat(conn: Connection) -> VecBloat | None:
    """Dead vec0 slots: deleted vectors still stored (and scanned) until a rebuild.

    vec0 appends to each partition's newest 1,024-slot chunk and never refills a hole, so every
    cleared validity bit is dead except the not-yet-used tail of each partition's newest chunk.
    """
    import numpy as np  # here: a search reads this module's types, not vec0's slots

    if not has_vec_table(conn):
        return None
    info = stored_embedder(conn)
    rows = conn.execute(
        "SELECT chunk_id, size, partition00, validity FROM chunks_vec_chunks "
        "ORDER BY chunk_id").fetchall()
    newest = {r[2]: r[0] for r in rows}
    live = total = dead = 0
    for chunk_id, size, partition, validity in rows:
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:size]
        used = int(bits.sum())
        live += used
        total += size
        if chunk_id == newest[partition]:
            valid_at = np.flatnonzero(bits)
            size = int(valid_at[-1]) + 1 if len(valid_at) else 0  # the unused tail is not dead
        dead += size - used
    dead_bytes = dead * (info.dim if info else 0) * 4
    fill = live / total if total else 1.0
    return VecBloat(live, total, dead, dead_bytes, round(fill, 4),
                    dead > BLOAT_SUGGEST_RATIO * max(live, 1) and dead >= MIN_DEAD_SLOTS)


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
        bloat=vec_bloat(conn),
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
