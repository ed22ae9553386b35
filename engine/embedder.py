"""Embedding providers behind one interface.

An :class:`Embedder` turns texts into L2-normalised float32 vectors. Providers fail with
:class:`EmbeddingError` (``kind`` = ``provider_error``, ``provider_input_rejected``, or
``provider_timeout`` when a search's budget ran out), never with their library's own
exceptions, so the indexer can keep the chunk (pending) and search can fall back to the keyword
arm. Its message is scrubbed of every API key (engine/redact.py) when it is built.
"""

from __future__ import annotations

import importlib.util
import json
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


def _wordllama_dir() -> Path:
    """Where the wordllama wheel keeps its files, found without importing the package (its
    import pulls in pydantic and requests: ~0.35 s of a ~1 s `memlens search`)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the wordllama package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _safetensor(path: Path, key: str) -> np.ndarray:
    """One tensor of a .safetensors file, memory-mapped: an 8-byte little-endian header
    length, a JSON header (dtype, shape, byte offsets) and the raw data. A query touches
    only its tokens' rows instead of converting all 32,000 to float32 (~40 ms)."""
    with path.open("rb") as f:
        size = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(size))[key]
    dtype = np.dtype({"F16": np.float16, "F32": np.float32}[entry["dtype"]]).newbyteorder("<")
    start, end = entry["data_offsets"]
    shape = tuple(entry["shape"])
    if end - start != int(np.prod(shape)) * dtype.itemsize:
        raise ValueError(f"{path.name}: {key} holds {end - start} bytes, not {shape}")
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + size + start, shape=shape)


class _StaticModel:
    """WordLlama inference (wordllama/inference.py, dense, unnormalised): the mean of the
    tokens' rows of the embedding matrix, padded batches of 64 as the library does, so the
    vectors are the library's to the bit (tests/test_embedder_local.py)."""

    def __init__(self, matrix: np.ndarray, tokenizer):
        self.matrix = matrix
        self.tokenizer = tokenizer
        tokenizer.enable_padding()
        tokenizer.no_truncation()

    def embed(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = np.empty((len(texts), self.matrix.shape[1]), dtype=np.float32)
        for i in range(0, len(texts), batch_size):
            encoded = self.tokenizer.encode_batch(texts[i:i + batch_size],
                                                  add_special_tokens=False)
            ids = np.array([e.ids for e in encoded], dtype=np.int32)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            np.clip(ids, 0, self.matrix.shape[0] - 1, out=ids)
            rows = self.matrix[ids].astype(np.float32)
            count = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
            out[i:i + len(encoded)] = np.sum(rows * mask[..., np.newaxis], axis=1,
                                             dtype=np.float32) / count
        return out


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
                from tokenizers import Tokenizer

                # the wheel's own files, read directly: nothing is looked up or downloaded
                where = _wordllama_dir()
                cls._shared = _StaticModel(
                    _safetensor(where / "weights" / "l2_supercat_256.safetensors",
                                "embedding.weight"),
                    Tokenizer.from_file(
                        str(where / "tokenizers" / "l2_supercat_tokenizer_config.json")))
            return cls._shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            vectors = self._load().embed(list(texts))
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
