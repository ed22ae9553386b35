"""What a failing embedding provider may cost (docs/reliability.md), against a real HTTP server on
127.0.0.1: a search waits at most its query budget, a circuit breaker shared by the process skips a
provider that just failed, and a provider refusing every input costs a bounded number of requests
per reindex. Counts of requests are asserted, never durations."""

from __future__ import annotations

import time

import numpy as np
import pytest

from engine.config import load_config
from engine.embed.provider_guard import MAX_CONSECUTIVE_REJECTIONS, BatchIsolation, CircuitBreaker
from engine.embedder import Embedder, EmbeddingError
from engine.indexer import reindex
from engine.searcher import Searcher
from tests.conftest import make_root, slack_lines
from tests.http_fixtures import Reply, Request, ServerFactory

DIM = 8


@pytest.fixture
def http_server():
    with ServerFactory() as start:
        yield start


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)


def embeddings(request: Request) -> Reply:
    inputs = request.json()["input"]
    data = [{"index": i, "embedding": [float(len(t) % 5 + 1), 1.0, 0, 0, 0, 0, 0, float(i % 2)]}
            for i, t in enumerate(inputs)]
    return Reply(200, {"data": data})


def provider_root(tmp_path, server, extra: str = ""):
    root = make_root(tmp_path / "root")
    (root / "memlens.toml").write_text(
        '[embedder]\nprovider = "openai-compatible"\nmodel = "m"\n'
        f'base_url = "{server.url}/v1"\ndimensions = {DIM}\n' + extra)
    return root


def indexed_searcher(tmp_path, http_server, extra: str = ""):
    """A searcher over an index built while the provider worked; then the provider turns bad."""
    server = http_server(default=embeddings, max_requests=1000)
    root = provider_root(tmp_path, server, extra)
    stats = reindex(config=load_config(root))
    assert stats.embedded == stats.chunks > 0
    server.requests.clear()
    return Searcher(load_config(root)), server


# -- the query budget ---------------------------------------------------------------------------

def test_hanging_provider_search_is_keyword_only_within_the_budget(tmp_path, http_server):
    searcher, server = indexed_searcher(
        tmp_path, http_server, "timeout = 30\nmax_retries = 5\nquery_timeout = 0.3\n")
    server.default = Reply(200, {"data": []}, delay=60)  # hangs (cut short when the test ends)

    response = searcher.search("harbor bridge")
    assert response.arms == "keyword-only (semantic unavailable: provider_timeout)"
    assert response.semantic_error == "provider_timeout"
    assert "budget" in response.semantic_detail or "within 0.3s" in response.semantic_detail
    assert response.results and all(r.keyword_rank for r in response.results)
    assert len(server.requests) == 1  # no retries past the budget (30 s x 6 without one)

    # the breaker is open now: the next search does not ask the provider at all
    again = searcher.search("tomatoes fence")
    assert again.arms == "keyword-only (semantic unavailable: provider_timeout)"
    assert "circuit open" in again.semantic_detail and again.results
    assert len(server.requests) == 1
    searcher.close()


def test_breaker_is_shared_by_the_searchers_of_a_process(tmp_path, http_server):
    searcher, server = indexed_searcher(tmp_path, http_server, "max_retries = 0\n")
    server.default = Reply(503)
    first = searcher.search("harbor")
    assert first.semantic_error == "provider_error" and "HTTP 503" in first.semantic_detail
    assert len(server.requests) == 1

    other = Searcher(searcher.config)  # a new searcher (e.g. another MCP call): same breaker
    second = other.search("harbor", mode="semantic")
    assert second.arms == "none (semantic unavailable: provider_error)"
    assert "circuit open after 1 failure(s)" in second.semantic_detail
    assert "HTTP 503" in second.semantic_detail
    assert len(server.requests) == 1
    searcher.close()
    other.close()


def test_refused_query_does_not_open_the_breaker(tmp_path, http_server):
    searcher, server = indexed_searcher(tmp_path, http_server, "max_retries = 0\n")
    server.script = [Reply(400, {"error": {"message": "input too long"}})]
    refused = searcher.search("harbor")
    assert refused.semantic_error == "provider_input_rejected"
    ok = searcher.search("harbor")  # the provider is up: asked again, answers
    assert ok.arms == "both" and ok.semantic_error is None
    assert len(server.requests) == 2
    searcher.close()


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_breaker_cools_down_then_lets_one_trial_through_and_grows():
    clock = FakeClock()
    breaker = CircuitBreaker("openai", clock=clock, cooldown=30, cooldown_max=100)
    error = EmbeddingError("provider_timeout", "openai gave no query embedding within 2s")
    breaker.before_call()  # closed: goes through
    breaker.failure(error)
    assert breaker.state == "open"
    with pytest.raises(EmbeddingError) as info:
        breaker.before_call()
    assert info.value.kind == "provider_timeout"
    assert "next try in 30s" in str(info.value) and "within 2s" in str(info.value)

    clock.now += 30
    assert breaker.state == "half-open"
    breaker.before_call()  # the one trial
    with pytest.raises(EmbeddingError):
        breaker.before_call()  # a second caller meanwhile is still skipped
    breaker.failure(error)  # the trial failed: twice as long
    clock.now += 59
    with pytest.raises(EmbeddingError, match="next try in 1s"):
        breaker.before_call()
    clock.now += 1
    breaker.before_call()
    breaker.failure(error)
    assert breaker.cooldown == 100  # capped
    clock.now += 100
    breaker.before_call()
    breaker.success()
    assert breaker.state == "closed" and breaker.cooldown == 30
    breaker.before_call()


def test_breaker_trial_through_a_search_recovers(tmp_path, http_server):
    searcher, server = indexed_searcher(tmp_path, http_server, "max_retries = 0\n")
    from engine.embed.provider_guard import breaker_for

    breaker = breaker_for(searcher.embedder)
    clock = FakeClock()
    breaker._clock = clock  # the process-wide breaker of this endpoint, on a test clock
    server.default = Reply(500)
    assert searcher.search("harbor").semantic_error == "provider_error"
    server.default = embeddings
    assert searcher.search("harbor").semantic_error == "provider_error"  # still cooling down
    assert len(server.requests) == 1
    clock.now += 30
    # the cool-down is over: this search still answers at once from the keyword arm while
    # one trial runs in the background
    answer = searcher.search("harbor")
    assert answer.semantic_error == "provider_error"
    assert "retry is running in the background" in answer.semantic_detail
    for _ in range(500):  # the trial answers on its own thread
        if breaker.state == "closed":
            break
        time.sleep(0.01)
    assert breaker.state == "closed" and len(server.requests) == 2
    assert searcher.search("harbor").arms == "both"
    assert searcher.search("bridge").arms == "both"
    assert len(server.requests) == 4
    searcher.close()


# -- bounded isolation when indexing ------------------------------------------------------------

def test_provider_refusing_everything_costs_a_bounded_number_of_requests(tmp_path, http_server):
    server = http_server(default=Reply(400, {"error": {"message": "unsupported model"}}),
                         max_requests=5000)
    root = provider_root(tmp_path, server, "max_retries = 0\n")
    (root / "data/slack/big.jsonl").write_text(slack_lines(2000))  # ~200 more chunks

    stats = reindex(config=load_config(root))
    assert stats.chunks > 200 and stats.embedded == 0
    assert stats.pending_embeddings == stats.chunks  # all kept, keyword-searchable
    # one-by-one isolation would cost a request per chunk, twice (files, then the pending pass)
    assert len(server.requests) <= 30
    assert any(f"refused {MAX_CONSECUTIVE_REJECTIONS} inputs in a row" in e
               for e in stats.embedding_errors)


class Refuses(Embedder):
    """Refuses any batch holding a 'bad' text, like a provider's 400 for one over-long input."""

    provider, model, dim = "test", "refuses", 2

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        if any(t.startswith("bad") for t in texts):
            raise EmbeddingError("provider_input_rejected", "input refused (test)")
        return np.ones((len(texts), 2), dtype=np.float32)


def test_one_refused_input_in_fifty_is_found_by_bisection():
    embedder = Refuses()
    texts = [f"good {i}" for i in range(50)]
    texts[37] = "bad 37"
    result = BatchIsolation(embedder).embed(texts)

    assert [i for i, v in enumerate(result.vectors) if v is None] == [37]
    assert len(embedder.calls) <= 14  # one-by-one isolation takes 51
    assert all(e.kind == "provider_input_rejected" for e in result.errors)

    # a text refused alone is not sent again in the same run (e.g. by the pending pass)
    isolation = BatchIsolation(embedder)
    isolation.embed(["bad 37"])
    before = len(embedder.calls)
    assert isolation.embed(["bad 37", "good x"]).vectors[0] is None
    assert embedder.calls[before:] == [["good x"]]


def test_a_provider_error_stops_the_run():
    class Down(Refuses):
        def embed(self, texts):
            self.calls.append(list(texts))
            raise EmbeddingError("provider_error", "connection failed (test)")

    embedder = Down()
    isolation = BatchIsolation(embedder)
    assert isolation.embed(["a", "b"]).vectors == [None, None]
    assert isolation.stopped
    assert isolation.embed(["c"]).vectors == [None]
    assert len(embedder.calls) == 1


def test_a_library_exception_becomes_a_provider_error(http_server):
    """A hostile answer (JSON nested 100,000 deep) is a provider_error, not a RecursionError."""
    from engine.embed.embedder_openai import OpenAIEmbedder

    server = http_server(default=Reply(200, body='{"data": ' + "[" * 100_000 + "]" * 100_000
                                       + "}"))
    embedder = OpenAIEmbedder("openai-compatible", model="m", base_url=server.url,
                              dimensions=DIM, max_retries=0)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert info.value.kind == "provider_error"
    assert "RecursionError" in str(info.value) or "malformed" in str(info.value)


# -- the dimension probe of a compatible provider without `dimensions` ---------------------------

def test_a_searcher_warming_up_probes_the_dimension_once_within_the_budget(tmp_path,
                                                                          http_server):
    server = http_server(default=embeddings, max_requests=1000)
    root = make_root(tmp_path / "root")
    (root / "memlens.toml").write_text(
        '[embedder]\nprovider = "openai-compatible"\nmodel = "m"\n'
        f'base_url = "{server.url}/v1"\nmax_retries = 5\nquery_timeout = 0.5\n')
    stats = reindex(config=load_config(root))  # the probe learns 8-d from a working server
    assert stats.embedded == stats.chunks > 0
    server.requests.clear()
    server.default = Reply(503)

    searcher = Searcher(load_config(root))
    assert searcher.embedder.dim == 0
    searcher.warm_up()  # used to retry the probe 6 times, holding the searcher's lock
    assert len(server.requests) == 1
    response = searcher.search("harbor")
    assert response.semantic_error == "provider_error" and "circuit open" in \
        response.semantic_detail and response.results
    assert len(server.requests) == 1
    searcher.close()


def zeros(request: Request) -> Reply:
    return Reply(200, {"data": [{"index": i, "embedding": [0.0] * DIM}
                                for i, _ in enumerate(request.json()["input"])]})


def test_zero_vectors_are_refused_and_a_healthy_provider_embeds_them_later(tmp_path,
                                                                           http_server):
    broken = http_server(default=zeros, max_requests=1000)
    root = provider_root(tmp_path, broken, "max_retries = 0\n")
    stats = reindex(config=load_config(root))
    assert stats.chunks > 0 and stats.embedded == 0
    assert stats.pending_embeddings == stats.chunks  # nothing counted done
    assert any("zero length" in e for e in stats.embedding_errors)

    healthy = http_server(default=embeddings, max_requests=1000)
    (root / "memlens.toml").write_text((root / "memlens.toml").read_text().replace(
        broken.url, healthy.url))
    again = reindex(config=load_config(root))
    assert again.embedded == stats.chunks and again.pending_embeddings == 0
