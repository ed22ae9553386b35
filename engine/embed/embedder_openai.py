"""The ``openai`` and ``openai-compatible`` embedders, on the official ``openai`` SDK.

One ``openai.OpenAI`` client (``base_url``, ``timeout``, ``max_retries``) serves OpenAI itself
and any server that speaks its embeddings API (Ollama, llama.cpp, vLLM, ...).

- Texts go in batches of ``batch_size`` (50), each cut to 20,000 characters first, so the
  provider is safe even when a caller forgot to truncate. ``encoding_format`` is always
  ``float``: the SDK's default (base64) is not understood by every compatible server.
- Retries are the SDK's: 408, 409, 429, 5xx, connection errors and timeouts, with exponential
  backoff and ``Retry-After`` honoured (``max_retries + 1`` attempts). What is left when they
  are used up is mapped to ``EmbeddingError``: 400/413/422 mean the provider refused the input
  (``provider_input_rejected``, so the indexer can isolate the offending text), the rest are
  ``provider_error``; a malformed answer (not JSON, wrong shape, count or dimension) too.
- A search's query embedding (:meth:`embed_query`) is one attempt within its budget; the budget
  and the circuit breaker around it live in engine/embed/provider_guard.py, and :meth:`discover_dim`
  goes through them too, so a search never waits on a dimension probe's retries.
- ``openai`` is imported on first use (it takes ~0.4 s), not with this module.
- The API key comes from ``$OPENAI_API_KEY``, else ``<root>/secrets/openai.json``
  (engine/embed/openai_key.py: refused there when its form cannot be sent). It is never put in an
  exception message, a repr or a log line: every message is scrubbed (engine/embed/redact.py), and
  auth failures never echo the server's text (OpenAI's own 401 message quotes part of the key).
  Without a key (a local compatible server) no ``Authorization`` header is sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import numpy as np

from engine.config import MAX_EMBED_CHARS, QUERY_TIMEOUT, ConfigError, EmbedderConfig
from engine.embed.embedder_base import Embedder, EmbeddingError, normalise
from engine.embed.openai_key import SECRETS_RELATIVE_PATH, Secret, read_api_key, unusable
from engine.embed.provider_guard import provider_failures, query_vector
from engine.embed.redact import scrub

if TYPE_CHECKING:
    import openai

ZERO_NORM = 1e-6  # an embedding this short has no direction

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "text-embedding-3-small"
# native output sizes of OpenAI's embedding models (used when `dimensions` is not configured)
OPENAI_MODEL_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
DEFAULT_BATCH_SIZE = 50
# the SDK wants a key; with none, this stands in and no Authorization header is sent
NO_KEY_PLACEHOLDER = "no-key"

_INPUT_REJECTED_STATUS = frozenset({400, 413, 422})
_AUTH_STATUS = frozenset({401, 403})


class OpenAIEmbedder(Embedder):
    """Embeddings from OpenAI or any OpenAI-compatible server.

    Construction never fails for a missing key (status screens can still show the provider);
    :meth:`embed` then raises ``EmbeddingError("provider_error", ...)``. ``dim`` is 0 for an
    ``openai-compatible`` model without configured ``dimensions`` until the first answer fixes
    it (:meth:`discover_dim` asks for it explicitly).
    """

    remote = True
    prefers_full_batches = True  # a round trip a call: one request per small file is slow

    def __init__(
        self,
        provider: str = "openai",
        model: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_chars: int = MAX_EMBED_CHARS,
        query_timeout: float = QUERY_TIMEOUT,
        key_source: str | None = None,
        key_problem: str | None = None,
        missing_key_hint: str = "<root>/secrets/openai.json",
    ):
        if provider not in ("openai", "openai-compatible"):
            raise ConfigError(f"OpenAIEmbedder serves openai or openai-compatible, not {provider!r}")
        if provider == "openai-compatible":
            if not base_url:
                raise ConfigError(
                    "the openai-compatible embedder needs [embedder] base_url in memlens.toml "
                    "(e.g. http://localhost:11434/v1 for Ollama)")
            if not model:
                raise ConfigError(
                    "the openai-compatible embedder needs [embedder] model in memlens.toml "
                    "(e.g. nomic-embed-text)")
        if dimensions is not None and dimensions <= 0:
            raise ConfigError(f"[embedder] dimensions must be positive, not {dimensions}")
        if batch_size < 1:
            raise ConfigError(f"embedding batch size must be at least 1, not {batch_size}")

        self.provider = provider
        self.model = model or OPENAI_DEFAULT_MODEL
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self.dimensions = dimensions
        if dimensions is not None:
            self.dim = dimensions
        elif provider == "openai":
            self.dim = OPENAI_MODEL_DIMS.get(self.model, 0)
        else:
            self.dim = 0  # discovered from the first response, then fixed
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.query_timeout = query_timeout
        if api_key and (problem := unusable(api_key, key_source or "api_key")):
            key_problem, key_source, api_key = problem, key_source or "api_key", None
        self._api_key = Secret(api_key) if api_key else None
        # set with no key when the key found there was unusable (then embedding is refused)
        self.key_source = key_source if (api_key or key_problem) else None
        self.key_problem = key_problem
        self._missing_key_hint = missing_key_hint
        self._clients: dict[str, openai.OpenAI] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: EmbedderConfig, root: Path | None = None,
                    **kwargs) -> OpenAIEmbedder:
        key, source, problem = read_api_key(root)
        hint = str(Path(root) / SECRETS_RELATIVE_PATH) if root is not None else \
            "<root>/secrets/openai.json"
        return cls(
            provider=config.provider,
            model=config.model,
            base_url=config.base_url,
            dimensions=config.dimensions,
            api_key=key,
            timeout=config.timeout,
            max_retries=config.max_retries,
            query_timeout=config.query_timeout,
            key_source=source,
            key_problem=problem,
            missing_key_hint=hint,
            **kwargs,
        )

    # -- public ---------------------------------------------------------------------------

    @property
    def has_api_key(self) -> bool:
        return self._api_key is not None

    def __repr__(self) -> str:
        key = f"set ({self.key_source})" if self._api_key else "missing"
        return (f"OpenAIEmbedder(provider={self.provider!r}, model={self.model!r}, "
                f"base_url={self.base_url!r}, dim={self.dim}, api_key={key})")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._check_usable()
        texts = list(texts)
        with provider_failures(self.provider):
            parts = [self._embed_batch(texts[i:i + self.batch_size], query=False)
                     for i in range(0, len(texts), self.batch_size)]
        return normalise(np.concatenate(parts, axis=0))

    def embed_query(self, text: str, budget: float) -> np.ndarray:
        """One vector in one attempt of at most ``budget`` seconds: a retry's backoff would
        eat the budget, and the breaker (engine/embed/provider_guard.py) decides when to ask again."""
        self._check_usable()
        with provider_failures(self.provider):
            vectors = self._embed_batch([text], query=True, timeout=min(self.timeout, budget))
        return normalise(vectors)[0]

    def discover_dim(self, patient: bool = False) -> int:
        """The vector size, asking the server with one tiny input if it is not known yet.

        The probe is a search's (one attempt within ``query_timeout``, behind the circuit
        breaker): a searcher warming up must not wait on minutes of retries. ``patient=True``
        asks with the full retries instead (a reindex can afford them).
        """
        if self.dim == 0:
            if patient:
                self.embed(["dimension probe"])
            else:
                query_vector(self, "dimension probe", self.query_timeout)
        return self.dim

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if urlsplit(self.base_url).scheme not in ("http", "https"):
            raise EmbeddingError("provider_error", f"{self.provider} base_url {self.base_url!r} "
                                 "is not an http(s) URL")
        if self._api_key is not None:
            return
        if self.key_source is not None:  # a key was found but is unusable
            raise EmbeddingError("provider_error", str(self.key_problem))
        if self.provider == "openai":
            detail = f" ({self.key_problem})" if self.key_problem else ""
            raise EmbeddingError(
                "provider_error",
                "no OpenAI API key: set $OPENAI_API_KEY or write "
                f"{self._missing_key_hint}{detail}")

    def _client(self, query: bool) -> openai.OpenAI:
        """The SDK client; a search's copy makes a single attempt (same connection pool)."""
        import openai

        name = "query" if query else "index"
        with self._lock:
            client = self._clients.get(name)
            if client is None:
                base = self._clients.get("index")
                if base is None:
                    key = self._api_key.reveal() if self._api_key else NO_KEY_PLACEHOLDER
                    base = self._clients["index"] = openai.OpenAI(
                        api_key=key, base_url=self.base_url, timeout=self.timeout,
                        max_retries=self.max_retries)
                client = self._clients[name] = base if not query else \
                    base.with_options(max_retries=0)
            return client

    def _request(self, texts: list[str]) -> dict:
        # OpenAI refuses empty strings; a blank text has no meaning to embed anyway
        inputs = [t[: self.max_chars] if t.strip() else " " for t in texts]
        request: dict = {"model": self.model, "input": inputs, "encoding_format": "float"}
        if self.dimensions is not None:
            request["dimensions"] = self.dimensions
        return request

    def _embed_batch(self, texts: list[str], query: bool,
                     timeout: float | None = None) -> np.ndarray:
        import openai

        client = self._client(query)
        attempts = 1 if query else self.max_retries + 1
        options: dict = {"timeout": timeout} if timeout else {}
        if self._api_key is None:  # the SDK's way to send no Authorization header
            options["extra_headers"] = {"Authorization": openai.Omit()}
        try:
            raw = client.embeddings.with_raw_response.create(**self._request(texts), **options)
        except openai.APITimeoutError:
            limit = timeout or self.timeout
            if query:
                raise EmbeddingError(
                    "provider_timeout", f"{self.provider} embeddings: no answer within the "
                    f"search's budget ({limit:g}s)") from None
            raise EmbeddingError(
                "provider_error", f"{self.provider} embeddings failed after {attempts} "
                f"attempt(s): timed out after {limit:g}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            why = f"{type(cause).__name__}: {cause}" if cause else str(exc)
            raise EmbeddingError(
                "provider_error", f"{self.provider} embeddings failed after {attempts} "
                f"attempt(s): connection failed ({why})") from None
        except openai.APIStatusError as exc:
            raise self._status_error(exc, attempts) from None
        return self._parse(raw.content, len(texts))

    def _detail(self, exc: openai.APIStatusError) -> str:
        """The server's error message, short (never for auth failures: it may quote the key)."""
        if exc.status_code in _AUTH_STATUS:
            return ""
        body = exc.body
        message = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        text = " ".join(scrub(str(message if message is not None else "")).split())[:200]
        return f": {text}" if text else ""  # scrubbed before the cut can split the key

    def _status_error(self, exc: openai.APIStatusError, attempts: int) -> EmbeddingError:
        status = exc.status_code
        if status in _INPUT_REJECTED_STATUS:
            return EmbeddingError(
                "provider_input_rejected",
                f"{self.provider} refused the input (HTTP {status}){self._detail(exc)}")
        if status in _AUTH_STATUS:
            return EmbeddingError(
                "provider_error",
                f"{self.provider} rejected the API key (HTTP {status}): check $OPENAI_API_KEY "
                f"or {self._missing_key_hint}")
        if status == 404:
            return EmbeddingError(
                "provider_error",
                f"{self.provider} answered 404 for {self.base_url}/embeddings: check base_url "
                f"and model {self.model!r}{self._detail(exc)}")
        if status in (408, 409, 429) or status >= 500:  # what the SDK retries
            return EmbeddingError(
                "provider_error", f"{self.provider} embeddings failed after {attempts} "
                f"attempt(s): HTTP {status}{self._detail(exc)}")
        return EmbeddingError("provider_error",
                              f"{self.provider} answered HTTP {status}{self._detail(exc)}")

    def _parse(self, content: bytes, expected: int) -> np.ndarray:
        def bad(why: str) -> EmbeddingError:
            return EmbeddingError("provider_error",
                                  f"{self.provider} sent a malformed embeddings response: {why}")

        try:
            body = json.loads(content)
        except ValueError:
            raise bad("not JSON") from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise bad("no 'data' list")
        if len(data) != expected:
            raise bad(f"{len(data)} embeddings for {expected} inputs")
        if not all(isinstance(item, dict) and isinstance(item.get("embedding"), list)
                   for item in data):
            raise bad("an item has no 'embedding' list")
        indices = [item.get("index") for item in data]
        if all(i is None for i in indices):
            ordered = data
        else:
            if not all(type(i) is int for i in indices) or \
                    sorted(indices) != list(range(expected)):
                raise bad("'index' values are not 0..n-1")
            ordered = sorted(data, key=lambda item: item["index"])
        try:
            vectors = np.asarray([item["embedding"] for item in ordered], dtype=np.float32)
        except (TypeError, ValueError):
            raise bad("embeddings are not equal-length lists of numbers") from None
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise bad("embeddings are not equal-length lists of numbers")
        if not np.isfinite(vectors).all():
            raise bad("embeddings hold non-finite numbers")
        # a vector of (almost) zero length points nowhere: kept, it would be "embedded" and
        # never asked for again, yet match nothing
        zero = int((np.linalg.norm(vectors, axis=1) <= ZERO_NORM).sum())
        if zero:
            raise bad(f"{zero} of {len(vectors)} embeddings have zero length")
        with self._lock:
            if self.dim == 0:
                self.dim = int(vectors.shape[1])
        if vectors.shape[1] != self.dim:
            raise bad(f"{vectors.shape[1]}-d vectors, expected {self.dim}")
        return vectors
