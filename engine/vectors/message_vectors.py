"""A vector per message of a chat window, beside the window's own.

A chat window holds ten messages and its one vector blends them, so a question one message
answers is diluted by the nine others. For an embedder whose calibration gives a
``message_share`` (engine/rank/calibration.py: MiniLM), each chat window also stores a unit vector
per message, and the semantic arm scores the window by

    (1 - share) × sim(window) + share × max over its messages sim(message)

over the KNN's first hits (the window vectors still find the candidates); the messages reach
EDGE into the windows before and after, as passage evidence does for the keyword arm. Measured in
docs/benchmarks.md ("MiniLM: each message's vector beside the window's").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.config import Config
from engine.rank.calibration import calibration_for
from engine.retrieval.passages import PASSAGE, WINDOW_ID, message_starts, window_around
from engine.schema_migrations import MESSAGES_DONE_KEY
from engine.storage.db import Connection

if TYPE_CHECKING:  # numpy loads with the vectors; a keyword search reads only the share
    import numpy as np

EDGE = PASSAGE // 2  # messages a neighbouring window lends: as passage evidence's reach

# set when a backfill pass finishes; the index's own writes keep it true afterwards
META_KEY = MESSAGES_DONE_KEY


def message_share(config: Config, provider: str | None = None) -> float:
    """The share of a chat window's similarity that comes from its best message: the config's
    ``[search] message_share``, else the calibration of ``provider`` (default: the configured
    embedder's). 0: a reindex stores no message vectors and a search reads none."""
    if config.message_share is not None:
        return config.message_share
    return calibration_for(provider or config.embedder.provider).message_share


def mix_text(share: float) -> str:
    """The response header's note on it ("" when message vectors are not used)."""
    if share <= 0:
        return ""
    return (f"; chat windows: sim = {1 - share:.2f} × window + {share:.2f} × best message of "
            f"its own and the {EDGE} either side")


def message_texts(chunk_id: str, content: str) -> list[str] | None:
    """What each message of a chat window is embedded from, as its window's vector is made
    (engine/vectors/message_vectors.py); None when the chunk is not a chat window."""
    if WINDOW_ID.match(chunk_id) is None:
        return None
    starts = message_starts(content)
    if not starts:
        return None
    ends = [*starts[1:], len(content)]
    texts = (semantic_text(content[a:b]).strip() for a, b in zip(starts, ends, strict=True))
    return [t for t in texts if t]


def pack(vectors: Sequence[np.ndarray]) -> bytes:
    """Unit rows as float16 (b"" when the window has none: nothing to score, nothing to redo)."""
    if not vectors:
        return b""
    import numpy as np

    m = np.asarray(vectors, dtype=np.float32)
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    return m.astype(np.float16).tobytes()


def unpack(blob: bytes, dim: int) -> np.ndarray | None:
    """The rows of a packed blob (None when empty, not of this dimension, or not a blob: a
    BLOB column still holds whatever text a hand edit put there)."""
    if not isinstance(blob, bytes) or not blob or len(blob) % (2 * dim):
        return None
    import numpy as np

    return np.frombuffer(blob, dtype=np.float16).reshape(-1, dim)


def store(conn: Connection, rows: Sequence[tuple[int, bytes]]) -> None:
    """Write (chunk rowid, packed vectors) in the caller's transaction."""
    conn.executemany(
        "INSERT OR REPLACE INTO message_vectors(chunk_rowid, vectors) VALUES (?, ?)", rows)


@dataclass
class Rescored:
    hits: list[tuple[int, float]]  # (rowid, similarity), best first
    share: float = 0.0  # of the best message's similarity
    # rowid -> (the window's similarity, its best message's), for the windows that were mixed
    parts: dict[int, tuple[float, float]] = field(default_factory=dict)


def rescore(conn: Connection, hits: list[tuple[int, float]], query_vec: np.ndarray,
            share: float) -> Rescored:
    """The KNN's hits re-ordered by the mixed similarity (module docstring); a hit without
    message vectors (not a chat window) keeps its own. A window's best message may also be
    one of the EDGE messages next to it in the windows before and after: a question asked at
    the end of one window is often answered at the start of the next (engine/retrieval/passages.py
    reaches as far for the keyword arm)."""
    if share <= 0 or not hits:
        return Rescored(hits, share)
    import numpy as np

    q = np.asarray(query_vec, dtype=np.float32).ravel()
    q = q / (np.linalg.norm(q) or 1.0)
    ids = dict(_select(conn, "SELECT rowid, id FROM chunks WHERE rowid IN ({})",
                       [h[0] for h in hits]))
    around = {rowid: window_around(cid) for rowid, cid in ids.items() if WINDOW_ID.match(cid)}
    rowid_of = {cid: rowid for rowid, cid in ids.items()}
    missing = sorted({n for ns in around.values() for n in ns if n} - rowid_of.keys())
    rowid_of.update(_select(conn, "SELECT id, rowid FROM chunks WHERE id IN ({})", missing))
    sims = _message_sims(conn, sorted(set(rowid_of.values())), q)
    best: dict[int, float] = {}
    for rowid, (before, after) in around.items():
        if rowid not in sims:
            continue  # no message vectors: the window keeps its own similarity
        none = np.empty(0, dtype=np.float32)
        prev = sims.get(rowid_of.get(before), none) if before else none
        nxt = sims.get(rowid_of.get(after), none)
        near = np.concatenate([prev[len(prev) - min(EDGE, len(prev)):], sims[rowid],
                               nxt[:EDGE]])
        near = near[np.isfinite(near)]  # a provider's NaN row would make the window NaN
        if near.size:
            best[rowid] = float(near.max())
    if not best:
        return Rescored(hits, share)
    out = Rescored([], share)
    for rowid, sim in hits:
        if rowid in best:
            out.parts[rowid] = (sim, best[rowid])
            sim = (1 - share) * sim + share * best[rowid]
        out.hits.append((rowid, sim))
    out.hits.sort(key=lambda h: -h[1])  # stable: ties keep the KNN's order
    return out


def _message_sims(conn: Connection, rowids: list[int], q: np.ndarray) -> dict[int, np.ndarray]:
    """Rowid -> its messages' similarities to ``q``, in message order (windows with none left
    out)."""
    found: list[tuple[int, np.ndarray]] = []
    for rowid, blob in _select(
            conn, "SELECT chunk_rowid, vectors FROM message_vectors WHERE chunk_rowid IN ({})",
            rowids):
        rows = unpack(blob, len(q))
        if rows is not None:
            found.append((rowid, rows))
    if not found:
        return {}
    # one product for every window's rows: ~300 small ones cost more than the reads
    import numpy as np

    sims = np.concatenate([rows for _, rows in found]).astype(np.float32) @ q
    ends = np.cumsum([len(rows) for _, rows in found])
    return {rowid: part for (rowid, _), part in zip(found, np.split(sims, ends[:-1]),
                                                    strict=True)}


def _select(conn: Connection, sql: str, keys: Sequence) -> list[tuple]:
    """``sql``'s rows for ``keys`` put into its ``IN ({})``, 500 at a time."""
    out: list[tuple] = []
    for start in range(0, len(keys), 500):
        part = list(keys[start:start + 500])
        out += conn.execute(sql.format(",".join("?" * len(part))), part).fetchall()
    return out


# -- what the semantic arm embeds --------------------------------------------------------------

# What the semantic arm embeds for a chunk: its content without line-leading timestamps.
#
# Chat windows and transcripts begin every line with a time ("[2023-05-08 13:56] Name: ...",
# "[04:12] ..."). Those tokens carry no meaning a query can match, and an embedder spends part
# of its vector (and of a transformer's token window) on them: on LoCoMo-dev's chat windows the
# semantic arm's R@5 rose 0.508 -> 0.563 (MiniLM) and 0.594 -> 0.603 (WordLlama) without them
# (docs/benchmarks.md). The keyword arm and the user still see the content as written.

# "[YYYY-MM-DD HH:MM] " (engine/extractors/common.fmt_minute) or "[mm:ss] " / "[h:mm:ss] "
# (fmt_clock) at the start of a line
_LEADING_TIME = re.compile(
    r"^\[(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}|\d{1,2}:\d{2}(?::\d{2})?)\] ", re.MULTILINE)


def semantic_text(content: str) -> str:
    """The text a chunk's vector is made from."""
    return _LEADING_TIME.sub("", content)
