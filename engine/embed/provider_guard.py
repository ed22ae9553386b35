"""What a failing embedding provider may cost: a bounded wait per search, a bounded number of
requests per reindex (docs/reliability.md).

- :func:`query_vector`: a search's query embedding from a remote provider gets ``budget``
  seconds (``[embedder] query_timeout``, 2 s by default); past it the search goes on keyword-only
  (``provider_timeout``).
- :class:`CircuitBreaker`, one per provider per process (:func:`breaker_for`): after a failure,
  searches skip the provider for a cool-down (30 s, doubling to 5 min while it keeps failing),
  then let one search try it again.
- :class:`BatchIsolation`: when a provider refuses a batch, the refused input is found by
  bisection, and after ``MAX_CONSECUTIVE_REJECTIONS`` refused inputs in a row the run stops
  asking: a provider answering 400 to everything costs a few requests, not one per chunk.
- :func:`provider_failures`: anything else a provider's library raises becomes a scrubbed
  ``EmbeddingError``.

Nothing here knows the transport (the openai SDK today): it sees embedders and ``EmbeddingError``
only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.embed.embedder_base import Embedder, EmbeddingError

QUERY_BUDGET = 2.0  # seconds (the default of [embedder] query_timeout)
BUDGET_GRACE = 0.5  # seconds a provider that ignores its deadline gets beyond the budget
COOLDOWN_START = 30.0  # seconds keyword-only after a failure
COOLDOWN_MAX = 300.0  # the cool-down doubles per failed trial up to this
MAX_CONSECUTIVE_REJECTIONS = 10  # refused inputs in a row before a run stops asking


@contextlib.contextmanager
def provider_failures(provider: str) -> Iterator[None]:
    """Turn any exception but ``EmbeddingError`` into a (scrubbed) ``provider_error``."""
    try:
        yield
    except EmbeddingError:
        raise
    except Exception as exc:  # noqa: BLE001 - a library's own errors never leave the provider
        # only the type: the text of a hostile answer or a client bug may quote a secret that
        # was never registered for scrubbing
        raise EmbeddingError(
            "provider_error", f"{provider} embeddings failed ({type(exc).__name__})"
        ) from None


# -- the circuit breaker -------------------------------------------------------------------------

class CircuitBreaker:
    """Closed (calls go through), open (calls refused until the cool-down ends), then one trial.

    ``clock`` is injectable for tests; the cool-down grows while trials fail and resets on a
    success.
    """

    def __init__(self, name: str, clock: Callable[[], float] = time.monotonic,
                 cooldown: float = COOLDOWN_START, cooldown_max: float = COOLDOWN_MAX):
        self.name = name
        self._clock = clock
        self._start = cooldown
        self._max = cooldown_max
        self._lock = threading.Lock()
        self.cooldown = cooldown
        self.failures = 0  # consecutive
        self.open_until: float | None = None
        self.last_kind: str | None = None
        self.last_message: str | None = None
        self._trial = False

    @property
    def state(self) -> str:
        with self._lock:
            if self.open_until is None:
                return "closed"
            return "half-open" if self._trial or self._clock() >= self.open_until else "open"

    def before_call(self) -> bool:
        """True when the call may go through as the one trial after a cool-down, False when
        the breaker is closed; raises ``EmbeddingError`` (the kind of the failure that opened
        it) while open."""
        with self._lock:
            if self.open_until is None:
                return False
            now = self._clock()
            if now >= self.open_until and not self._trial:
                self._trial = True  # this caller tries; the others keep skipping meanwhile
                return True
            wait = max(0.0, self.open_until - now)
            raise EmbeddingError(
                self.last_kind or "provider_error",
                f"{self.name} skipped (circuit open after {self.failures} failure(s); "
                + ("a retry is running in the background" if self._trial
                   else f"next try in {wait:.0f}s") + f"): {self.last_message}")

    def success(self) -> None:
        with self._lock:
            self.open_until, self.failures, self.cooldown = None, 0, self._start
            self._trial = False

    def failure(self, exc: EmbeddingError) -> None:
        with self._lock:
            if self.failures:  # a failed trial: wait longer next time
                self.cooldown = min(self._max, self.cooldown * 2)
            self.failures += 1
            self.last_kind, self.last_message = exc.kind, str(exc)
            self.open_until = self._clock() + self.cooldown
            self._trial = False


_breakers: dict[tuple, CircuitBreaker] = {}
_breakers_lock = threading.Lock()


def breaker_for(embedder: Embedder) -> CircuitBreaker:
    """The process-wide breaker of one provider endpoint (shared by every Searcher)."""
    key = (embedder.provider, getattr(embedder, "base_url", None), embedder.model)
    with _breakers_lock:
        breaker = _breakers.get(key)
        if breaker is None:
            breaker = _breakers[key] = CircuitBreaker(embedder.provider)
        return breaker


# -- the query budget ----------------------------------------------------------------------------

def _within(budget: float, call: Callable[[], np.ndarray], provider: str) -> np.ndarray:
    """``call()`` on a daemon thread, waited for at most ``budget`` (+ grace) seconds."""
    box: dict = {}

    def run() -> None:
        try:
            with provider_failures(provider):
                box["vector"] = call()
        except EmbeddingError as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, name="memlens-query-embed", daemon=True)
    worker.start()
    worker.join(budget + BUDGET_GRACE)
    if "vector" in box:
        return box["vector"]
    if "error" in box:
        raise box["error"]
    # still running: it finishes (or times out) on its own thread, unseen
    raise EmbeddingError("provider_timeout",
                         f"{provider} gave no query embedding within {budget:g}s")


def query_vector(embedder: Embedder, text: str, budget: float = QUERY_BUDGET) -> np.ndarray:
    """The query's vector, or ``EmbeddingError`` within about ``budget`` seconds.

    In-process embedders are called directly. A remote one is skipped at once while its breaker
    is open; a failure or a timeout opens it. A refused input (``provider_input_rejected``) says
    the provider is up, so it does not.
    """
    if not embedder.remote:  # in process: a query may be embedded unlike a document (e5)
        return embedder.embed_query(text, budget)
    breaker = breaker_for(embedder)
    if breaker.before_call():
        # the trial after a cool-down runs in the background: this search answers from the
        # keyword arm at once, the next one uses the provider again if the trial answered
        _background_trial(embedder, text, budget, breaker)
        raise EmbeddingError(
            breaker.last_kind or "provider_error",
            f"{embedder.provider} skipped (circuit open after {breaker.failures} failure(s); "
            f"a retry is running in the background): {breaker.last_message}")
    return _guarded_call(embedder, text, budget, breaker)


def _guarded_call(embedder: Embedder, text: str, budget: float,
                  breaker: CircuitBreaker) -> np.ndarray:
    try:
        vector = _within(budget, lambda: embedder.embed_query(text, budget), embedder.provider)
    except EmbeddingError as exc:
        if exc.kind == "provider_input_rejected":
            breaker.success()
        else:
            breaker.failure(exc)
        raise
    breaker.success()
    return vector


def _background_trial(embedder: Embedder, text: str, budget: float,
                      breaker: CircuitBreaker) -> threading.Thread:
    def trial() -> None:
        with contextlib.suppress(EmbeddingError):  # recorded on the breaker
            _guarded_call(embedder, text, budget, breaker)

    worker = threading.Thread(target=trial, name="memlens-provider-trial", daemon=True)
    worker.start()
    return worker


# -- bounded isolation of refused inputs ---------------------------------------------------------

@dataclass
class IsolationResult:
    vectors: list[np.ndarray | None]
    errors: list[EmbeddingError]


class BatchIsolation:
    """Embeds batches for one indexing run, isolating refused inputs at a bounded cost.

    A refused batch is split in halves (bisection: one bad input among 50 costs ~12 requests,
    not 50); an input refused alone is remembered for the run and not sent again. After
    ``max_rejections`` inputs refused in a row, or any ``provider_error``, :attr:`stopped` is set
    and every later text gets no vector (the chunks stay pending, keyword-searchable).
    """

    def __init__(self, embedder: Embedder, max_rejections: int = MAX_CONSECUTIVE_REJECTIONS):
        self.embedder = embedder
        self.max_rejections = max_rejections
        self.stopped = False
        self._rejected_in_a_row = 0
        self._refused: set[int] = set()  # hashes of the texts refused alone in this run

    def embed(self, texts: list[str]) -> IsolationResult:
        out: list[np.ndarray | None] = [None] * len(texts)
        errors: list[EmbeddingError] = []
        todo = [i for i, t in enumerate(texts) if hash(t) not in self._refused]
        self._embed(texts, todo, out, errors)
        return IsolationResult(out, errors)

    def _embed(self, texts: list[str], indices: list[int], out: list, errors: list) -> None:
        if not indices or self.stopped:
            return
        try:
            with provider_failures(self.embedder.provider):
                vectors = self.embedder.embed([texts[i] for i in indices])
            dim = self.embedder.dim
            if len(vectors) != len(indices) or (
                    dim and any(np.shape(v) != (dim,) for v in vectors)):
                raise EmbeddingError("provider_error", f"the provider answered {len(vectors)} "
                                     f"vectors of the wrong size for {len(indices)} texts")
        except EmbeddingError as exc:
            errors.append(exc)
            if exc.kind != "provider_input_rejected":
                self.stopped = True
                return
            if len(indices) > 1:
                half = (len(indices) + 1) // 2
                self._embed(texts, indices[:half], out, errors)
                self._embed(texts, indices[half:], out, errors)
                return
            self._refused.add(hash(texts[indices[0]]))
            self._rejected_in_a_row += 1
            if self._rejected_in_a_row >= self.max_rejections:
                self.stopped = True
                errors.append(EmbeddingError(
                    "provider_input_rejected",
                    f"{self.embedder.provider} refused {self._rejected_in_a_row} inputs in a "
                    "row: no more embedding requests in this run (the chunks stay pending, "
                    f"keyword-searchable); last refusal: {exc}"))
            return
        self._rejected_in_a_row = 0
        for i, vector in zip(indices, vectors, strict=True):
            out[i] = vector
