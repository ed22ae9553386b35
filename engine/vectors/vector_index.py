"""What the semantic arm needs of a vector index: the one surface search code reads through.

The implementation is :class:`engine.vectors.sidecar_scan.SidecarIndex` (the sidecar's files
mapped, or built in memory from ``chunks.embedding``); this declares what searching relies on,
so nothing reaches into its parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from engine.storage.db import Connection


class VectorIndex(Protocol):
    dim: int
    types: list[str]  # the source types its rows hold, in code order

    def __len__(self) -> int:
        """Vectors searchable now."""

    def refresh(self, conn: Connection) -> bool:
        """Follow what the index file committed since the last call; whether anything did."""

    def type_mask(self, source_types) -> np.ndarray | None:
        """Rows of these source types (None: no filter)."""

    def rowid_mask(self, allowed_rowids: np.ndarray) -> np.ndarray:
        """Rows of these chunk rowids."""

    def search(self, query: np.ndarray, k: int, mask: np.ndarray | None = None,
               rescore: int = ...) -> list[tuple[int, float]]:
        """The top ``k`` (rowid, cosine similarity) among the rows ``mask`` allows."""
