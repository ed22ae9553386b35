"""The ``openai`` and ``openai-compatible`` embedders: the embeddings API spoken over httpx.

``POST {base_url}/embeddings`` with ``{"model", "input": [texts]}`` (plus ``"dimensions"`` when
configured) and Bearer auth. The same client serves OpenAI itself and any server that speaks the
API (Ollama, llama.cpp, vLLM, ...).

- Texts go in batches of ``batch_size`` (50, the seed's number), each cut to 20,000 characters
  first, so the provider is safe even when a caller forgot to truncate.
- 429, 408, 5xx, connection errors and timeouts are retried with exponential backoff and jitter
  (``max_retries`` retries, so ``max_retries + 1`` attempts); a numeric ``Retry-After`` is
  honoured up to a cap. Other 4xx are final at once: 400/413/422 mean the provider refused the
  input (``provider_input_rejected``, so the indexer can isolate the offending text), the rest
  are ``provider_error``.
- A malformed answer (not JSON, wrong shape, wrong count, wrong dimension) is ``provider_error``.
- httpx is imported on first use, not with this module: ``import httpx`` (0.28) also imports
  its command-line client, which pulls in rich, and the engine must not load a UI library
  just by being imported (tests/test_boundaries.py).
- The API key comes from ``$OPENAI_API_KEY``, else ``<root>/secrets/openai.json``. A key with
  whitespace, control or non-ASCII characters inside is refused when it is read (one error naming
  where it came from, never the key). It is never put in an exception message, a repr or a log
  line: it is registered with engine/redact.py, every message is scrubbed of it (whole or any
  8-character piece), and auth failures never echo the server's text (OpenAI's own 401 message
  quotes part of the key).
- A search's query embedding (:meth:`embed_query`) stops retrying at its deadline; the budget
  and the circuit breaker around it live in engine/provider_guard.py.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .config import MAX_EMBED_CHARS, ConfigError, EmbedderConfig
from .embedder import Embedder, EmbeddingError, normalise
from .openai_key import SECRETS_RELATIVE_PATH, Secret, read_api_key, unusable
from .provider_guard import provider_failures
from .redact import scrub

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "text-embedding-3-small"
# native output sizes of OpenAI's embedding models (used when `dimensions` is not configured)
OPENAI_MODEL_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
DEFAULT_BATCH_SIZE = 50
RETRY_AFTER_CAP = 20.0  # seconds; a longer Retry-After is cut to this
BACKOFF_BASE = 0.5  # seconds before the first retry (doubles each time, plus jitter)
BACKOFF_CAP = 20.0

_RETRYABLE_STATUS = frozenset({408, 429})
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
        backoff_base: float = BACKOFF_BASE,
        backoff_cap: float = BACKOFF_CAP,
        retry_after_cap: float = RETRY_AFTER_CAP,
        sleep: Callable[[float], None] = time.sleep,
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
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self._sleep = sleep
        if api_key and (problem := unusable(api_key, key_source or "api_key")):
            key_problem, key_source, api_key = problem, key_source or "api_key", None
        self._api_key = Secret(api_key) if api_key else None
        # set with no key when the key found there was unusable (then embedding is refused)
        self.key_source = key_source if (api_key or key_problem) else None
        self.key_problem = key_problem
        self._missing_key_hint = missing_key_hint
        self._client: httpx.Client | None = None
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
        self._check_key()
        texts = list(texts)
        with provider_failures(self.provider):
            parts = [self._embed_batch(texts[i:i + self.batch_size])
                     for i in range(0, len(texts), self.batch_size)]
        return normalise(np.concatenate(parts, axis=0))

    def embed_query(self, text: str, budget: float) -> np.ndarray:
        """One vector, with retries only while they fit in ``budget`` seconds."""
        self._check_key()
        with provider_failures(self.provider):
            vectors = self._embed_batch([text], deadline=time.monotonic() + budget)
        return normalise(vectors)[0]

    def discover_dim(self) -> int:
        """The vector size, asking the server with one tiny input if it is not known yet."""
        if self.dim == 0:
            self.embed(["dimension probe"])
        return self.dim

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------

    def _check_key(self) -> None:
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

    def _error(self, kind: str, message: str) -> EmbeddingError:
        return EmbeddingError(kind, message)  # scrubbed by EmbeddingError itself

    def _http(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout))
            return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return headers

    def _payload(self, texts: list[str]) -> dict:
        # OpenAI refuses empty strings; a blank text has no meaning to embed anyway
        inputs = [t[: self.max_chars] if t.strip() else " " for t in texts]
        payload: dict = {"model": self.model, "input": inputs}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        return payload

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            retry_after = response.headers.get("retry-after")
            if retry_after is not None:
                try:
                    seconds = float(retry_after)
                except ValueError:
                    seconds = math.nan  # an HTTP date: fall back to our own backoff
                if math.isfinite(seconds):
                    return min(max(seconds, 0.0), self.retry_after_cap)
        delay = min(self.backoff_cap, self.backoff_base * (2 ** attempt))
        return delay / 2 + random.uniform(0, delay / 2)

    def _embed_batch(self, texts: list[str], deadline: float | None = None) -> np.ndarray:
        """One batch with retries; with a ``deadline`` (monotonic), none that would pass it."""
        import httpx

        url = f"{self.base_url}/embeddings"
        payload = self._payload(texts)
        attempts = self.max_retries + 1
        last, timed_out, out_of_time, made = "no attempt made", True, False, 0
        for attempt in range(attempts):
            response: httpx.Response | None = None
            timeout = self.timeout if deadline is None else min(
                self.timeout, deadline - time.monotonic())
            if timeout <= 0:
                out_of_time = True
                break
            made += 1
            try:
                response = self._http().post(url, json=payload, headers=self._headers(),
                                             timeout=httpx.Timeout(timeout))
                timed_out = False
            except httpx.TimeoutException as exc:
                last, timed_out = f"timed out after {timeout:g}s ({type(exc).__name__})", True
            except httpx.UnsupportedProtocol as exc:
                raise self._error(
                    "provider_error", f"{self.provider} base_url {self.base_url!r} is not an "
                    f"http(s) URL: {exc}") from None
            except httpx.TransportError as exc:
                last, timed_out = f"connection failed ({type(exc).__name__}: {exc})", False
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._error("provider_error",
                                  f"{self.provider} request failed: {exc}") from None
            else:
                status = response.status_code
                if status == 200:
                    return self._parse(response, len(texts))
                if status in _RETRYABLE_STATUS or status >= 500:
                    last = f"HTTP {status}{self._detail(response)}"
                else:
                    raise self._final(status, response)
            if attempt + 1 < attempts:
                delay = self._delay(attempt, response)
                if deadline is not None and time.monotonic() + delay >= deadline:
                    out_of_time = True
                    break
                # info, not warning: with no handler configured a warning would reach stderr
                # (logging's last resort) and scribble over the terminal app
                log.info("%s embeddings: %s; retry %d/%d in %.2fs", self.provider,
                         scrub(last), attempt + 1, self.max_retries, delay)
                self._sleep(delay)
        if out_of_time:
            raise self._error(
                "provider_timeout" if timed_out else "provider_error",
                f"{self.provider} embeddings: no answer within the search's budget after "
                f"{made} attempt(s): {last}")
        raise self._error(
            "provider_error",
            f"{self.provider} embeddings failed after {attempts} attempt(s): {last}")

    def _detail(self, response: httpx.Response) -> str:
        """The server's error message, short (never for auth failures: it may quote the key)."""
        if response.status_code in _AUTH_STATUS:
            return ""
        try:
            body = response.json()
            message = body.get("error", body) if isinstance(body, dict) else body
            if isinstance(message, dict):
                message = message.get("message", message)
            text = str(message)
        except ValueError:
            text = response.text
        text = " ".join(scrub(text).split())[:200]  # scrubbed before a cut can split the key
        return f": {text}" if text else ""

    def _final(self, status: int, response: httpx.Response) -> EmbeddingError:
        if status in _INPUT_REJECTED_STATUS:
            return self._error(
                "provider_input_rejected",
                f"{self.provider} refused the input (HTTP {status}){self._detail(response)}")
        if status in _AUTH_STATUS:
            return self._error(
                "provider_error",
                f"{self.provider} rejected the API key (HTTP {status}): check $OPENAI_API_KEY "
                f"or {self._missing_key_hint}")
        if status == 404:
            return self._error(
                "provider_error",
                f"{self.provider} answered 404 for {self.base_url}/embeddings: check base_url "
                f"and model {self.model!r}{self._detail(response)}")
        return self._error("provider_error",
                           f"{self.provider} answered HTTP {status}{self._detail(response)}")

    def _parse(self, response: httpx.Response, expected: int) -> np.ndarray:
        def bad(why: str) -> EmbeddingError:
            return self._error("provider_error",
                               f"{self.provider} sent a malformed embeddings response: {why}")

        try:
            body = response.json()
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
        with self._lock:
            if self.dim == 0:
                self.dim = int(vectors.shape[1])
        if vectors.shape[1] != self.dim:
            raise bad(f"{vectors.shape[1]}-d vectors, expected {self.dim}")
        return vectors
