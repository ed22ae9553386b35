"""The embedder interface every provider implements, and its one error type.

An :class:`Embedder` turns texts into L2-normalised float32 vectors. Providers fail with
:class:`EmbeddingError` (``kind`` = ``provider_error``, ``provider_input_rejected``, or
``provider_timeout`` when a search's budget ran out), never with their library's own
exceptions, so the indexer can keep the chunk (pending) and search can fall back to the keyword
arm. Its message is scrubbed of every API key (engine/embed/redact.py) when it is built. Providers
import this module, never ``engine.embedder`` (which imports them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.embed.redact import scrub
from engine.schema import EmbedderInfo

ERROR_KINDS = ("provider_error", "provider_input_rejected", "provider_timeout")


class EmbeddingError(RuntimeError):
    def __init__(self, kind: str, message: str):
        assert kind in ERROR_KINDS
        self.kind = kind
        super().__init__(scrub(message))


class Embedder:
    provider: str = ""
    model: str = ""
    dim: int = 0
    # a provider behind the network: searches give it a time budget and a circuit breaker
    # (engine/embed/provider_guard.py); in-process models are only as slow as the machine
    remote: bool = False
    # a call has a fixed cost (a round trip, a transformer's set-up): a reindex gathers the
    # chunks of small files into full batches (the pending pass) instead of one call per file
    prefers_full_batches: bool = False

    @property
    def info(self) -> EmbedderInfo:
        return EmbedderInfo(self.provider, self.model, self.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of unit vectors, or raise EmbeddingError."""
        raise NotImplementedError

    def discover_dim(self, patient: bool = False) -> int:
        """The vector size; providers that learn it from their first answer override this
        (``patient``: a reindex's probe, which may wait for retries; a search's may not)."""
        del patient
        return self.dim

    def embed_single(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_query(self, text: str, budget: float) -> np.ndarray:
        """One vector for a search, trying to answer within ``budget`` seconds; remote
        providers override this to stop retrying at the deadline."""
        del budget
        return self.embed_single(text)


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms
