"""Optional rerank of fused candidates by an HTTP reranker (Cohere/Jina-style ``/rerank``).

``POST config.url`` with ``{"model", "query", "documents", "top_n"}`` (``model`` only when
configured), Bearer ``$MEMLENS_RERANK_API_KEY`` when set, expecting
``{"results": [{"index": i, "relevance_score": s}, ...]}``.

:func:`rerank` never raises for HTTP, network or malformed-answer problems: it returns a
:class:`RerankOutcome` with ``reranked=False``, a ``reason`` (``not_configured``, ``timeout``,
``error``; ``no_documents`` for an empty list) and the original order, so search goes on.

``$MEMLENS_RERANK_API_KEY`` is checked for form (no whitespace or control characters inside)
and registered with engine/embed/redact.py; every ``detail`` is scrubbed of it.

httpx is imported only when a reranker is configured: ``import httpx`` (0.28) also imports its
command-line client, which pulls in rich, and the engine must not load a UI library just by
being imported.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.config import RerankerConfig
from engine.embed.redact import key_form_problem, register_secret, scrub

if TYPE_CHECKING:
    import httpx

API_KEY_ENV = "MEMLENS_RERANK_API_KEY"


@dataclass
class RerankOutcome:
    reranked: bool
    reason: str | None = None  # not_configured | timeout | error | no_documents; None if reranked
    # indices into the documents, best first; always a permutation of range(len(documents)):
    # documents the reranker did not score (top_n) follow in their original order
    order: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)  # index -> relevance_score
    detail: str | None = None  # human-readable cause of a failure (never holds the API key)
    elapsed_ms: float = 0.0


def _parse(body: object, n: int) -> dict[int, float]:
    """``index -> score`` from a reranker answer; ValueError if it is malformed."""
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list):
        raise ValueError("no 'results' list")
    scores: dict[int, float] = {}
    for item in results:
        if not isinstance(item, dict):
            raise ValueError("a result is not an object")
        index, score = item.get("index"), item.get("relevance_score")
        if type(index) is not int or not 0 <= index < n:
            raise ValueError(f"result index {index!r} is not in 0..{n - 1}")
        if isinstance(score, bool) or not isinstance(score, (int, float)) \
                or not math.isfinite(score):
            raise ValueError(f"result {index} has no numeric relevance_score")
        if index in scores:
            raise ValueError(f"result index {index} appears twice")
        scores[index] = float(score)
    return scores


def rerank(query: str, documents: list[str], config: RerankerConfig, top_n: int | None = None,
           *, client: httpx.Client | None = None) -> RerankOutcome:
    """Reorder ``documents`` for ``query`` with the configured reranker, within its timeout.

    ``client`` lets a long-lived caller (the app) reuse connections; by default each call opens
    its own.
    """
    original = list(range(len(documents)))
    if not config.url:
        return RerankOutcome(False, "not_configured", original)
    if not documents:
        return RerankOutcome(False, "no_documents", original)

    import httpx

    started = time.perf_counter()
    key = os.environ.get(API_KEY_ENV, "").strip()
    register_secret(key)

    def failed(reason: str, detail: str) -> RerankOutcome:
        return RerankOutcome(False, reason, original, detail=scrub(detail),
                             elapsed_ms=(time.perf_counter() - started) * 1000)

    if key and (problem := key_form_problem(key)):
        return failed("error", f"the API key in ${API_KEY_ENV} is unusable: {problem}")

    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    n = len(documents) if top_n is None else max(1, min(top_n, len(documents)))
    payload: dict = {"query": query, "documents": list(documents), "top_n": n}
    if config.model:
        payload = {"model": config.model, **payload}

    own_client = client is None
    try:
        http = client or httpx.Client(timeout=httpx.Timeout(config.timeout))
    except Exception as exc:  # noqa: BLE001 - never raise into search
        return failed("error", f"reranker client could not start: {exc}")
    try:
        response = http.post(config.url, json=payload, headers=headers,
                             timeout=httpx.Timeout(config.timeout))
        if response.status_code != 200:
            return failed("error", f"reranker answered HTTP {response.status_code}")
        scores = _parse(response.json(), len(documents))
    except httpx.TimeoutException:
        return failed("timeout", f"reranker gave no answer within {config.timeout:g}s")
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return failed("error", f"reranker request failed ({type(exc).__name__}: {exc})")
    except ValueError as exc:  # bad JSON or a malformed answer
        return failed("error", f"reranker sent a malformed answer: {exc}")
    except Exception as exc:  # noqa: BLE001 - a reranker is optional; search must go on
        return failed("error", f"reranker failed ({type(exc).__name__}: {exc})")
    finally:
        if own_client:
            http.close()

    ranked = sorted(scores, key=lambda i: -scores[i])  # stable: ties keep document order
    seen = set(ranked)
    order = ranked + [i for i in original if i not in seen]
    return RerankOutcome(True, None, order, scores,
                         elapsed_ms=(time.perf_counter() - started) * 1000)
