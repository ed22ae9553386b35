"""Embedding providers behind one interface.

An :class:`Embedder` turns texts into L2-normalised float32 vectors. Providers fail with
:class:`EmbeddingError` (``kind`` = ``provider_error``, ``provider_input_rejected``, or
``provider_timeout`` when a search's budget ran out), never with their library's own
exceptions, so the indexer can keep the chunk (pending) and search can fall back to the keyword
arm. Its message is scrubbed of every API key (engine/redact.py) when it is built.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .config import EmbedderConfig
from .redact import scrub
from .schema import EmbedderInfo

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
    # (engine/provider_guard.py); in-process models are only as slow as the machine
    remote: bool = False

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


class LocalEmbedder(Embedder):
    """WordLlama's 256-d model, whose weights ship inside the PyPI wheel: offline, numpy only."""

    provider = "local"
    model = "wordllama-l2_supercat-256"
    dim = 256
    _shared = None
    _lock = threading.Lock()

    @classmethod
    def _load(cls):
        with cls._lock:
            if cls._shared is None:
                import wordllama
                from wordllama import WordLlama

                # The wheel keeps weights and tokenizer next to the module; without
                # disable_download it would look for a hub cache that does not exist offline.
                cls._shared = WordLlama.load(
                    cache_dir=Path(wordllama.__file__).parent, disable_download=True)
            return cls._shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            model = self._load()
            vectors = model.embed(list(texts), norm=False, batch_size=64)
        except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
            raise EmbeddingError("provider_error", f"local embedder failed: {exc}") from exc
        return normalise(vectors)


def get_embedder(config: EmbedderConfig | None = None, root: Path | None = None) -> Embedder:
    """The configured provider (``local`` unless memlens.toml or $MEMLENS_EMBEDDER say else).

    ``root`` is the data root: the openai providers read ``<root>/secrets/openai.json`` when
    ``$OPENAI_API_KEY`` is not set. Building an embedder never needs the network or the key.
    """
    config = config or EmbedderConfig()
    if config.provider == "local":
        return LocalEmbedder()
    if config.provider in ("openai", "openai-compatible"):
        from .embedder_openai import OpenAIEmbedder

        return OpenAIEmbedder.from_config(config, root)
    if config.provider == "minilm":
        from .embedder_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    raise ValueError(f"unknown embedder provider {config.provider!r}")
