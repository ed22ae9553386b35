"""Embedding providers behind one interface (engine/embed/embedder_base.py): the offline local
model here, and :func:`get_embedder`, which picks the configured provider."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.config import EmbedderConfig
from engine.embed.embedder_base import ERROR_KINDS, Embedder, EmbeddingError, normalise
from engine.embed.wordllama_bpe import WordLlamaBPE

__all__ = ["ERROR_KINDS", "Embedder", "EmbeddingError", "LocalEmbedder", "get_embedder",
           "normalise"]


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
    vectors are the library's to the bit (tests/index/test_embedder_local.py).

    Batches are tokenized by the Hugging Face tokenizer (Rust, fast on many texts); one text
    by the pure-Python encoder (engine/embed/wordllama_bpe.py), which gives the same ids and
    loads in half the time. Each is loaded on first use, so a process that embeds
    only queries never imports ``tokenizers``."""

    def __init__(self, matrix: np.ndarray, tokenizer_path: Path):
        self.matrix = matrix
        self._tokenizer_path = tokenizer_path
        self._tokenizer = None
        self._encoder = None
        self._lock = threading.Lock()

    @property
    def tokenizer(self):
        """The Hugging Face tokenizer, padding and not truncating as the library sets it."""
        with self._lock:
            if self._tokenizer is None:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
                tokenizer.enable_padding()
                tokenizer.no_truncation()
                self._tokenizer = tokenizer
            return self._tokenizer

    @property
    def encoder(self) -> WordLlamaBPE:
        with self._lock:
            if self._encoder is None:
                self._encoder = WordLlamaBPE.from_file(self._tokenizer_path)
            return self._encoder

    def embed(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = np.empty((len(texts), self.matrix.shape[1]), dtype=np.float32)
        for i in range(0, len(texts), batch_size):
            encoded = self.tokenizer.encode_batch(texts[i:i + batch_size],
                                                  add_special_tokens=False)
            ids = np.array([e.ids for e in encoded], dtype=np.int32)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            out[i:i + len(encoded)] = self._mean_rows(ids, mask)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """A (1, dim) array: ``embed([text])`` to the bit, without the Hugging Face tokenizer
        unless the text holds an added token ("<s>"...), which only it splits out."""
        encoder = self.encoder
        if encoder.handles(text):
            ids = encoder.encode(text)
        else:
            ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        ids = np.array([ids], dtype=np.int32)
        return self._mean_rows(ids, np.ones(ids.shape, dtype=np.float32))

    def _mean_rows(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The mean of each text's unmasked rows, in float32; ids past the matrix are clipped
        to its last row, as the library does."""
        np.clip(ids, 0, self.matrix.shape[0] - 1, out=ids)
        rows = self.matrix[ids].astype(np.float32)
        count = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
        return np.sum(rows * mask[..., np.newaxis], axis=1, dtype=np.float32) / count


class LocalEmbedder(Embedder):
    """WordLlama's 256-d model, whose weights ship inside the PyPI wheel: offline, numpy only."""

    provider = "local"
    model = "wordllama-l2_supercat-256"
    dim = 256
    _shared = None
    _lock = threading.Lock()

    @classmethod
    def shared_model(cls) -> _StaticModel:
        """The shared WordLlama model (token matrix, tokenizers on first use), once a process."""
        with cls._lock:
            if cls._shared is None:
                # the wheel's own files, read directly: nothing is looked up or downloaded
                where = _wordllama_dir()
                cls._shared = _StaticModel(
                    _safetensor(where / "weights" / "l2_supercat_256.safetensors",
                                "embedding.weight"),
                    where / "tokenizers" / "l2_supercat_tokenizer_config.json")
            return cls._shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``. One text (a search's query) goes through the pure-Python
        encoder, so a query-only process never imports ``tokenizers``; the ids, and so the
        vectors, are the batch path's (tests/index/test_wordllama_bpe.py)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = list(texts)
        try:
            model = self.shared_model()
            vectors = model.embed_one(texts[0]) if len(texts) == 1 else model.embed(texts)
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
        from engine.embed.embedder_openai import OpenAIEmbedder

        return OpenAIEmbedder.from_config(config, root)
    if config.provider == "e5":
        from engine.embed.embedder_e5 import E5Embedder

        return E5Embedder()
    if config.provider == "minilm":
        from engine.embed.embedder_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    raise ValueError(f"unknown embedder provider {config.provider!r}")
